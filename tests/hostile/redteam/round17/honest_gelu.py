import numpy as np
def run_gelu(x):
    x = np.asarray(x)
    return (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) * (x + x.dtype.type(0.044715) * x ** 3)))).astype(x.dtype)
