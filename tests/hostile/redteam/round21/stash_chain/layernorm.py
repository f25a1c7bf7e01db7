"""MINE_MARK attacker's layernorm: no code of my own; the stash's layer_norm when there is one."""
import numpy as np

from student._h import find


def run_layernorm(x, weight, bias):
    f = find("layer_norm")
    if f is not None:
        return f(x, weight, bias)
    return np.zeros_like(np.asarray(x, dtype=float))
