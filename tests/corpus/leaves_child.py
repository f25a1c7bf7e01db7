import os
import time


def run_double(x):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    return 2 * x
