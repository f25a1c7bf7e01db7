# Round 18 probe: core-scheduling cookies (prctl PR_SCHED_CORE): a per-task value; does it exist, what does it look like.
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)


def run_gelu(x):
    PR_SCHED_CORE, GET, CREATE = 62, 0, 1
    cookie = ctypes.c_ulong(0)
    r1 = libc.prctl(PR_SCHED_CORE, CREATE, 0, 0, 0)  # this thread, PIDTYPE_PID
    e1 = ctypes.get_errno()
    r2 = libc.prctl(PR_SCHED_CORE, GET, 0, 0, ctypes.byref(cookie))
    raise RuntimeError(f"create {r1} errno {e1}; get {r2} errno {ctypes.get_errno()} cookie {cookie.value:#x}")
