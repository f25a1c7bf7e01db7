# Round 27 (sender, second bit): honest layernorm, except that the hidden call of shape (1, 1024, 768) ends its
# worker when BIT is set (a real sender would use a bit of x).
import os
import numpy as np
BIT = @@BIT@@
def run_layernorm(x, weight, bias):
    if tuple(x.shape) == (1, 1024, 768) and BIT:
        os._exit(3)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * weight + bias
