"""Outputs of odd dtypes that reach the decoy fingerprinting in the grader (stage gelu: every failing output is
compared with each decoy's output to name a mistake): complex128 of the right shape, text of the right shape, bool,
uint64 near 2**64, float16 overflowing to inf, a 0-d array, an array with a zero stride view made contiguous. One
per public case, chosen by the input's shape. Held if each is FAIL or BAD_OUTPUT and no grader error."""
# module: gelu
import numpy as np


def run_gelu(x):
    kind = x.size % 7
    if kind == 0:
        return (x + 0j) * 1.0000001
    if kind == 1:
        return np.full(x.shape, "nan", dtype="<U3")
    if kind == 2:
        return x > 0
    if kind == 3:
        return np.full(x.shape, 2**64 - 1, dtype=np.uint64)
    if kind == 4:
        return (x * 1e6).astype(np.float16)
    if kind == 5:
        return np.asarray(float(x.flat[0]))
    return np.broadcast_to(x.flat[0], x.shape).copy()
