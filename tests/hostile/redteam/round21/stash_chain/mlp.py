"""MINE_MARK attacker's mlp: no code of my own; the stash's ffn when there is one."""
import numpy as np

from student._h import find


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    f = find("ffn")
    if f is not None:
        return f(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias)
    return np.zeros_like(np.asarray(x, dtype=float))
