"""Round 17 probe: how long a jail whose /tmp, /var/tmp and /dev/shm hold many empty files (inodes, no blocks: the
64 MiB size does not bound them; the memory cap does) takes to end. CALLS calls of the stage each create files for
SECS seconds; the rest return honestly. The row's time minus the calls' time is mostly the jail's end."""
import os, time
import numpy as np

SECS = float("SECSX")
CALLS = int("CALLSX")
_n = [0]


def _fill():
    t0 = time.monotonic()
    made = 0
    for top in ("/tmp", "/var/tmp", "/dev/shm"):
        d = f"{top}/f{_n[0]}"
        os.makedirs(d, exist_ok=True)
        i = 0
        while time.monotonic() - t0 < SECS * (1 + ("/tmp", "/var/tmp", "/dev/shm").index(top)) / 3:
            try:
                os.close(os.open(f"{d}/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
            except OSError:
                break
            i += 1
        made += i
    return made


def run_gelu(x):
    _n[0] += 1
    if _n[0] <= CALLS:
        made = _fill()
        print(f"made {made} files")
    x = np.asarray(x)
    return (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) * (x + x.dtype.type(0.044715) * x ** 3)))).astype(x.dtype)
