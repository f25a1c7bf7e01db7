import numpy as np
def run_gelu(x):
    return np.maximum(x, 0)
