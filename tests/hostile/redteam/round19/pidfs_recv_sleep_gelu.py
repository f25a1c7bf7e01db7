# Round 19: the receiver: the machine's pid counter at its first public gelu call, through open_by_handle_at.
import numpy as np
from student.pidfs_common import counter

Q = 64
D0 = 0  # calibrated gap (sed'ed)
import time; time.sleep(1.0)
c = counter()


def run_gelu(x):
    raw = c % (256 * Q)
    v = ((c - D0 + Q // 2) // Q) % 256
    raise RuntimeError(f"counter {c} raw {raw} decoded byte {v} (0x{v:02x})")
