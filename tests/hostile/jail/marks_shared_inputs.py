"""Leave a message on the fixture inputs' descriptors for a learner graded later by the same batch worker (red team
round 16): extended attributes and times of the inode, and the offset, status flags and signal of the open file
description, which every job was handed as it was. MODE "mark" leaves them; "read" prints what it finds on the
descriptors the job was handed (the lowest of those open on each copy: loading an input as a copy-on-write mapping
opens one more of this call's own, whose offset is where np.load's header ended)."""
import fcntl
import os

MODE = "@@MODE@@"


def run_double(x):
    handed = {}
    for fd in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if not target.startswith("/memfd:input"):
            continue
        n = int(fd)
        if MODE == "read" and handed.setdefault(os.fstat(n).st_ino, n) != n:
            continue  # one this call opened
        if MODE == "mark":
            ways = {"xattr": lambda: os.setxattr(n, "user.msg", b"answer"),
                    "times": lambda: os.utime(n, (123456789, 123456789)),
                    "offset": lambda: os.lseek(n, 0xC0FFEE, os.SEEK_SET),
                    "flags": lambda: fcntl.fcntl(n, fcntl.F_SETFL, os.O_NONBLOCK | os.O_APPEND),
                    "signal": lambda: fcntl.fcntl(n, 10, 42)}  # F_SETSIG
            for way, do in ways.items():
                try:
                    do()
                    print("set:", way)
                except OSError as e:
                    print("refused:", way, e.errno)
        else:
            st = os.fstat(n)
            try:
                xattrs = os.listxattr(n)
            except OSError as e:
                xattrs = f"error {e.errno}"
            print("found:", os.lseek(n, 0, os.SEEK_CUR), fcntl.fcntl(n, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND),
                  fcntl.fcntl(n, 11), st.st_atime_ns, st.st_mtime_ns, xattrs)  # F_GETSIG
    return 2 * x
