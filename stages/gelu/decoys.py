"""Known-wrong GELUs: if a learner's output matches one of these, the grader names the mistake."""

import math

import numpy as np


def erf_gelu(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def sigmoid_gelu(x):
    return x / (1 + np.exp(-1.702 * x))


def relu(x):
    return np.maximum(x, 0)


def tanh_without_cubic(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * x))


def missing_half(x):
    return x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))


def wrong_sqrt(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(math.pi / 2) * (x + 0.044715 * (x * x * x))))
