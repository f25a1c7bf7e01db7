"""Input generators for the stages' inputs.py: arrays shaped like the activations GPT-2's layers see.

Public (course.yaml `common: public:`): a learner's handout holds it, as it holds the inputs.py files that use it.
"""

import math

import numpy as np


def layernormed(rng, shape):
    """Rows with mean 0 and variance 1, times gains in [0.2, 2], plus shifts: what ln_1 / ln_2 hand on."""
    z = rng.standard_normal(size=shape)  # [..., n_embd]
    z = (z - z.mean(axis=-1, keepdims=True)) / np.sqrt(z.var(axis=-1, keepdims=True) + 1e-5)
    gain = rng.uniform(0.2, 2.0, size=shape[-1])  # [n_embd]
    shift = rng.normal(0.0, 0.1, size=shape[-1])  # [n_embd]
    return (z * gain + shift).astype(np.float32)


def gelu_hidden(rng, shape):
    """What c_proj receives in the MLP: gelu_new of pre-activations around N(0, 1)."""
    h = rng.standard_normal(size=shape)  # [..., 4 * n_embd]
    a = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
    return a.astype(np.float32)
