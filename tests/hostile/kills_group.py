"""Kill its own process group."""
import os
import signal


def run_double(x):
    os.killpg(0, signal.SIGKILL)
    return 2 * x
