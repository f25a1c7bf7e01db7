"""Start 70 processes that each leave the session (setsid) and sleep for five minutes: they should outlive the
grade (issue 9: about 70 of them beat the reaper). Answers correctly, so only their survival is in question."""
import os
import time


def run_double(x):
    started, refused = 0, 0
    for _ in range(70):
        try:
            pid = os.fork()
        except OSError:
            refused += 1
            continue
        if pid == 0:
            os.setsid()
            time.sleep(300)
            os._exit(0)
        started += 1
    print(f"started {started}, refused {refused}")
    return 2 * x
