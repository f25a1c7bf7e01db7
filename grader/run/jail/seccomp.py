"""The jail's seccomp filter: the system calls that would let one jail signal another through the files they share.

Every jail binds the same host files read-only (/usr, Python, numpy, the grader's code) and the same fixture
inodes. Reading a file changes nothing another jail can see, but some calls on a read-only descriptor do: a lock
(`flock`, `fcntl`'s record and open-file-description locks, leases), a watch (inotify, fanotify, dnotify), or a
question about the page cache (`preadv2` or an AIO read with RWF_NOWAIT, `cachestat`, io_uring's reads) or the
extent cache (`EXT4_IOC_GET_ES_CACHE`: `ioctl` keeps only the requests Python's io makes), a way to push pages out
of it (`posix_fadvise`, `madvise` COLD and PAGEOUT) or to rebuild them as a huge page (`madvise` COLLAPSE and
HUGEPAGE). Red team round 3 sent the bits of a hidden input from one submission's hidden call to another's public output
with `flock` on standard-library files (tests/hostile/redteam/round3-findings.md, break 5): these calls now fail inside
the jail with EPERM (or ENOSYS, where a library falls back to an older call). Also refused, as nothing a learner writes
needs them: tracing and reading other processes, BPF, perf events, userfaultfd, the kernel keyrings, setting a file's
times (round 20), a file system's free space and NUMA page moves (round 30), setting another process's resource limits
(`prlimit` on a pid other than 0), and what keeps kernel memory past the jail's last process, freed later by a kernel
worker beside the next jail: sockets (a descriptor sent to itself), System V IPC and POSIX message queues, seccomp
filters and Landlock rulesets of the jail's own (red team rounds 13 to 15).

The filter is libseccomp's (through `pyseccomp`, a ctypes binding of the system's libseccomp.so.2), compiled here
and handed to bubblewrap as `--seccomp FD`, which loads it after its own set-up: the jail's first process and every
process it starts run under it, and a filter cannot be removed. Calls of another architecture (i386 on x86_64) kill
the caller (libseccomp's default for them), so the numbers of another table cannot slip past. `fcntl`'s command
is compared on its low 32 bits, the ones the kernel reads (red team round 4: `F_OFD_SETLK | 1 << 32` took a lock
past an exact comparison). The host-wide figures in /proc that would carry a signal without any refused call
(/proc/locks, /proc/sys: open files, inodes, dentries) are hidden by the jail's mounts (mounts.py).
"""

from __future__ import annotations

import errno
import functools
import os
from typing import Any

# fcntl commands that lock, lease or watch: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW,
# F_SETLEASE, F_GETLEASE, F_NOTIFY (F_GETLK too: it reads another jail's locks); and the write-life hints, a value
# per inode any opener reads back (F_GET_RW_HINT, F_SET_RW_HINT, F_GET_FILE_RW_HINT, F_SET_FILE_RW_HINT: the kernel
# lets only the owner set one, red team round 22; refused all the same)
LOCKING_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 1035, 1036, 1037, 1038)
REFUSED = ("flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
           "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open", "userfaultfd",
           "keyctl", "add_key", "request_key", "kcmp", "sysinfo",
           "syslog",  # the kernel log outlives a jail: where dmesg_restrict is 0 a segfault's address is 64 bits in it
           "fadvise64",  # dropping a shared file's pages: what lets the page cache carry a bit both ways
           "process_madvise",  # madvise's COLD and PAGEOUT by another road (red team round 10b); a jail needs none
           # A socket sent to itself keeps a descriptor (the jail's /tmp) alive past the jail's last process, and the
           # kernel tears that tmpfs down later, charged to no group, beside the next jail (red team round 13). The
           # resident's command socket is inherited, never made: a jail makes none, of any family (nor a TCP one,
           # which /proc/net/sockstat counts machine-wide: round 6).
           "socket", "socketpair",
           # Filters of the jail's own: each is kernel memory (and, with the BPF JIT, executable pages) freed by a
           # kernel worker after the jail, and thousands stacked wedged that worker for the whole machine (round 15)
           "seccomp",
           "pidfd_getfd",  # another process's descriptors, same uid, same jail: nothing a learner needs (round 15)
           # extended attributes: kernel memory on a file, and a message on one another jail reads (round 16 set them
           # on the grader's input copies); a learner needs none
           "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr", "setxattrat",
           "removexattrat",
           # a new session makes a new scheduler autogroup, numbered by one machine-wide counter that
           # /proc/self/autogroup shows: a jail moved it by exactly k and a later jail read it (red team round 18);
           # the jail is already a session of its own (bubblewrap's --new-session, before the filter)
           "setsid",
           # a file's times set to now need only write permission, and bubblewrap's --dev binds the host's null,
           # full, random, urandom and tty nodes (0666) writable: a jail set their times and every later one read them
           # (red team round 20: 32 bits of a hidden input a grading, exact, until the machine restarts). A read-only
           # mount would keep them, but bubblewrap's makes a node unusable (nodev); a learner needs no utime
           "utime", "utimes", "futimesat", "utimensat",
           # a wait on the host's writeback, in the kernel, where a killed process cannot end (round 22: syncfs on a
           # read-only bind reaches the host's file system); a learner's files are on the jail's own tmpfs
           "sync", "syncfs", "sync_file_range", "fsync", "fdatasync",  # (round 24: fsync of a staging copy
           # commits the host journal's running transaction; msync's MS_SYNC is refused below)
           # a file system's free blocks and inodes: every bind of the host's disk (/usr, the grader's code, the
           # staging folder) shows them, and the grader's writes move them (a gradebook row, whose size a sealed
           # case's stored output sets after the hidden cases: red team round 30); a learner needs no `df`
           "statfs", "fstatfs",
           "ustat",  # the same figures by device number, for any file system of the machine (round 32)
           # quotactl's Q_SYNC syncs every file system with quotas, unprivileged: round 22's host writeback wait
           "quotactl", "quotactl_fd",
           # moving a shared file's pages to another NUMA node, which a later jail reads in /proc/self/numa_maps
           # (red team round 30, on machines of several nodes); a learner's own allocations need no policy call
           "mbind", "migrate_pages", "move_pages")
MS_SYNC = 4
# ENOSYS: the page cache asked directly (preadv2/AIO with RWF_NOWAIT, cachestat, io_uring); memfd_create, whose inode
# numbers come from one host-wide counter that outlives the jail (red team round 6: 8 bits a stage boundary)
MISSING = ("preadv2", "pwritev2", "cachestat", "io_uring_setup", "io_uring_enter", "io_uring_register",
           "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
           "memfd_create", "memfd_secret",
           # System V IPC and POSIX message queues live in the jail's IPC namespace, which the kernel frees in a worker
           # after the last process: 3.6 GiB of queued messages were still being freed 13 s after a jail (round 14)
           "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
           "msgget", "msgsnd", "msgrcv", "msgctl",
           "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
           # Landlock rulesets: kernel objects a jail needs none of, another road to round 15's filters
           "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
           # A pidfd's inode number comes from one machine-wide counter of every process and thread made (pidfs,
           # Linux 6.9+): /proc/stat's `processes` again, read with fstat (red team round 18 moved it by threads and
           # read it in a later jail). No pidfd in a jail: pidfd_open, and clone3, which can ask for one (glibc falls
           # back to clone on ENOSYS; clone's CLONE_PIDFD is refused below)
           "pidfd_open", "clone3",
           # ... nor by a file handle: open_by_handle_at(FD_PIDFS_ROOT, ...) opens a pidfd for any task of the jail
           # whose pidfs inode number it guesses (Linux 6.13+; red team round 19 read the counter so), and nsfs
           # handles carry 64-bit namespace ids; a learner needs no file handles
           "open_by_handle_at", "name_to_handle_at")
MADV_COLD, MADV_PAGEOUT = 20, 21  # madvise advice that pushes a shared file's pages out of the cache
MADV_MERGEABLE, PR_SET_MEMORY_MERGE = 12, 67  # KSM: where the machine runs it, a page-content oracle between jails
# Huge pages of a shared file: MADV_COLLAPSE (and khugepaged, after MADV_HUGEPAGE where shmem_enabled is "advise")
# rebuilds a file's cached pages as a huge page, which stays with the file after the jail and shows in a later
# jail's /proc/self/smaps (red team round 17: set on the grader's input copies, read in the next learner's call).
# numpy's MADV_HUGEPAGE on its own large arrays ignores the refusal (anonymous huge pages still follow the machine's
# `enabled` setting).
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
# ioctl is an allow-list: what Python's io and os ask of a descriptor (TCGETS for isatty, TIOCGWINSZ for the
# terminal's size, FIONREAD, FIONBIO, FIONCLEX and FIOCLEX); every other request is ENOTTY, the answer of a device
# that has no such request. Red team round 17 read which extents of a shared ext4 file the kernel had looked up
# (EXT4_IOC_GET_ES_CACHE; FS_IOC_FIEMAP and EXT4_IOC_PRECACHE_EXTENTS set them): a hidden input's bits from one
# learner's hidden call to a later learner's public call, asked, not timed. Filesystems' ioctls are many, and new
# ones come with each kernel: an allow-list, not a list of the ones found.
TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX = 0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451
# A shared anonymous mapping is a file of the kernel's internal shmem mount, numbered by that mount's machine-wide
# counter (the one memfd_create drew from) and shown in /proc/self/maps: red team round 18 set its position on each
# CPU in one jail and read it in a later one. Private anonymous mappings (malloc, numpy, OpenBLAS) are untouched;
# a shared mapping of /dev/zero draws from it too, so the jail's /dev/zero is /dev/null (mounts.py).
MAP_SHARED, MAP_ANONYMOUS = 0x01, 0x20
CLONE_PIDFD = 0x1000
IOCTLS_KEPT = (TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX)
PR_SET_SECCOMP = 22  # the other road to a filter of the jail's own (see "seccomp" above)
# Since Linux 5.1 a new system call has one number on every architecture. libseccomp knows calls by name only up to
# its own release (Debian 12's 2.5.4 stops at futex_requeue, 456), and a name it does not know was skipped: red team
# round 21 set extended attributes with setxattrat (463) although it is refused above. These are refused by number
# where the name is unknown, and every call numbered after FIRST_UNSEEN, up to NEWER, is ENOSYS (the kernel's own
# answer for a call it lacks), so a call a newer kernel adds is refused until it has been looked at.
UNIFORM = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "pidfd_open": 434, "clone3": 435,
           "pidfd_getfd": 438, "process_madvise": 440, "landlock_create_ruleset": 444, "landlock_add_rule": 445,
           "landlock_restrict_self": 446, "memfd_secret": 447, "cachestat": 451, "setxattrat": 463,
           "removexattrat": 466}
FIRST_UNSEEN, NEWER = 457, 600  # statmount, the first call after futex_requeue; a margin of ~140 calls to come
INSTALL = "pip install pyseccomp, and the system's libseccomp (`apt-get install libseccomp2`)"


class SeccompUnavailable(OSError):
    """The filter cannot be built here: pyseccomp or libseccomp is missing."""


@functools.cache
def program() -> bytes:
    """The filter as the BPF program bubblewrap's --seccomp reads (built once per process)."""
    try:
        import pyseccomp as sc  # a runtime dependency; the system library behind it may still be missing
    except (ImportError, OSError) as e:
        raise SeccompUnavailable(f"the jail's seccomp filter cannot be built ({e}): {INSTALL}") from None
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        f.set_attr(sc.Attr.CTL_OPTIMIZE, 2)  # a binary tree of syscall numbers: ~150 more rules cost a few compares
        refused = {**{name: errno.EPERM for name in REFUSED}, **{name: errno.ENOSYS for name in MISSING}}
        numbers = {_number(sc, name): code for name, code in refused.items()}
        for nr in range(FIRST_UNSEEN, NEWER):
            numbers.setdefault(nr, errno.ENOSYS)
        for nr, code in sorted(numbers.items()):
            f.add_rule(sc.ERRNO(code), nr)
        for cmd in LOCKING_FCNTL:  # the kernel reads cmd as 32 bits: F_OFD_SETLK | 1 << 32 is F_OFD_SETLK
            f.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, cmd))
        for option in (PR_SET_MEMORY_MERGE, PR_SET_SECCOMP):
            f.add_rule(sc.ERRNO(errno.EPERM), "prctl", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, option))
        for advice in (MADV_COLD, MADV_PAGEOUT, MADV_MERGEABLE, MADV_HUGEPAGE, MADV_COLLAPSE):  # (an int: 32 bits)
            f.add_rule(sc.ERRNO(errno.EPERM), "madvise", sc.Arg(2, sc.MASKED_EQ, 0xFFFFFFFF, advice))
        # Compared as 64 bits: a request with any of the high 32 bits set is above the highest kept (the kernel
        # reads 32 bits, so `TCGETS | 1 << 32` is refused although it would be TCGETS)
        low, high = min(IOCTLS_KEPT), max(IOCTLS_KEPT)
        f.add_rule(sc.ERRNO(errno.ENOTTY), "ioctl", sc.Arg(1, sc.LT, low))
        f.add_rule(sc.ERRNO(errno.ENOTTY), "ioctl", sc.Arg(1, sc.GT, high))
        for request in sorted(set(range(low, high + 1)) - set(IOCTLS_KEPT)):
            f.add_rule(sc.ERRNO(errno.ENOTTY), "ioctl", sc.Arg(1, sc.EQ, request))
        shared_anonymous = MAP_SHARED | MAP_ANONYMOUS  # (MAP_SHARED_VALIDATE holds MAP_SHARED's bit)
        f.add_rule(sc.ERRNO(errno.EPERM), "mmap", sc.Arg(3, sc.MASKED_EQ, shared_anonymous, shared_anonymous))
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD))
        f.add_rule(sc.ERRNO(errno.EPERM), "msync", sc.Arg(2, sc.MASKED_EQ, MS_SYNC, MS_SYNC))
        # a process's own limits only: the resident (same uid, pid 1) hands its hard limits to every worker it forks,
        # and lowered ones made its next worker fail before its first call (red team round 8: a grader error row)
        f.add_rule(sc.ERRNO(errno.EPERM), "prlimit64", sc.Arg(0, sc.NE, 0))
        fd = os.memfd_create("grader-seccomp", os.MFD_CLOEXEC)
        try:
            with os.fdopen(os.dup(fd), "wb") as out:
                f.export_bpf(out)
            os.lseek(fd, 0, os.SEEK_SET)
            return os.read(fd, 1 << 20)
        finally:
            os.close(fd)
    except OSError as e:
        raise SeccompUnavailable(f"the jail's seccomp filter cannot be built ({e}): {INSTALL}") from None


def _number(sc: Any, name: str) -> int:
    """A call's number on this machine: libseccomp's, else the one every architecture shares (UNIFORM)."""
    nr = int(sc.resolve_syscall(sc.Arch.NATIVE, name))
    if nr >= 0:
        return nr
    if name in UNIFORM:
        return UNIFORM[name]
    raise OSError(f"this libseccomp does not know the system call {name!r}, which the jail must refuse")


def descriptor() -> int:
    """A new descriptor, at offset 0, holding the program: bubblewrap reads it (`--seccomp FD`) and closes it."""
    fd = os.memfd_create("grader-seccomp", 0)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
