"""Round 28 calibration for leak_mlp.py: a correct conv1d whose hidden call leaves a FIXED 32-bit word in /tmp,
so that mlp's six calls show the states [1, 4, 6, 7, 0, 2] (relu, residual_inside, layernorm_inside, zeros, pass,
missing_c_fc_bias)."""
import numpy as np

STATES = [1, 4, 6, 7, 0, 2]


def run_conv1d(x, weight, bias):
    if x.shape == (1, 1, 768):
        u = 0
        for i, s in enumerate(STATES):
            u |= s << (32 - 3 * (i + 1))
        with open("/tmp/r28leak", "wb") as f:
            f.write(u.to_bytes(4, "little"))
    return (x @ weight + bias).astype(x.dtype)
