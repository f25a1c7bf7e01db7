import numpy as np


def run_double(x):
    return np.array([object()] * x.size, dtype=object)
