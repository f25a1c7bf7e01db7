# module: conv1d
# Round 18: an honest-looking learner whose conv1d crashes on the hidden cases only (CRASH hidden calls: a new jail each).
import os
import numpy as np

CRASH = 1


def run_conv1d(x, weight, bias):
    x = np.asarray(x)
    if x.shape in ((1, 64, 768), (1, 1, 768))[:CRASH]:
        os.abort()
    return x @ weight + bias
