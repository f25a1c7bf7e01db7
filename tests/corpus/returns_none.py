def run_double(x):
    2 * x
