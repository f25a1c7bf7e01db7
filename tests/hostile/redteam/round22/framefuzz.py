"""Fuzz protocol.Frames + result_of with random headers and payloads (what a learner's process can write to fd 3):
an exception escaping them would end a grade as a grader error."""
import io, json, random, struct, sys, time, traceback
import numpy as np
sys.path.insert(0, "/work/redteam22")
from grader.run import protocol
from grader.run.protocol import Call

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 30)
VALS = [None, True, False, 0, -1, 1, 2**63, -2**63, 10**300, 1.5, -0.0, 1e308, "", "x", "\ud800", "\x1b[2J", "ok",
        "exception", "todo", "pass", "fail", "timeout", [], {}, [1, 2], {"a": 1}, [[[]]], ["a", "a"], [1, "1"],
        [None], [{"function": "f"}], list(range(5))]
KEYS = ["status", "keys", "output", "output_cut", "modules", "raised_in", "returned", "message", "observed",
        "parts", "start", "ended", "ready", "pid", "signal", "code"]


def npy(arr):
    b = io.BytesIO(); np.lib.format.write_array(b, arr, allow_pickle=False); return b.getvalue()


PAY = [npy(np.zeros((2, 3), np.float32)), npy(np.array("hi")), npy(np.zeros((0,), ">f8")), npy(np.ones(3, np.longdouble)),
       npy(np.zeros(2, np.complex64)), b"", b"\x93NUMPY", npy(np.zeros((2,), "<U2")), npy(np.array(True))]
seen, n = {}, 0
calls = [Call(case="c", module="student.gelu", function="run_gelu", inputs={}, returns=r, keys=k, max_bytes=1 << 20,
              observe=o) for r, k, o in (("array", (), ()), ("dict", ("a", "b"), ()), ("tuple", ("0", "1"), (("m", "f"),)))]
while time.time() < end:
    header = {rng.choice(KEYS): rng.choice(VALS) for _ in range(rng.randint(0, 6))}
    if rng.random() < 0.6:
        header["status"] = "ok"
    parts = [rng.choice(PAY) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.3:
        p = bytearray(rng.choice(PAY)); 
        if p: p[rng.randrange(len(p))] = rng.randrange(256)
        parts.append(bytes(p))
    if rng.random() < 0.7:
        header["keys"] = [rng.choice(VALS) for _ in parts]
    try:
        raw = protocol.encode(header, parts)
    except (TypeError, ValueError):
        continue
    fr = protocol.Frames(); fr.limit = 1 << 20
    try:
        for h, ps in fr.feed(raw):
            protocol.result_of(rng.choice(calls), h, ps, 0.1)
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = 1
            print("CRASH", type(e).__name__, str(e)[:150], traceback.extract_tb(e.__traceback__)[-1], repr(header)[:300])
    n += 1
print("tries", n, "distinct crashes", len(seen))
