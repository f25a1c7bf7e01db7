"""Receiver: the first public conv1d call prints its jail's age (now - /proc/1 start) and fails on purpose."""
import os, time
import numpy as np

_DONE = []


def run_conv1d(x, weight, bias):
    if not _DONE:
        _DONE.append(1)
        text = open("/proc/1/stat").read()
        start = int(text[text.rindex(")") + 2:].split()[19]) / os.sysconf("SC_CLK_TCK")
        print(f"AGE {time.clock_gettime(time.CLOCK_BOOTTIME) - start:.3f}")
        return np.zeros(1)
    return np.asarray(x) @ np.asarray(weight) + np.asarray(bias)
