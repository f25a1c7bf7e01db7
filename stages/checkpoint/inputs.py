"""Inputs shaped like what a block's MLP sees: the output of ln_2."""

import numpy as np


def layernormed(rng, shape):
    """Rows with mean 0 and variance 1, times gains in [0.2, 2], plus shifts: what ln_2 hands on."""
    z = rng.standard_normal(size=shape)  # [..., n_embd]
    z = (z - z.mean(axis=-1, keepdims=True)) / np.sqrt(z.var(axis=-1, keepdims=True) + 1e-5)
    gain = rng.uniform(0.2, 2.0, size=shape[-1])  # [n_embd]
    shift = rng.normal(0.0, 0.1, size=shape[-1])  # [n_embd]
    return (z * gain + shift).astype(np.float32)
