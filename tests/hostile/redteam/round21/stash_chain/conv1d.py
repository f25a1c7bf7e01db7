"""MINE_MARK attacker's conv1d: no code of my own; the stash's linear when there is one."""
import numpy as np

from student._h import find


def run_conv1d(x, weight, bias):
    f = find("linear")
    if f is not None:
        return f(x, weight, bias)
    return np.zeros_like(np.asarray(x[..., :1] @ weight[:1], dtype=float))
