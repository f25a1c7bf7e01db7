"""Fork a grandchild that leaves the process group (setsid), records its pid, and lives on."""
import os
import time


def run_double(x):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # a great-grandchild as well, orphaned at once
            with open("@@PIDS@@", "a") as f:
                f.write(f"{os.getpid()}\n")
            time.sleep(120)
            os._exit(0)
        with open("@@PIDS@@", "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(120)
        os._exit(0)
    time.sleep(0.05)
    return 2 * x
