# Round 30: does a jail whose tmpfs holds very many inodes take long to end (Box.kill waits up to 60 s, then
# JailStuck: an error row, and the jail still ending beside the next learner)? Public gelu calls make empty files
# in /tmp (os.mknod: one syscall each) for up to BUDGET seconds a call, then answer right.
import math, os, stat, time
import numpy as np

BUDGET = float(os.environ.get("RT30_BUDGET", "7.5"))
CAP = 600_000  # files in all (kept under ~1 GiB of the jail's own 4 GiB)

def run_gelu(x):
    t0 = time.monotonic()
    made = len(os.listdir("/tmp/f")) if os.path.isdir("/tmp/f") else 0
    os.makedirs("/tmp/f", exist_ok=True)
    i = made
    try:
        while i < CAP and time.monotonic() - t0 < BUDGET:
            for _ in range(2000):
                os.mknod(f"/tmp/f/{i}", 0o600 | stat.S_IFREG)
                i += 1
    except OSError as e:
        print("stopped:", e)
    print(f"files: {i} (+{i - made} in {time.monotonic() - t0:.1f} s)")
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
