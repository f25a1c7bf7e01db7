import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
F = "/usr/lib/chromium/chromium"; fd = os.open(F, os.O_RDONLY)
raw = libc.mmap(None, 8 << 20, 0, 0x22, -1, 0)  # reserve, then place the file mapping 2 MiB aligned
a = (raw + (2 << 20) - 1) & ~((2 << 20) - 1)
MAP_FIXED = 0x10
b = libc.mmap(a, 2 << 20, 1 | 4, 2 | MAP_FIXED, fd, 64 << 20)  # PROT_READ|EXEC, MAP_SHARED
for p in range(512): ctypes.c_char.from_address(b + 4096 * p).value
r = libc.madvise(b, 2 << 20, 25)  # MADV_COLLAPSE
print("MADV_COLLAPSE", r, ctypes.get_errno())
txt = open("/proc/self/smaps").read()
i = txt.find(f"{b:x}-"); print([l for l in txt[i:i+1500].split("\n") if "PmdMapped" in l or "THPeligible" in l])
