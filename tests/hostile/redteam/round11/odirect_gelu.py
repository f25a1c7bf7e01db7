# module: gelu
"""Round 11 row 6: disk reads no group bounds. The first public gelu call reads a large host file with O_DIRECT
(no page cache: no memory charged) for 9 s, then answers right."""
import mmap, os, time
from student.common_gpt2 import gelu as _gelu

_done = []


def run_gelu(x):
    if not _done:
        _done.append(1)
        fd = os.open("/usr/lib/chromium/chromium", os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, 1 << 20)
        t0, n, off = time.monotonic(), 0, 0
        while time.monotonic() - t0 < 9:
            r = os.preadv(fd, [buf], off)
            n += r
            off = off + r if r == 1 << 20 else 0
        print(f"read {n / 1e9:.1f} GB with O_DIRECT in {time.monotonic() - t0:.1f} s")
    return _gelu(x)
