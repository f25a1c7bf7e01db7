"""How many threads the learner's numpy may use for BLAS: one core fewer than the machine gives us.

The grader compares each call's outputs while the child computes the next one. OpenBLAS's threads wait for each
other at every matrix product, so with as many BLAS threads as cores plus the grader's own work, one descheduled
thread stalls the rest: on two cores, a save of a stage of linear layers spent 90-220 ms in its calls with two
threads and 18-22 ms with one (bench/watch.py). Set before numpy is first imported (the libraries read it then),
and never over a value the user set themselves.
"""

from __future__ import annotations

import os

VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def leave_a_core(environ: dict[str, str] | None = None, argv: list[str] | None = None) -> int:
    """Set the BLAS thread variables the user left unset to the cores we may use, less one (at least 1).

    Grading a learner's own checkpoint (`--checkpoint` in argv) takes every core: its few calls are large matrix
    products and the comparisons between them small beside them (a 124M model, quiet machine: 4.0 s with two
    threads, 4.7 s with one; bench/gpt2_checkpoint.py).
    """
    env = os.environ if environ is None else environ
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    big = any(a == "--checkpoint" or a.startswith("--checkpoint=") for a in (argv or []))
    threads = cores if big else max(1, cores - 1)
    for name in VARIABLES:
        env.setdefault(name, str(threads))
    return threads
