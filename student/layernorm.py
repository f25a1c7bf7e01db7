"""Stage layernorm: Layer norm, over the last axis.

Instructions: `python -m grader show layernorm`    Grade: `python -m grader --stage layernorm --watch`
Tolerance: |yours - expected| <= 1e-05 + 1e-05 * |expected|, elementwise.
"""

import numpy as np


def run_layernorm(x, weight, bias):
    """GPT-2's layer norm (ln_1, ln_2, ln_f) over the last axis, epsilon 1e-5.

    x:      [..., n_embd]  e.g. [B, T, 768] or [T, 768]
    weight: [n_embd]       the gain (gamma)
    bias:   [n_embd]       the shift (beta)
    Returns the shape of x, in its dtype:
        weight * (x - mean) / sqrt(variance + 1e-5) + bias
    with the mean and the variance of each row (the last axis); the variance is the biased one
    (divide by n_embd, as np.var does by default).
    """
    raise NotImplementedError("run_layernorm is not written yet: see `python -m grader show layernorm`")
