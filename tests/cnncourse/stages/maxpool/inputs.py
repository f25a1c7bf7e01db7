import numpy as np


def distinct(rng, shape):
    """Every value different (no ties for the maximum), shuffled, roughly N(0, 1) in scale."""
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float32) / n * 4 - 2).reshape(shape)
