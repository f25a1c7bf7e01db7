# DID NOT WORK in round 4 (kept for the record): # helper: a page-cache channel with no timing. A block of 16 pages of a rarely read shared file is "1" when its
# pages are cached. The sender sets it with fadvise (DONTNEED evicts, a read loads); the receiver maps the file and
# touches one page per block: the kernel's fault-around maps the block's other pages only if they are cached, and
# /proc/self/pagemap's present bit says which were.
import ctypes, mmap, os, struct

FILE = "/usr/share/i18n/locales/cns11643_stroke"
PAGE, BLOCK, NBITS = 4096, 16, 17
_libc = ctypes.CDLL(None)


def send(bits):
    fd = os.open(FILE, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for j in range(NBITS):
        if j == NBITS - 1 or (bits >> j) & 1:
            for p in range(1, BLOCK):
                os.pread(fd, 1, (j * BLOCK + p) * PAGE)
    return fd


def clear():
    fd = os.open(FILE, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def receive():
    fd = os.open(FILE, os.O_RDONLY)
    m = mmap.mmap(fd, NBITS * BLOCK * PAGE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    addr = ctypes.cast(ctypes.c_char_p(0), ctypes.c_void_p)
    buf = (ctypes.c_char * 1).from_buffer_copy(b"\0")
    # the mapping's address: from /proc/self/maps (the one line for FILE)
    start = next(int(l.split("-")[0], 16) for l in open("/proc/self/maps") if l.rstrip().endswith(FILE))
    cached = []
    with open("/proc/self/pagemap", "rb") as pm:
        for j in range(NBITS):
            _ = m[j * BLOCK * PAGE]  # touch the block's first page: fault-around maps the cached others
            pm.seek((start // PAGE + j * BLOCK + 1) * 8)
            present = sum(struct.unpack("<Q", pm.read(8))[0] >> 63 for _ in range(BLOCK - 1))
            cached.append(present)
    m.close()
    os.close(fd)
    return cached
