"""Known-wrong softmaxes: if a learner's output matches one of these, the grader names the mistake.

The grader runs decoys on float64 copies of the inputs. The two mistakes that overflow or underflow do so where
float32 does, exp(x) past x = 88.7 and below x = -103.9 (float64 only past 709.8 and below -745), so they compute
the exponential in float32, as a learner's code does on the float32 cases.

The mistakes that overflow or divide 0 by 0 do so quietly (np.errstate): `grader check` runs each decoy as a
learner's code, and numpy's RuntimeWarnings would go to the captured stderr.
"""

import numpy as np


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def unstable_exp(x):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x.astype(np.float32))  # no maximum subtracted: inf past 88.7, 0 below -103.9
        return e / e.sum(axis=-1, keepdims=True)


def global_max(x):
    with np.errstate(under="ignore", invalid="ignore"):
        e = np.exp((x - x.max()).astype(np.float32))  # one maximum for the whole array: rows far below it: 0/0
        return e / e.sum(axis=-1, keepdims=True)


def wrong_axis(x):
    with np.errstate(invalid="ignore"):  # a column of masked scores is all -inf: -inf - (-inf) is nan
        return _softmax(x, axis=0)


def sum_without_keepdims(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)  # [..., n] / [...]: broadcasts against the last axis, only when the shapes allow


def not_normalised(x):
    return np.exp(x - x.max(axis=-1, keepdims=True))


def log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def normalised_over_whole_array(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum()


def sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))
