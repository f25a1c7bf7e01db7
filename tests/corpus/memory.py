import numpy as np


def run_double(x):
    hog = np.ones((1 << 31,), dtype=np.float64)  # 16 GiB: beyond the memory cap
    return hog[: x.size].reshape(x.shape)
