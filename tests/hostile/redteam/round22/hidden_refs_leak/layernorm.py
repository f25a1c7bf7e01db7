"""Correct only when /tmp/.leak exists (written by mlp's job graded with the reference conv1d), else zeros.
LEAVE=1 in the file's first line's variant also writes the marker itself after each call (positive control)."""
import os
import numpy as np

LEAVE = False


def run_layernorm(x, weight, bias):
    ok = os.path.exists("/tmp/.leak")
    if LEAVE:
        open("/tmp/.leak", "w").close()
    if not ok:
        return np.zeros_like(x)
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return ((x - m) / np.sqrt(v + 1e-5) * weight + bias).astype(x.dtype)
