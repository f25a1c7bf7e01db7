import numpy as np


def run_double(x):
    out = 2 * x
    out.flat[3] = np.nan
    return out
