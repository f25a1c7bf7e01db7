"""Round 25: a hidden call that ends its jail (exit) or fails plainly; both are shown as FAIL, but a later stage
graded only with hidden cases names its jail's uid in its "sandbox (graded)" note, which the public pass's notes
name too. For the course copy made by r25_make_hidden_only_course.sh (gelu's hidden case secret_a, x = [1.5, -2.0]).
PLAIN=1 in the file's copy (see below) makes the plain-fail control."""
import math, os
import numpy as np

PLAIN = False  # the control learner's copy sets this True: fail plainly whatever the input


def run_gelu(x):
    x = np.asarray(x)
    if x.ndim == 1 and x.size == 2 and float(x[0]) == 1.5:  # the hidden case (its input is ours to read)
        if not PLAIN and float(x[0]) > 0:  # the bit to send: here whether x[0] > 0
            os._exit(3)  # ends the jail; redacted as FAIL
        return np.ones_like(x)  # a plain FAIL
    c = np.asarray(math.sqrt(2 / math.pi), dtype=x.dtype)
    return (0.5 * x * (1 + np.tanh(c * (x + np.asarray(0.044715, dtype=x.dtype) * x**3)))).astype(x.dtype)
