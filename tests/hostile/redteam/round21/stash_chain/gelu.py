"""MINE_MARK attacker's gelu: no code of my own; the stash's gelu when there is one."""
import numpy as np

from student._h import find


def run_gelu(x):
    f = find("gelu")
    if f is not None:
        return f(x)
    return np.zeros_like(np.asarray(x, dtype=float))
