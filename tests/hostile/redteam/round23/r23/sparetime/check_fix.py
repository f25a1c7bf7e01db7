"""Round 23: does a learner's jail still tell how long the previous learner's grading took? (run as root)

Two batches (--jobs 1, --stage softmax) of a sender (a correct softmax that sleeps SLEEP s in its hidden_2 call) and
a receiver graded next (its first public call prints its jail's age: now - /proc/1 start, and now - ctime of /tmp).
Exit 0 when the receiver's jail age does not follow the sender's sleep (the fix), 1 when it does (the break).
Usage: python attacks/r23/sparetime/check_fix.py [SLEEP]   (default 3.0)
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path("/work/redteam23")
T = Path("/tmp/rt23-fix")
RUNNER = ["-m", "grader"] if "--cold" not in sys.argv else [str(Path(__file__).with_name("nowarm.py"))]
SENDER = '''import time
import numpy as np
SLEEP = {sleep}
def run_softmax(x):
    x = np.asarray(x)
    if x.ndim == 4:
        time.sleep(SLEEP)
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(x.dtype)
'''
RECEIVER = '''import os, time
import numpy as np
_DONE = []
def run_softmax(x):
    x = np.asarray(x)
    if not _DONE:
        _DONE.append(1)
        text = open("/proc/1/stat").read()
        start = int(text[text.rindex(")") + 2:].split()[19]) / os.sysconf("SC_CLK_TCK")
        print(f"AGE {time.clock_gettime(time.CLOCK_BOOTTIME) - start:.3f} TMP {time.time() - os.stat('/tmp').st_ctime:.3f}")
        return np.zeros_like(x)
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(x.dtype)
'''


def ages(sleep: float) -> tuple[float, float]:
    run = T / f"s{sleep}"
    shutil.rmtree(run, ignore_errors=True)
    for who, text in (("a_sender", SENDER.format(sleep=sleep)), ("b_receiver", RECEIVER)):
        (run / "subs" / who / "student").mkdir(parents=True)
        (run / "subs" / who / "student" / "softmax.py").write_text(text)
    subprocess.run([sys.executable, *RUNNER, "batch", str(run / "subs"), "--jobs", "1", "--stage", "softmax",
                    "--db", str(run / "gb.sqlite"), "--feedback", str(run / "fb")], cwd=ROOT, check=True,
                   capture_output=True)
    m = re.search(r"AGE ([0-9.]+) TMP ([0-9.]+)", (run / "fb" / "b_receiver.txt").read_text())
    return float(m.group(1)), float(m.group(2))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--cold"]
    sleep = float(args[0]) if args else 3.0
    base, slow = ages(0.0), ages(sleep)
    grew = slow[0] - base[0], slow[1] - base[1]
    print(f"receiver's jail age: {base} with the sender not sleeping, {slow} with it sleeping {sleep} s; grew {grew}")
    sys.exit(1 if max(grew) > sleep / 2 else 0)
