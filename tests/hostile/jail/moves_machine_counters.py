"""Move a machine-wide counter another jail can read later (red team round 18): each call here that works would let
a hidden call set a number, exactly, that a learner graded after it reads in a public call. Threads, forks and
private mappings, which draw on no such counter a jail can read, must still work."""
import ctypes
import mmap
import os
import struct
import threading


def run_double(x):
    worked = []
    ways = {
        # pidfs: a pidfd's inode number counts every process and thread the machine has made
        "pidfd_open": lambda: os.close(os.pidfd_open(os.getpid())),
        # the scheduler's autogroups, numbered machine-wide, shown in /proc/self/autogroup
        "setsid": _setsid_in_a_child,
        # the kernel's internal shmem mount numbers every shared anonymous mapping (/proc/self/maps shows it)
        "a shared anonymous mapping": lambda: mmap.mmap(-1, 4096).close(),
        "a shared mapping of /dev/zero": _devzero,
        # the audit session id: a task with no login uid may set one, each set takes the next number
        "a login uid of its own": _loginuid,
        # a file handle: open_by_handle_at(FD_PIDFS_ROOT, ...) opens pidfds (round 19); asked of a file here
        "a file handle": _file_handle,
    }
    for name, way in ways.items():
        try:
            way()
            worked.append(name)
            print("worked:", name)
        except OSError as e:
            print("blocked:", name, type(e).__name__, e)
    ran = []
    thread = threading.Thread(target=ran.append, args=(1,))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    private = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    private[:2] = b"ok"
    print("threads", ran == [1], "fork", os.waitstatus_to_exitcode(status) == 7, "private", private[:2] == b"ok")
    return 2 * x if worked else x * 0


def _setsid_in_a_child():
    """In a child, which leads no process group (the call's own process may)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os._exit(0)
        except OSError as e:
            os._exit(e.errno)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise OSError(code, os.strerror(code))


def _file_handle():
    """name_to_handle_at(AT_FDCWD, this file, ...): the call that makes what open_by_handle_at takes."""
    libc = ctypes.CDLL(None, use_errno=True)
    handle = ctypes.create_string_buffer(struct.pack("Ii", 128, 0) + b"\0" * 128)
    mount_id = ctypes.c_int()
    if libc.syscall(303, -100, __file__.encode(), handle, ctypes.byref(mount_id), 0) != 0:  # x86_64's number
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _devzero():
    with open("/dev/zero", "rb") as f:
        mmap.mmap(f.fileno(), 4096, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ).close()


def _loginuid():
    """In a new thread, as round 18 did: each task may set its own once (a uid the jail's namespace maps)."""
    failed = []

    def set_it():
        try:
            with open("/proc/thread-self/loginuid", "w") as f:
                f.write(str(os.getuid()))
        except OSError as e:
            failed.append(e)
    thread = threading.Thread(target=set_it)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
