def run_double(x):
    return (2 * x).tolist()
