"""Signal another jail through a file every jail sees read-only (red team round 3, break 5): lock it, watch it, or
ask the page cache about it; or read what every jail's locks and open files add up to (round 4). Each way that works
here is a channel from one submission's hidden call to another's."""
import ctypes
import errno
import fcntl
import mmap
import os
import struct


def run_double(x):
    worked = []
    path = os.__file__  # the standard library: the same inode in every jail
    fd = os.open(path, os.O_RDONLY)
    libc = ctypes.CDLL(None, use_errno=True)
    flock = ctypes.create_string_buffer(struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0), 32)
    ways = {
        "flock": lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
        "fcntl F_SETLK": lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
        "fcntl F_GETLK": lambda: fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)),
        "fcntl F_OFD_SETLK": lambda: fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)),
        "fcntl F_SETLEASE": lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK),
        "inotify": lambda: _ok(libc.inotify_add_watch(_ok(libc.inotify_init()), path.encode(), 0x20)),
        "preadv2 RWF_NOWAIT": lambda: os.preadv(fd, [bytearray(16)], 0, 8),
        "fcntl F_OFD_SETLK | 1 << 32": lambda: _ok(libc.syscall(72, fd, ctypes.c_long(37 | 1 << 32), flock)),
        "/proc/locks": lambda: _nonempty("/proc/locks"),
        "/proc/sys/fs/file-nr": lambda: _nonempty("/proc/sys/fs/file-nr"),
        "/proc/stat processes": lambda: _host_figure("/proc/stat", "processes"),
        "/proc/meminfo Shmem": lambda: _host_figure("/proc/meminfo", "Shmem:"),
        "sysinfo": lambda: _ok(libc.sysinfo(ctypes.create_string_buffer(128))),
        # red team round 6: AIO with RWF_NOWAIT asks the page cache; fadvise and madvise push a page out of it;
        # memfd inode numbers come from one host-wide counter
        "io_setup (AIO)": lambda: _ok(libc.syscall(206, 1, ctypes.byref(ctypes.c_ulong(0)))),
        "posix_fadvise DONTNEED": lambda: os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED),
        "madvise PAGEOUT": lambda: mmap.mmap(fd, 4096, prot=mmap.PROT_READ).madvise(21),  # MADV_PAGEOUT
        "memfd_create": lambda: os.memfd_create("signal"),
        "/proc/zoneinfo nr_shmem": lambda: _host_figure("/proc/zoneinfo", "nr_shmem"),
        "/proc/pressure/memory": lambda: _nonempty("/proc/pressure/memory"),
        "/proc/interrupts": lambda: _nonempty("/proc/interrupts"),
        "/proc/uptime idle": lambda: _host_figure("/proc/uptime", None, 1, float),
        "a pty of the machine's pool": lambda: os.close(os.openpty()[0]),
        "an inet socket (/proc/net/sockstat)": lambda: __import__("socket").socket().close(),
        "syslog (the kernel log)": lambda: _ok(libc.syscall(103, 10, None, 0)),  # SYSLOG_ACTION_SIZE_BUFFER
        "madvise MERGEABLE (KSM)": lambda: mmap.mmap(-1, 4096).madvise(12),
        "process_madvise PAGEOUT (round 10b)": lambda: _process_madvise(libc),
        # round 17: a huge page rebuilt from a shared file's pages stays with it; the extent cache asked directly
        "madvise COLLAPSE": lambda: _refused(lambda: mmap.mmap(-1, 4 << 20).madvise(25)),
        "madvise HUGEPAGE": lambda: _refused(lambda: mmap.mmap(-1, 4 << 20).madvise(14)),
        # ioctl keeps only Python io's requests: FIGETBSZ (any regular file, any filesystem) stands for the rest,
        # EXT4_IOC_GET_ES_CACHE among them; the kernel reads a request's low 32 bits
        "ioctl FIGETBSZ": lambda: fcntl.ioctl(fd, 2, bytearray(8)),
        "ioctl FIGETBSZ | 1 << 32": lambda: _ok(libc.syscall(16, fd, ctypes.c_long(2 | 1 << 32),
                                                             ctypes.create_string_buffer(8))),
    }
    for name, way in ways.items():
        try:
            way()
            worked.append(name)
            print("worked:", name)
        except OSError as e:
            print("blocked:", name, type(e).__name__, e)
    return 2 * x if worked else x * 0


def _process_madvise(libc):
    """madvise's PAGEOUT through process_madvise(2) on this process's own pidfd (x86_64 numbers)."""
    page = mmap.mmap(-1, 4096)  # page-aligned
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(ctypes.c_char.from_buffer(page)), 4096)
    pidfd = _ok(libc.syscall(434, os.getpid(), 0))  # pidfd_open
    _ok(libc.syscall(440, pidfd, iov, 1, 21, 0))  # process_madvise(pidfd, iov, 1, MADV_PAGEOUT, 0)


def _refused(call):
    """Only the filter's EPERM counts as blocked: any other error (no huge pages, not ext4) reached the kernel."""
    try:
        call()
    except OSError as e:
        if e.errno == errno.EPERM:
            raise


def _host_figure(path, key, field=1, kind=int):
    """A host-wide counter that moves (the machine's fork count, its shared memory): a fixed stand-in is blocked."""
    with open(path) as f:
        for line in f:
            parts = line.split()
            if (key is None or parts[:1] == [key]) and len(parts) > field and kind(parts[field]) > 0:
                return
    raise OSError(f"{path} {key} reads no figure of the host")


def _nonempty(path):
    with open(path) as f:
        if not f.read().strip():
            raise OSError(f"{path} is empty")


def _ok(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result
