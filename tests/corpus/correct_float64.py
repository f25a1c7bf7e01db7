import numpy as np


def run_double(x):
    return (2 * x).astype(np.float64)
