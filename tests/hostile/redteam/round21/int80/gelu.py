"""Round 21 probe: do the filter's refusals hold for the i386 ABI (int 0x80) from the 64-bit worker? flock is i386
syscall 143 (refused as x86_64 73). Killed (SIGSYS) or refused means it holds; 0 would be a bypass."""
import ctypes
import mmap
import os

import numpy as np


def _int80_flock(fd):
    code = (b"\xb8\x8f\x00\x00\x00" + b"\xbb" + fd.to_bytes(4, "little") + b"\xb9\x02\x00\x00\x00" + b"\xcd\x80" +
            b"\xc3")
    m = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(code)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return ctypes.CFUNCTYPE(ctypes.c_int)(addr)()


_done = False


def run_gelu(x):
    global _done
    if not _done:
        _done = True
        fd = os.open("/tmp/f", os.O_CREAT | os.O_RDWR)
        print("int 0x80 flock ->", _int80_flock(fd), flush=True)
        return x * 0
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * (x * x * x))))
