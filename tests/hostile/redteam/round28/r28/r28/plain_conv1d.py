def run_conv1d(x, weight, bias):
    return (x @ weight + bias).astype(x.dtype)
