"""Round 32 attempt 17 receiver: a learner's first public gelu call waits a second, then prints the host disk's free
blocks and free inodes through ustat(2) (statfs is refused, ustat is not), and fails on purpose to show it."""
import ctypes
import math
import os
import struct
import time

import numpy as np

_done = False


def run_gelu(x):
    global _done
    x = np.asarray(x)
    if not _done:
        _done = True
        time.sleep(1.0)
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(32)
        libc.syscall(136, ctypes.c_uint(os.stat("/usr").st_dev), buf)
        print(f"USTAT free_blocks={struct.unpack_from('i', buf.raw, 0)[0]} "
              f"free_inodes={struct.unpack_from('Q', buf.raw, 8)[0]} t={time.time():.3f}")
        return np.zeros_like(x)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
