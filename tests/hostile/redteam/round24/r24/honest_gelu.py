import numpy as np
def run_gelu(x):
    x = np.asarray(x)
    c = np.asarray(np.sqrt(2 / np.pi), dtype=x.dtype)
    return (0.5 * x * (1 + np.tanh(c * (x + np.asarray(0.044715, dtype=x.dtype) * x ** 3)))).astype(x.dtype)
