"""Each call waits 0.5 s (while the previous call's stragglers would print), prints its own name, then starts a
thread and a process that print its name 0.3 s later and returns at once: whatever prints late must not land under
the next case."""
import os
import threading
import time


def run_double(x):
    name = f"call-{x.size}"
    time.sleep(0.5)
    print("own:", name, flush=True)
    threading.Thread(target=lambda: (time.sleep(0.3), print("LATE thread from", name, flush=True)),
                     daemon=True).start()
    if os.fork() == 0:
        time.sleep(0.3)
        os.write(1, f"LATE process from {name}\n".encode())
        os._exit(0)
    return 2 * x
