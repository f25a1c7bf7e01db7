import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
F = sys.argv[2]; CH = 1 << 16
if sys.argv[1] == "run":
    import numpy as np
    x = (np.random.rand(4096).astype(np.float32) - 0.5) * 6
    fn = {"tanh": np.tanh, "exp": np.exp, "erf": None}[sys.argv[3]]
    end = time.monotonic() + 4
    while time.monotonic() < end:
        fn(x)
    sys.exit()
fd = os.open(F, os.O_RDONLY); n = os.fstat(fd).st_size // CH
maps = [libc.mmap(None, CH, 1, 1, fd, k * CH) for k in range(n)]
time.sleep(float(sys.argv[3]))
for a in maps:
    for p in range(16):
        try: ctypes.c_char.from_address(a + 4096 * p).value
        except Exception: pass
lines = open("/proc/self/smaps").read().split("\n")
idx = {l.split("-")[0]: i for i, l in enumerate(lines) if "-" in l.split(" ")[0] and ":" not in l.split(" ")[0]}
out = []
for k, a in enumerate(maps):
    i = idx[f"{a:x}"]
    rss = int(next(l.split()[1] for l in lines[i:i+8] if l.startswith("Rss:")))
    pss = int(next(l.split()[1] for l in lines[i:i+8] if l.startswith("Pss:")))
    if pss < rss: out.append(k)
print(sys.argv[4] if len(sys.argv) > 4 else "", "chunks others map:", out)
