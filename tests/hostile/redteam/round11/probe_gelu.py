# module: gelu
"""Round 11 recon: what the jail lets a public call do (printed; the case fails on purpose so it is shown)."""
import ctypes, errno, os, stat, struct, subprocess, time
import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]


def t(what, fn):
    try:
        return f"{what}: {fn()!r}"[:400]
    except BaseException as e:  # noqa
        return f"{what}: {type(e).__name__} {e}"[:400]


def _exec_tmp():
    with open("/tmp/x.sh", "w") as f:
        f.write("#!/bin/sh\necho ran-from-tmp\n")
    os.chmod("/tmp/x.sh", 0o755)
    return subprocess.run(["/tmp/x.sh"], capture_output=True, text=True, timeout=5).stdout


def _hugetlb():
    r = libc.mmap(None, 2 << 20, 3, 0x22 | 0x40000, -1, 0)
    return (r, ctypes.get_errno())


def _timers():
    class SE(ctypes.Structure):
        _fields_ = [("v", ctypes.c_long), ("signo", ctypes.c_int), ("notify", ctypes.c_int), ("pad", ctypes.c_byte * 48)]
    n, tid = 0, ctypes.c_int()
    se = SE(0, 0, 1, )  # SIGEV_NONE
    while n < 200000:
        if libc.syscall(222, 1, ctypes.byref(se), ctypes.byref(tid)) != 0:
            return (n, errno.errorcode.get(ctypes.get_errno()))
        n += 1
    return (n, "stopped")


def _sync():
    t0 = time.monotonic()
    for _ in range(20):
        os.sync()
    return f"20 sync() in {time.monotonic() - t0:.3f} s"


def _numa():
    fd = os.open("/usr/lib/file/magic.mgc", os.O_RDONLY)
    a = libc.mmap(None, 1 << 16, 1, 1, fd, 0)
    ctypes.c_char.from_address(a).value
    txt = open("/proc/self/numa_maps").read()
    line = next((l for l in txt.splitlines() if "magic.mgc" in l), "")
    with open("/proc/self/pagemap", "rb") as pm:
        pm.seek(a // 4096 * 8)
        (e,) = struct.unpack("<Q", pm.read(8))
    return line, hex(e)


def run_gelu(x):
    out = [t("exec from /tmp", _exec_tmp), t("MAP_HUGETLB", _hugetlb), t("posix timers", _timers), t("sync", _sync),
           t("numa_maps/pagemap", _numa),
           t("sockstat", lambda: open("/proc/net/sockstat").read()),
           t("protocols", lambda: open("/proc/net/protocols").read()[:300]),
           t("limits", lambda: open("/proc/self/limits").read()),
           t("mlock 64M", lambda: libc.mlockall(3) or ctypes.get_errno())]
    print("\n".join(out))
    return np.zeros_like(x)
