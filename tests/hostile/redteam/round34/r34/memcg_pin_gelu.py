# Round 34: each call faults one never-read page of a /usr file into the page cache (charged to this jail's memory
# cgroup), then crashes, so the grader ends the jail and starts another for the rest. Measures whether the jails'
# memory cgroups outlive them (dying memcgs pinned by the page cache they charged).
import os, random, signal
import numpy as np

def _pin(n=8):
    rnd = random.Random(os.urandom(8))
    tops = ["/usr/share/locale", "/usr/share/doc", "/usr/share/man", "/usr/share/i18n", "/usr/lib/x86_64-linux-gnu"]
    done = 0
    for _ in range(200):
        d = rnd.choice(tops)
        try:
            for _ in range(6):
                names = os.listdir(d)
                if not names:
                    break
                p = os.path.join(d, rnd.choice(names))
                if os.path.isdir(p):
                    d = p
                    continue
                size = os.path.getsize(p)
                if size > 4096:
                    with open(p, "rb") as f:
                        f.seek(rnd.randrange(0, size - 4096) & ~4095)
                        f.read(4096)
                    done += 1
                break
        except OSError:
            pass
        if done >= n:
            break

def run_gelu(x):
    _pin()
    os.kill(os.getpid(), signal.SIGSEGV)
