import numpy_that_does_not_exist


def run_double(x):
    return 2 * x
