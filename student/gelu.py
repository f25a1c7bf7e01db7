"""Stage gelu: gelu_new, GPT-2's activation.

Instructions: `python -m grader show gelu`    Grade: `python -m grader --stage gelu --watch`
Tolerance: |yours - expected| <= 1e-05 + 0 * |expected|, elementwise.
"""

import numpy as np


def run_gelu(x):
    """Apply GPT-2's gelu_new to every element of x.

    x: an array of any shape, float32 (or float64).
    Returns an array of the same shape and dtype.

        gelu_new(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))
    """
    raise NotImplementedError("run_gelu is not written yet: see `python -m grader show gelu`")
