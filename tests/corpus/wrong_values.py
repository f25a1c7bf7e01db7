def run_double(x):
    return x + 2
