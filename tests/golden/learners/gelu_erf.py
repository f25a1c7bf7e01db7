"""The exact GELU where GPT-2 uses the tanh approximation: issue 11's ~50-line report."""

import math

import numpy as np


def run_gelu(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))
