# module: double
"""A forged faulthandler stack (run/capture.py): at its timeout the grader reads the call's stack file for the
learner's line. This call writes a frame whose line number has 5000 digits into that file, stops faulthandler
writing over it (SIGUSR1 ignored) and loops. int() of 5000 digits raised ValueError in the grader: the row became a
grader "error" (no score for the LMS, regraded by every batch, "the autograder failed" on Gradescope). Held if the
case is the learner's own TIMEOUT, the row graded with 0 points for the stage."""
import faulthandler
import os
import signal


def run_double(x):
    for fd in os.listdir("/proc/self/fd"):
        try:
            if "grader-stack" in os.readlink(f"/proc/self/fd/{fd}"):
                os.write(int(fd), b'File "/submission/student/double.py", line ' + b"9" * 5000 + b" in run_double\n")
        except OSError:
            pass
    try:
        faulthandler.unregister(signal.SIGUSR1)
    except Exception:
        pass
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    while True:
        pass
