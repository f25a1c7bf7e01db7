"""Honest mlp (graded with the reference conv1d, own conv1d fails). MODE: 'stash' writes /tmp/.leak (and a copy of
the reference conv1d) in every call; 'timeout' also sleeps 30 s in the hidden 2x16 call; 'forge' forges the
resident's `ended` frame in that call and lives on writing the marker; 'none' is the control."""
import json, os, shutil, struct, time
from student.gelu import run_gelu
from student import conv1d as _c

MODE = "stash"


def _frame(header):
    head = json.dumps({**header, "parts": []}).encode()
    return struct.pack("<Q", len(head)) + head


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    out = _c.run_conv1d(run_gelu(_c.run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
    if MODE != "none":
        with open("/tmp/.leak", "w") as f:
            f.write(open("/submission/student/conv1d.py").read())
        for d in ("/var/tmp", "/dev/shm"):
            try:
                shutil.copy("/tmp/.leak", d + "/.leak")
            except OSError:
                pass
    hidden = tuple(x.shape[:2]) == (2, 16)
    if hidden and MODE == "timeout":
        time.sleep(30)
    if hidden and MODE == "forge":
        os.write(3, _frame({"ended": "x", "signal": None, "code": 0}))
        if os.fork() == 0:
            end = time.time() + 20
            while time.time() < end:
                try:
                    open("/tmp/.leak", "w").close()
                except OSError:
                    pass
                time.sleep(0.01)
            os._exit(0)
    return out
