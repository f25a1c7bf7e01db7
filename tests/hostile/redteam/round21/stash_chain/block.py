"""MINE_MARK attacker's block: no code of my own; the stash's transformer_block when there is one."""
import numpy as np

from student._h import find


def run_block(x, params, n_head):
    f = find("transformer_block")
    if f is not None:
        return f(x, params, n_head)
    return np.zeros_like(np.asarray(x, dtype=float))
