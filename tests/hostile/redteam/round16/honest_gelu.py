import numpy as np


def run_gelu(x):
    x = np.asarray(x)
    c = np.sqrt(2 / np.pi).astype(x.dtype) if hasattr(np.sqrt(2 / np.pi), "astype") else np.sqrt(2 / np.pi)
    return (0.5 * x * (1 + np.tanh(c * (x + x.dtype.type(0.044715) * x ** 3)))).astype(x.dtype)
