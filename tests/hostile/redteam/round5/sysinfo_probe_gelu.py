# module: gelu -- recon: sysinfo(2), a system call (no /proc), reports host-wide shared memory and thread count:
# masking /proc files alone would not close rows 2-3's channels
import ctypes, mmap, threading
import numpy as np

_done = []


class SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


def info():
    s = SysInfo()
    ctypes.CDLL(None).sysinfo(ctypes.byref(s))
    return s.sharedram * s.mem_unit >> 10, s.procs


def run_gelu(x):
    if not _done:
        _done.append(1)
        print("sysinfo before: sharedram kB, procs", info())
        m = mmap.mmap(-1, 32 << 20)
        for off in range(0, 32 << 20, 4096):
            m[off] = 1
        stop = threading.Event()
        ts = [threading.Thread(target=stop.wait) for _ in range(20)]
        for t in ts:
            t.start()
        print("sysinfo holding 32 MiB shared + 20 threads:", info())
        stop.set()
        for t in ts:
            t.join()
        m.close()
        print("sysinfo after:", info())
        return x * 0
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
