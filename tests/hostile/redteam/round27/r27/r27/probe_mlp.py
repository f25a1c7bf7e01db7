# Round 27 probe: what a public mlp call can do with its copy-on-write input mappings (prints, then fails).
import ctypes, mmap, os, struct, sys, time
import numpy as np
libc = ctypes.CDLL(None, use_errno=True)
libc.mremap.restype = ctypes.c_void_p
libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
def pm(addr):
    with open("/proc/self/pagemap", "rb") as f:
        f.seek((addr // 4096) * 8)
        v = struct.unpack("<Q", f.read(8))[0]
    return {"present": v >> 63 & 1, "swapped": v >> 62 & 1, "file/shared": v >> 61 & 1, "excl": v >> 56 & 1,
            "softdirty": v >> 55 & 1, "pfn": v & ((1 << 55) - 1)}
def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    out = []
    w = c_fc_weight
    chain = []
    m = w
    while m is not None:
        chain.append(type(m).__name__)
        if isinstance(m, mmap.mmap):
            break
        m = getattr(m, "base", None)
    out.append(f"chain {chain}")
    fds = []
    for fd in os.listdir('/proc/self/fd'):
        try: fds.append((fd, os.readlink(f'/proc/self/fd/{fd}')))
        except OSError: pass
    out.append(f"fds {fds}")
    try:
        out.append(f"mmap size {m.size()} len {len(m)}")
    except Exception as e:
        out.append(f"mmap size: {e!r}")
    maps = [l for l in open("/proc/self/maps") if "memfd" in l]
    out += ["maps " + l.strip() for l in maps]
    addr = w.ctypes.data
    out.append(f"pagemap before touch {pm(addr)}")
    _ = float(w.flat[0])
    out.append(f"pagemap after read {pm(addr)}")
    for name in ("MADV_WILLNEED", "MADV_DONTNEED", "MADV_RANDOM", "MADV_SEQUENTIAL", "MADV_DONTFORK", "MADV_DODUMP",
                 "MADV_MERGEABLE", "MADV_UNMERGEABLE", "MADV_NOHUGEPAGE", "MADV_HUGEPAGE", "MADV_REMOVE", "MADV_FREE",
                 "MADV_COLD", "MADV_PAGEOUT", "MADV_POPULATE_READ", "MADV_POPULATE_WRITE", "MADV_WIPEONFORK",
                 "MADV_COLLAPSE"):
        val = getattr(mmap, name, None) or {"MADV_POPULATE_READ": 22, "MADV_POPULATE_WRITE": 23, "MADV_COLLAPSE": 25, "MADV_COLD": 20, "MADV_PAGEOUT": 21}.get(name)
        try:
            m.madvise(val, 0, 4096 * 4)
            out.append(f"{name}: ok")
        except Exception as e:
            out.append(f"{name}: {e}")
    out.append(f"pagemap after advice {pm(addr)}")
    # mremap grow beyond the file
    base = ctypes.c_void_p.from_buffer(ctypes.py_object(m)) if False else None
    n = libc.mlock(ctypes.c_void_p(addr & ~4095), 4096)
    out.append(f"mlock {n} errno {ctypes.get_errno()}")
    st = os.fstat(int([fd for fd, t in fds if 'memfd:input' in t][0]))
    out.append(f"stat memfd mode {oct(st.st_mode)} uid {st.st_uid} ino {st.st_ino} atime {st.st_atime_ns} mtime {st.st_mtime_ns} ctime {st.st_ctime_ns} size {st.st_size}")
    for l in open("/proc/self/smaps").read().split("\n"):
        pass
    sm = open("/proc/self/smaps").read().split("\n")
    for i, l in enumerate(sm):
        if "memfd:input" in l:
            out.append(" | ".join(s for s in sm[i:i+24] if any(k in s for k in ("memfd", "Rss", "Pss", "Shared", "Private", "Anon", "Pmd", "Locked", "VmFlags"))))
            break
    print("\n".join(out))
    return np.zeros(1)
