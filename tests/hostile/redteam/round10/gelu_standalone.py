# Row 14: a right gelu on its own (no student.common_* import), the one file extra_quadratic_zip.py puts in its zip.
import numpy as np


def run_gelu(x):
    x = np.asarray(x)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x * x * x)))
