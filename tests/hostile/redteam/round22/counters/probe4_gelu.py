"""Probe 4: is sync()/syncfs() allowed in the jail (an uninterruptible wait on the host's writeback, the untried
D-state road of round 12), and how long does it take here."""
import ctypes, math, os, time
import numpy as np
libc = ctypes.CDLL(None, use_errno=True)
_done = []


def run_gelu(x):
    if not _done:
        _done.append(1)
        t = time.monotonic(); libc.sync(); a = time.monotonic() - t
        fd = os.open("/submission/student", os.O_RDONLY)
        t = time.monotonic(); r = libc.syncfs(fd); e = ctypes.get_errno(); b = time.monotonic() - t
        raise RuntimeError(f"sync {a*1000:.1f} ms; syncfs(/submission/student) -> {r} errno {e} {b*1000:.1f} ms")
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
