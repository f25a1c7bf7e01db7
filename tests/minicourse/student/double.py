"""Stage double: Double every element.

Instructions: `python -m grader show double`    Grade: `python -m grader --stage double --watch`
Tolerance: |yours - expected| <= 1e-06 + 0 * |expected|, elementwise.
"""

import numpy as np


def run_double(x):
    """Return 2 * x.
    """
    raise NotImplementedError("run_double is not written yet: see `python -m grader show double`")
