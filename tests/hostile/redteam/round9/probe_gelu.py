# module: gelu
"""Row 7 (held): what a public call may do to the jail's own processes after round 8's fixes; printed (the case is
failed on purpose so the output is shown)."""
import ctypes, os, resource, signal
import numpy as np


def _try(what, fn):
    try:
        return f"{what}: ok {fn()!r}"
    except BaseException as e:  # noqa: BLE001
        return f"{what}: {type(e).__name__} {e}"


def _write_adj(v):
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, v.encode())
    finally:
        os.close(fd)
    return open("/proc/self/oom_score_adj").read().strip()


def run_gelu(x):
    me = os.getpid()
    for line in (
        _try("read oom_score_adj", lambda: open("/proc/self/oom_score_adj").read().strip()),
        _try("write oom_score_adj 999", lambda: _write_adj("999")),
        _try("write oom_score_adj 0", lambda: _write_adj("0")),
        _try("write oom_score_adj -1000", lambda: _write_adj("-1000")),
        _try("prlimit(1, NOFILE)", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (5, 5))),
        _try("prlimit(own pid, FSIZE)", lambda: resource.prlimit(me, resource.RLIMIT_FSIZE)),
        _try("prlimit(0, FSIZE)", lambda: resource.prlimit(0, resource.RLIMIT_FSIZE)),
        _try("kill(1, SIGTERM)", lambda: os.kill(1, signal.SIGTERM)),
        _try("/proc/1/fd", lambda: os.listdir("/proc/1/fd")),
        _try("/proc/1/environ", lambda: open("/proc/1/environ").read()[:40]),
        _try("ls /jail/job", lambda: os.listdir("/jail/job")),
        _try("ls /submission", lambda: os.listdir("/submission")),
        _try("ls /", lambda: sorted(os.listdir("/"))),
    ):
        print(line)
    return np.asarray(x) * 0  # wrong on purpose: the printed output is shown
