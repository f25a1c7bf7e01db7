"""Use far more memory than the limit, spread so no single process exceeds it: five children, each holding
@@CHILD_MB@@ MiB of arrays and three memfds, plus files in /tmp. Each process alone stays under its own cap."""
import os
import time

import numpy as np


def hold(mb):
    keep = []
    for _ in range(3):
        fd = os.memfd_create("hoard")
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
