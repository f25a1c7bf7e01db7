"""Outlive the jail (stage conv1d): double-fork + setsid daemons, one that ignores SIGTERM/SIGHUP, one that
re-forks every 50 ms (a moving target for kill(-1)), one as a thread blocked in a sleep; each touches
/tmp/alive-<n> every 100 ms and sleeps. Checked from the host after the batch: any process whose uid is a jail uid
(>= 1600000000) still alive means it got out. Returns right answers so the batch goes on normally."""
import os
import signal
import threading
import time


def _daemon(n, refork):
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while True:
        try:
            open(f"/tmp/alive-{n}", "w").write(str(time.time()))
        except OSError:
            pass
        time.sleep(0.05)
        if refork and os.fork():
            os._exit(0)


def run_conv1d(x, weight, bias):
    if not os.path.exists("/tmp/started"):
        open("/tmp/started", "w").close()
        _daemon(1, False)
        _daemon(2, True)
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    return x @ weight + bias
