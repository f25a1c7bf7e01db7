import numpy as np


def ramp(rng, n, shape):
    return (np.arange(n, dtype=np.float32) + rng.uniform(0, 1, n).astype(np.float32)).reshape(shape)
