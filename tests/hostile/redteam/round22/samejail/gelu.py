"""Honest gelu that also leaves a marker in the jail's /tmp (its first call), naming the jail's outer uid."""
import math, os, time
import numpy as np


def _outer_uid():
    for line in open("/proc/self/mountinfo"):
        if " /tmp " in line and "uid=" in line:
            return line.split("uid=")[1].split(",")[0].split()[0]
    return "?"


def run_gelu(x):
    if not os.path.exists("/tmp/.own_marker"):
        with open("/tmp/.own_marker", "w") as f:
            f.write(f"written by the OWN gelu job at {time.time():.3f} in the jail of outer uid {_outer_uid()}")
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
