# Round 24 chaos learner: conv1d right on public cases but one (so later stages are graded with conv1d's
# reference: files_of jails), and in hidden calls: a left-behind process doing fsync on the grader's staging
# copy and /usr files, a left-behind thread, 1 MiB on stderr, a forged `ended` frame on the result pipe.
import json, os, glob, threading, time
import numpy as np

_calls = [0]

def _hidden():
    try:
        for f in glob.glob("/jail/job/*/job.json"):
            return any("hidden" in c["case"] for c in json.load(open(f))["calls"])
    except Exception:
        return False
    return False

def _spin_fsync():
    paths = ["/submission/student/conv1d.py", "/usr/lib/os-release"]
    end = time.time() + 20
    while time.time() < end:
        for p in paths:
            try:
                fd = os.open(p, os.O_RDONLY); os.fsync(fd); os.close(fd)
            except OSError:
                pass

def run_conv1d(x, weight, bias):
    w, b = weight, bias
    _calls[0] += 1
    x, w, b = np.asarray(x), np.asarray(w), np.asarray(b)
    out = (x @ w + b).astype(x.dtype)
    if _hidden():
        if os.fork() == 0:
            try:
                _spin_fsync()
            finally:
                os._exit(0)
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        os.write(2, b"E" * (1 << 20))
        # a forged `ended` for a job name the grader never gave, on the shared result pipe
        hdr = json.dumps({"ended": "99-99", "signal": 9, "code": None}).encode()
        try:
            from grader.run.protocol import encode
            os.write(3, encode({"ended": "99-99", "signal": 9, "code": None}, ()))
        except Exception:
            pass
        return out
    if _calls[0] == -1:
        return out + 1.0  # the first public call fails: mlp and later stages get conv1d's reference
    return out
