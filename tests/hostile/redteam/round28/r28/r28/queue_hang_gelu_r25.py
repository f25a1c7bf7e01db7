"""Round 25: a worker that forges its resident's `ended` (code RETIRED) after each call keeps the resident in
waitpid, so every later job the grader sends stays unread on the jail's SEQPACKET command socket. The worker answers
each new job itself (start 0, an `exception` result, `ended` RETIRED), so the grader sends one job per call. After
~278 queued messages (wmem_default 212992) the grader's blocking send_fds never returns: the batch hangs, with no
timeout running. Needs a pass with more calls than that before the jail would end (a course with many cases)."""
import os, time
import numpy as np

RES = 3


def _send(header):
    from grader.run.protocol import encode
    data = memoryview(encode(header))
    while data:
        data = data[os.write(RES, data):]


def _jobs():
    try:
        names = os.listdir("/jail/job")
    except OSError:
        return []
    return sorted((int(n.split("-")[1]), n) for n in names if "-" in n)


def run_gelu(x):
    # we are call 0 of the first job: answer it, then say the worker ended (RETIRED) while going on
    _send({"status": "exception", "message": "forged"})
    _send({"ended": "x", "signal": None, "code": 75})
    seen = {n for _, n in _jobs()}
    answered, idle_since = 1, time.monotonic()
    while time.monotonic() - idle_since < 90:
        new = [n for _, n in _jobs() if n not in seen]
        if not new:
            time.sleep(0.002)
            continue
        for n in new:
            seen.add(n)
            _send({"start": 0, "pid": os.getpid()})
            _send({"status": "exception", "message": f"forged {answered}"})
            _send({"ended": n, "signal": None, "code": 75})
            answered += 1
            idle_since = time.monotonic()
    os._exit(0)
