"""Use far more memory than the limit, spread so no single process exceeds it: five children, each holding
@@CHILD_MB@@ MiB of arrays and three memfds, plus files in /tmp. Each process alone stays under its own cap."""
import os
import time

import numpy as np


def hold(mb):
    keep = []
    for i in range(3):
        try:  # a memfd where the jail allows one (it refuses memfd_create), else a tmpfs file: memory either way
            fd = os.memfd_create("hoard")
        except OSError:
            fd = os.open(f"/dev/shm/hoard-{os.getpid()}-{i}", os.O_CREAT | os.O_RDWR)
        try:
            for _ in range(60):
                os.write(fd, b"\1" * (1 << 20))
        except OSError:
            pass
        keep.append(fd)
    for _ in range(mb // 32):
        keep.append(np.ones(4 << 20))  # 32 MiB, touched
    time.sleep(3)


def run_double(x):
    children = []
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            try:
                hold(@@CHILD_MB@@)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return 2 * x
