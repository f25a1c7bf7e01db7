# Round 27: kills its whole jail's worker with SIGKILL on every call, and leaves a setsid child behind first.
import os, signal, time
def run_gelu(x):
    if os.fork() == 0:
        try: os.setsid()
        except OSError: pass
        time.sleep(30); os._exit(0)
    os.kill(os.getpid(), signal.SIGKILL)
