# module: gelu
"""A correct gelu that, on its first call, lowers the jail's resident process's (pid 1) hard limits with prlimit.

prlimit needs only the same uid (no ptrace access, so PR_SET_DUMPABLE=0 does not stop it). Every later worker is
forked from the resident and inherits the lowered hard limit; child.set_limits then cannot set RLIMIT_FSIZE to
64 MiB (ValueError: not allowed to raise maximum limit) and the worker exits with 70 before its first `start`:
job._ended raises JailError ("the jail's worker ended before its first call"), which no learner code should cause.
"""
import os, resource
import numpy as np

_done = False


def run_gelu(x):
    global _done
    if not _done:
        _done = True
        try:
            before = resource.prlimit(1, resource.RLIMIT_FSIZE)
            resource.prlimit(1, resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
            print("prlimit(1, FSIZE):", before, "->", resource.prlimit(1, resource.RLIMIT_FSIZE))
        except Exception as e:
            print("prlimit refused:", type(e).__name__, e)
    x = np.asarray(x)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
