"""__array__ that answers right the first time and wrong afterwards (or the other way round)."""
import numpy as np


class Shifty:
    def __init__(self, x):
        self.x, self.calls = x, 0

    def __array__(self, dtype=None, copy=None):
        self.calls += 1
        return np.asarray(self.x + self.calls)  # never 2 * x


def run_double(x):
    return [Shifty(v) for v in x.ravel()]
