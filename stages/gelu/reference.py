"""gelu_new, the GELU GPT-2 was trained with.

References: openai/gpt-2 src/model.py `gelu`; Hendrycks & Gimpel (2016), "Gaussian Error Linear Units";
transformers' NewGELUActivation.
"""

import math

import numpy as np


def gelu_new(x):
    inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)  # same shape as x
    return 0.5 * x * (1 + np.tanh(inner))
