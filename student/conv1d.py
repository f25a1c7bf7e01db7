"""Stage conv1d: Conv1D, GPT-2's linear layer.

Instructions: `python -m grader show conv1d`    Grade: `python -m grader --stage conv1d --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_conv1d(x, weight, bias):
    """GPT-2's linear layer (Hugging Face calls it Conv1D): x @ weight + bias.

    x:      [..., nx]  any number of leading axes, e.g. [T, nx] or [B, T, nx]
    weight: [nx, nf]   Conv1D orientation (in, out), NOT nn.Linear's [nf, nx]
    bias:   [nf]
    Returns [..., nf], in the dtype of x.
    """
    raise NotImplementedError("run_conv1d is not written yet: see `python -m grader show conv1d`")
