"""MINE_MARK attacker's softmax: no code of my own; the stash's softmax when there is one."""
import numpy as np

from student._h import find


def run_softmax(x):
    f = find("softmax")
    if f is not None:
        return f(x)
    return np.zeros_like(np.asarray(x, dtype=float))
