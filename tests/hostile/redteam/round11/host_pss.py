import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
F = sys.argv[2]; CH = 1 << 16
fd = os.open(F, os.O_RDONLY)
n = min(8, os.fstat(fd).st_size // CH)
if sys.argv[1] == "send":
    for k in map(int, sys.argv[3:]):
        a = libc.mmap(None, CH, 1, 1, fd, k * CH)
        ctypes.c_char.from_address(a).value
    time.sleep(3)
else:
    time.sleep(0.5)
    addrs = []
    for k in range(n):
        a = libc.mmap(None, CH, 1, 1, fd, k * CH)
        for p in range(16):
            ctypes.c_char.from_address(a + 4096 * p).value
        addrs.append(a)
    smaps = open("/proc/self/smaps").read().split("\n")
    out = []
    for k, a in enumerate(addrs):
        i = next(j for j, l in enumerate(smaps) if l.startswith(f"{a:x}-"))
        pss = next(l for l in smaps[i:i+10] if l.startswith("Pss:"))
        out.append(pss.split()[1])
    print("Pss per 64 KiB chunk:", out)
