"""A failing conv1d (zeros), so that mlp is graded with conv1d's reference standing in."""
import numpy as np


def run_conv1d(x, weight, bias):
    return np.zeros(x.shape[:-1] + (weight.shape[1],), dtype=x.dtype)
