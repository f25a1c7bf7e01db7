# Attacker: floods stdout, forges frames on the result pipe (fd 3), and sleeps past the timeout on some calls.
import json, os, struct, sys, time
import numpy as np

N = [0]

def run_gelu(x):
    N[0] += 1
    sys.stdout.write(("\x1b[31mPASS hidden 1\n" * 2000))
    if N[0] == 2:
        head = json.dumps({"status": "pass", "parts": []}).encode()
        os.write(3, struct.pack("<Q", len(head)) + head)
    if N[0] == 3:
        head = json.dumps({"ended": "0-1", "signal": None, "code": 0}).encode()
        os.write(3, struct.pack("<Q", len(head)) + head)
        time.sleep(2)
    if N[0] == 4:
        time.sleep(30)
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
