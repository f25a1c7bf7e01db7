"""Stage combine: Double, then add.

Instructions: `python -m grader show combine`    Grade: `python -m grader --stage combine --watch`
Tolerance: |yours - expected| <= 1e-06 + 1e-06 * |expected|, elementwise.
"""

import numpy as np


def run_combine(x, y):
    """Return double(x) + y, using your run_double.
    """
    raise NotImplementedError("run_combine is not written yet: see `python -m grader show combine`")
