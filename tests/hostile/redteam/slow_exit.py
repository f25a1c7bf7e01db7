"""Cost the batch time without losing points (stage conv1d): every call returns the right answer, but replaces
sys.stdout with an object whose flush() sleeps, so the worker (which flushes before os._exit) never ends after a
job's last result; the grader waits ENDED_WAIT (10 s) per job, then kills the jail. Measured: the submission's points
(unchanged) and its wall time. Held if the added time stays within the per-submission budget (it is polled while a
job is watched) and the verdicts are all PASS."""
import sys
import time


class _Slow:
    def write(self, s):
        return len(s)

    def flush(self):
        time.sleep(3600)


def run_conv1d(x, weight, bias):
    sys.stdout = _Slow()
    return x @ weight + bias
