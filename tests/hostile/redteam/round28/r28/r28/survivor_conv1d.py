"""Round 28: conv1d whose first HIDDEN call forges its resident's `ended` (RETIRED) and lives on, answering every
later job of the jail itself (forged `start`, an exception, `ended`): the rest of the hidden pass and then the
first references run (mlp, deferred: gelu unwritten), which now runs in the same jail. Idle 15 s: it leaves.
Checks the new three-pass order and MSG_DONTWAIT send against a forged-ended survivor."""
import os, time

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
    return sorted(names)


def run_conv1d(x, weight, bias):
    if x.shape != (1, 64, 768):  # public calls (and hidden_2): honest
        return (x @ weight + bias).astype(x.dtype)
    _send({"status": "exception", "message": "forged"})
    _send({"ended": "x", "signal": None, "code": 75})
    seen = set(_jobs())
    answered, idle_since = 1, time.monotonic()
    log = []
    while time.monotonic() - idle_since < 15:
        new = [n for n in _jobs() if n not in seen]
        if not new:
            time.sleep(0.002)
            continue
        for n in new:
            seen.add(n)
            try:
                log.append((n, sorted(os.listdir("/submission/student"))))
            except OSError:
                pass
            _send({"start": 0, "pid": os.getpid()})
            _send({"status": "exception", "message": f"forged {answered}"})
            _send({"ended": n, "signal": None, "code": 75})
            answered += 1
            idle_since = time.monotonic()
    os._exit(0)
