# module: gelu
"""On its first call, create empty files in /tmp (a 64 MiB tmpfs: --size bounds bytes, not inodes) for 8 s, then print
how many and the jail's own view of memory; answer right. Is the kernel memory of a million inodes and dentries the
jail's (memcg) or the machine's?"""
import os, time
import numpy as np

_done = False


def run_gelu(x):
    global _done
    if not _done:
        _done = True
        t, n = time.monotonic(), 0
        os.makedirs("/tmp/i", exist_ok=True)
        try:
            while time.monotonic() - t < 8:
                for _ in range(1000):
                    os.close(os.open(f"/tmp/i/{n}", os.O_CREAT | os.O_WRONLY, 0o600))
                    n += 1
        except OSError as e:
            print("stopped:", e)
        print("files:", n)
        return np.zeros_like(np.asarray(x))
    x = np.asarray(x)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
