"""Stage conv2d: Conv2d, a CNN's convolution.

Instructions: `python -m grader show conv2d`    Grade: `python -m grader --stage conv2d --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_conv2d(x, weight, bias):
    """A 2-D convolution as deep-learning libraries define it (a cross-correlation): valid padding, stride 1.

    x:      [N, C_in, H, W]
    weight: [C_out, C_in, kH, kW]
    bias:   [C_out]
    Returns [N, C_out, H - kH + 1, W - kW + 1], in the dtype of x.
    """
    raise NotImplementedError("run_conv2d is not written yet: see `python -m grader show conv2d`")
