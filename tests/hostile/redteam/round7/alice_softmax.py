"""Round 7: an honest learner's own softmax, written in her own (unusual) style: the code others copy."""
import numpy as np


def _row_max(values):
    top = np.max(values, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, np.zeros_like(top))
    return top


def _shifted_exponentials(values):
    shifted = values - _row_max(values)
    with np.errstate(under="ignore", invalid="ignore"):
        exps = np.exp(shifted)
    exps = np.where(np.isnan(exps), np.zeros_like(exps), exps)
    return exps


def _normalise_rows(exps):
    totals = np.sum(exps, axis=-1, keepdims=True)
    totals = np.where(totals == 0, np.ones_like(totals), totals)
    return exps / totals


def run_softmax(x):
    arr = np.asarray(x)
    if arr.ndim == 0:
        return np.ones_like(arr)
    if arr.shape[-1] == 1:
        return np.ones_like(arr)
    probabilities = _normalise_rows(_shifted_exponentials(arr))
    return probabilities.astype(arr.dtype, copy=False)
