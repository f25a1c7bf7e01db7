"""Change the fixture inputs the next jails read: a batch's worker hands every job descriptors of the same sealed
copies. Each way of writing through a descriptor (or a reopened one) is tried; "changed" means it got through."""
import fcntl
import mmap
import os


def run_double(x):
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if not target.startswith("/memfd:input"):
            continue
        path, n = f"/proc/self/fd/{fd}", int(fd)
        ways = {
            "pwrite": lambda: os.pwrite(n, b"\0" * 64, 0),
            "reopened for writing": lambda: _write_reopened(path),
            "a shared writable mapping": lambda: _map_reopened(path),
            "ftruncate": lambda: os.ftruncate(os.open(path, os.O_RDWR), 0),
            "fallocate punching a hole": lambda: _punch(path),
            "seals removed": lambda: fcntl.fcntl(n, 1033, 0),  # F_ADD_SEALS with nothing: refused once sealed
        }
        for way, do in ways.items():
            try:
                do()
                print("changed:", way)
            except OSError as e:
                print("refused:", way, e.errno)
    return 2 * x


def _write_reopened(path):
    with open(path, "r+b") as f:
        f.write(b"\0" * 64)


def _map_reopened(path):
    fd = os.open(path, os.O_RDWR)
    m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)  # the whole file
    m[:8] = b"\0" * 8


def _punch(path):
    import ctypes

    fd = os.open(path, os.O_RDWR)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.fallocate(fd, 3, ctypes.c_long(0), ctypes.c_long(4096)) != 0:  # PUNCH_HOLE | KEEP_SIZE
        raise OSError(ctypes.get_errno(), "fallocate")
