"""Stage split: Split into halves.

Instructions: `python -m grader show split`    Grade: `python -m grader --stage split --watch`
Tolerance: |yours - expected| <= 0 + 0 * |expected|, elementwise.
"""

import numpy as np


def run_split(x):
    """Return a dict: left is the first half of the last axis, right the second half.
    """
    raise NotImplementedError("run_split is not written yet: see `python -m grader show split`")
