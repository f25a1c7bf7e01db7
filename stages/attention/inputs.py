"""Inputs shaped like what GPT-2's attention sees: ln_1's output, and c_attn weights with sharp or soft attention."""

import numpy as np


def layernormed(rng, shape, gain_low=0.2, gain_high=2.0):
    """Rows with mean 0 and variance 1, times gains in [gain_low, gain_high], plus shifts: what ln_1 hands on."""
    z = rng.standard_normal(size=shape)  # [..., n_embd]
    z = (z - z.mean(axis=-1, keepdims=True)) / np.sqrt(z.var(axis=-1, keepdims=True) + 1e-5)
    gain = rng.uniform(gain_low, gain_high, size=shape[-1])  # [n_embd]
    shift = rng.normal(0.0, 0.1, size=shape[-1])  # [n_embd]
    return (z * gain + shift).astype(np.float32)


def c_attn_weight(rng, n_embd, std=0.02, qk_scale=1.0):
    """c_attn's weight [n_embd, 3*n_embd], N(0, std); the q and k columns times qk_scale.

    qk_scale multiplies every score by qk_scale**2: 4 gives the sharp attention a trained GPT-2 has (most of a
    row's weight on one key) where N(0, 0.02) alone attends almost uniformly; v is left as it is.
    """
    w = rng.normal(0.0, std, size=(n_embd, 3 * n_embd))  # q | k | v
    w[:, : 2 * n_embd] *= qk_scale
    return w.astype(np.float32)
