"""Stage softmax: Softmax, the numerically stable way.

Instructions: `python -m grader show softmax`    Grade: `python -m grader --stage softmax --watch`
Tolerance: |yours - expected| <= 1e-06 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_softmax(x):
    """Softmax over the last axis, numerically stable.

    x: [..., n]  any number of leading axes, e.g. attention scores [n_head, T, T] or logits [T, vocab];
       may hold -inf (a causal mask), and values far from 0 (+-1000, or logits around -100).
    Returns the shape of x, in its dtype: exp(x - max) / sum(exp(x - max)), with the maximum and the sum
    taken over the last axis of each row, so every row sums to 1.
    """
    raise NotImplementedError("run_softmax is not written yet: see `python -m grader show softmax`")
