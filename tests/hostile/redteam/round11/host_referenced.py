import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
F = "/usr/lib/file/magic.mgc"; CH = 1 << 16
fd = os.open(F, os.O_RDONLY)
if sys.argv[1] == "send":
    for k in map(int, sys.argv[2:]):
        os.pread(fd, 4096, k * CH)
    sys.exit()
maps = [libc.mmap(None, CH, 1, 1, fd, k * CH) for k in range(8)]
for a in maps:
    for p in range(16): ctypes.c_char.from_address(a + 4096 * p).value
open("/proc/self/clear_refs", "w").write("1")
time.sleep(float(sys.argv[2]))
lines = open("/proc/self/smaps").read().split("\n")
out = []
for a in maps:
    i = next(j for j, l in enumerate(lines) if l.startswith(f"{a:x}-"))
    out.append(next(l.split()[1] for l in lines[i:i+16] if l.startswith("Referenced:")))
print("Referenced kB per chunk:", out)
