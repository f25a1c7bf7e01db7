# Attacker: every call kills its worker (a new jail per call), and leaves a setsid'd sleeper behind first.
import os

def run_gelu(x):
    if os.fork() == 0:
        try:
            os.setsid()
        except OSError:
            pass
        import time
        time.sleep(600)
        os._exit(0)
    os._exit(3)
