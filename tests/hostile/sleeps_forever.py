"""Close its output and sleep, ignoring the polite signals."""
import os
import signal
import time


def run_double(x):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    os.close(1)
    os.close(2)
    while True:
        time.sleep(1000)
