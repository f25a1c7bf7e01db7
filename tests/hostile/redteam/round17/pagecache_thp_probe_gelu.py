"""Round 17 probe: a huge page in the host's page cache of a read-only /usr file, made by MADV_HUGEPAGE + a fault on
a region nobody has read (readahead allocates a PMD-sized folio for a VM_HUGEPAGE mapping), seen by a later jail as
FilePmdMapped in its own smaps. MODE send: map region R of FILE with MADV_HUGEPAGE, touch it. MODE recv: map regions
0..3 plainly, touch, report FilePmdMapped of each."""
import ctypes, os
import numpy as np

HP = 2 << 20
FILE = "/usr/lib/chromium/libVkLayer_khronos_validation.so"
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_said = []
MODE = "MODEX"


def _map(fd, off):
    raw = libc.mmap(None, 2 * HP, 1, 0x22, -1, 0)
    a = (raw + HP - 1) & ~(HP - 1)
    return libc.mmap(a, HP, 1, 0x1 | 0x10, fd, off)  # PROT_READ, MAP_SHARED|MAP_FIXED


def _pmd(addr):
    lines = open("/proc/self/smaps").read().splitlines()
    for i, l in enumerate(lines):
        if l.startswith(f"{addr:x}-"):
            return [m.split()[1] for m in lines[i + 1:i + 30] if m.startswith("FilePmdMapped")]


def _go():
    fd = os.open(FILE, os.O_RDONLY)
    out = [f"size {os.fstat(fd).st_size}"]
    for r in range(4, 8):
        addr = _map(fd, r * HP)
        if MODE == "send" and r in (5, 7):
            out.append(f"hugepage r{r} rc {libc.madvise(addr, HP, 14)}")
        s = sum(ctypes.c_char.from_address(addr + p).value[0] for p in range(0, HP, 4096))
        out.append(f"r{r} FilePmdMapped {_pmd(addr)}")
    return " ; ".join(out)


def run_gelu(x):
    if not _said:
        _said.append(_go())
        raise ValueError(_said[0])
    x = np.asarray(x)
    return (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) * (x + x.dtype.type(0.044715) * x ** 3)))).astype(x.dtype)
