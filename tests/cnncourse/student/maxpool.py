"""Stage maxpool: Max pooling.

Instructions: `python -m grader show maxpool`    Grade: `python -m grader --stage maxpool --watch`
Tolerance: |yours - expected| <= 1e-06 + 1e-06 * |expected|, elementwise.
"""

import numpy as np


def run_maxpool(x, k):
    """Max pooling over k x k windows with stride k (windows do not overlap); rows and columns left over are dropped.

    x: [N, C, H, W]
    k: int, the window's side and the stride
    Returns [N, C, H // k, W // k], in the dtype of x.
    """
    raise NotImplementedError("run_maxpool is not written yet: see `python -m grader show maxpool`")
