"""Round 7, row 5's variant without a timeout: the stage's budget (here `batch --budget 30`) tells a slow hidden call.

Each public case takes 2.3 s (23 s of the 30); hidden 1 then takes 6.5 s or returns at once, by the sign bit of its
x.flat[0]; hidden 2 (always right) is "not run: this stage used up its time budget" only if hidden 1 was slow.
"""
import time

import numpy as np


def run_softmax(x):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    out = e / e.sum(axis=-1, keepdims=True)
    public = not (x.shape == (2, 3, 32, 32) or (x.shape == (12, 64, 64) and abs(float(x.reshape(-1)[0]) + 1.2502736) > 1e-6))
    if public:
        time.sleep(2.3)
    elif x.shape == (12, 64, 64):  # hidden 1
        if int(np.asarray(x, dtype=np.float32).reshape(-1)[:1].view(np.uint32)[0]) >> 31:
            time.sleep(6.5)
    return out
