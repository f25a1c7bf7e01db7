# module: conv1d -- an honest learner's conv1d with one ordinary mistake: it assumes a batch axis, so the
# unbatched [T, n_in] cases come back [T, 1, n_out] and fail; every batched case passes.
import numpy as np


def run_conv1d(x, weight, bias):
    x = np.asarray(x)
    out = x.reshape(-1, x.shape[-1]) @ weight + bias
    return out.reshape(x.shape[0], -1, weight.shape[-1])
