"""Round 7: an honest mistake that only the hidden cases catch (a batch of one loses its batch axis).

conv1d's public cases have no input [1, T, n_embd]; its hidden cases both do. Under `upstream: reference` the mlp
stage, which depends on conv1d, must then be graded with the reference conv1d in place of this one ("one mistake
upstream costs its own stage only"). With the two-phase order the stand-in is decided from conv1d's PUBLIC cases
alone, so mlp is graded with this conv1d and loses its points too.
"""
import numpy as np


def run_conv1d(x, weight, bias):
    out = np.asarray(x) @ weight + bias
    if out.ndim == 3 and out.shape[0] == 1:  # the mistake: a batch of one is squeezed away
        out = out[0]
    return out
