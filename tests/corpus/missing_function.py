def run_doubled(x):
    return 2 * x
