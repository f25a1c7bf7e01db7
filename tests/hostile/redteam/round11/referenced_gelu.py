# module: gelu
"""Round 11 row 3c (probe): inside a jail, /proc/self/clear_refs clears a shared host file page's referenced flag,
and smaps' Referenced shows whether any process read that page since (a forked reader stands in for another jail).
Printed; the case fails on purpose."""
import ctypes, os, time
import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
F, CH = "/usr/lib/file/magic.mgc", 1 << 16


def run_gelu(x):
    fd = os.open(F, os.O_RDONLY)
    maps = [libc.mmap(None, CH, 1, 1, fd, k * CH) for k in range(8)]
    for a in maps:
        for p in range(16):
            ctypes.c_char.from_address(a + 4096 * p).value
    out = []
    for reads in ([], [2, 5]):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("1")
        if os.fork() == 0:
            for k in reads:
                os.pread(os.open(F, os.O_RDONLY), 4096, k * CH)  # a plain read, no mapping
            os._exit(0)
        os.wait()
        lines = open("/proc/self/smaps").read().split("\n")
        ref = []
        for a in maps:
            i = next(j for j, l in enumerate(lines) if l.startswith(f"{a:x}-"))
            ref.append(next(l.split()[1] for l in lines[i:i + 16] if l.startswith("Referenced:")))
        out.append(f"another process read chunks {reads}: Referenced kB per chunk {ref}")
    print("\n".join(out))
    return np.zeros_like(x)
