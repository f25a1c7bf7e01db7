def run_double(x):
    x *= 2
    return x
