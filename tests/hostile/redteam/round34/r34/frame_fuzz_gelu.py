# Round 34: each gelu call writes random frames (valid length prefix, JSON headers of odd types and keys, payload
# counts and sizes near the limits) to the result pipe (fd 3), then returns the right answer or exits. Looking for a
# grader exception (an error row or a traceback), never a pass it should not get.
import json, math, os, random, struct
import numpy as np

SEED = 0  # replaced per copy
_n = [0]
KEYS = ["start", "ended", "ready", "status", "keys", "modules", "output", "output_cut", "observed", "message", "pid",
        "signal", "code", "raised_in", "returned", "parts", "x"]

def _val(r, depth=0):
    k = r.randrange(9 if depth < 3 else 6)
    return [lambda: r.randrange(-5, 10), lambda: r.choice([0, 1, 2**31, 2**63, -1, 10**300]), lambda: r.random() * 1e300,
            lambda: r.choice(["ok", "pass", "fail", "timeout", "todo", "exception", "\x1b[2J", "0-1", "1-1"]),
            lambda: None, lambda: r.choice([True, False]),
            lambda: [_val(r, depth + 1) for _ in range(r.randrange(4))],
            lambda: {r.choice(KEYS): _val(r, depth + 1) for _ in range(r.randrange(4))},
            lambda: "y" * r.randrange(0, 5000)][k]()

def _frame(r, i):
    h = {r.choice(KEYS): _val(r) for _ in range(r.randrange(1, 6))}
    if r.random() < 0.5:
        h["start"] = r.choice([i, i + 1, i - 1, 0])
    if r.random() < 0.3:
        h["ended"] = r.choice(["0-1", "1-1", "0-2", 5, None])
    sizes = [r.randrange(0, 300) for _ in range(r.randrange(0, 4))]
    h["parts"] = sizes
    head = json.dumps(h).encode()
    return struct.pack("<Q", len(head)) + head + b"".join(bytes(r.randrange(256) for _ in range(s)) for s in sizes)

def run_gelu(x):
    r = random.Random(SEED * 1000 + _n[0])
    _n[0] += 1
    try:
        for _ in range(r.randrange(1, 4)):
            os.write(3, _frame(r, _n[0] - 1))
    except OSError:
        pass
    if r.random() < 0.2:
        os._exit(r.choice([0, 1, 75, 70]))
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
