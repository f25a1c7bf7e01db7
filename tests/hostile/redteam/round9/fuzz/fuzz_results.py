import io, json, random, struct, sys, traceback
sys.path.insert(0, "/work/redteam9")
import numpy as np
from grader.run import protocol
from grader.judge import compare
from grader.course import Tolerance
from grader.results import CaseResult, Status, StageResult, Report
from grader.report import text as textrep, casetext
from grader.results import stored

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
DT = ["<f8", ">f8", "<f4", "<f2", "<f16", "<i8", ">i4", "|u1", "|b1", "<c8", "<U1", ">U3", "<U0", "|i1", "<u8"]

def npy():
    dt = rng.choice(DT)
    nd = rng.choice([0, 1, 2, 3])
    shape = tuple(rng.choice([0, 1, 2, 3, 5, 2**40]) for _ in range(nd))
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (dt, rng.choice(["False", "True"]), repr(shape))
    hdr = hdr + " " * rng.randint(0, 70) + "\n"
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
    try:
        n = int(np.prod(shape)) * np.dtype(dt).itemsize
    except Exception:
        n = 8
    n = min(n, 4096)
    body = bytes(rng.getrandbits(8) for _ in range(n + rng.choice([0, 0, 0, 1, -1]) if n else 0))
    return head + body

def header(nparts):
    h = {"status": rng.choice(["ok", "ok", "exception", "todo", "pass", 5, None])}
    h["keys"] = rng.choice([[""] * nparts, [str(i) for i in range(nparts)], ["", ""], [1], "x"])
    if rng.random() < .5: h["output"] = "".join(rng.choice(["a", "\n", "\x1b", "\u202e", "\ud800"]) for _ in range(rng.randint(0, 60)))
    if rng.random() < .5: h["output_cut"] = rng.choice([0, 5, 10**4299, 10**4300 - 1, -1, 2**63])
    if rng.random() < .3: h["message"] = rng.choice(["m", 10**4000, [[[1]]], {"a": 1}])
    if rng.random() < .3: h["raised_in"] = rng.choice(["student/x.py:f", ":", "a" * 400])
    if rng.random() < .3: h["returned"] = rng.choice(["list", "", "\x00"])
    if rng.random() < .3: h["modules"] = rng.choice([["a"], [1, [2]], "x"])
    return h

calls = [
    (protocol.Call(case="t", module="student.tokenizer", function="run_bpe_decode", inputs={}, returns="text"), {"": np.array("hello world")}),
    (protocol.Call(case="g", module="student.gelu", function="run_gelu", inputs={}), {"": np.linspace(-3, 3, 6)}),
]
bad = {}
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3000):
    call, expected = rng.choice(calls)
    nparts = rng.choice([1, 1, 1, 2, 0])
    parts = [memoryview(npy()).toreadonly() for _ in range(nparts)]
    h = header(nparts)
    try:
        raw = json.dumps({**h, "parts": [len(p) for p in parts]})
        parsed = protocol.parse_header(raw.encode())
        if parsed is None:
            continue
        out = protocol.result_of(call, parsed, parts, 0.1)
        res = CaseResult(stage="s", case=call.case, function=call.function, status=Status.FAIL, max_points=1.0,
                         message=out.message, stdout=out.output, stdout_cut_lines=out.output_cut,
                         raised_in=out.raised_in, returned=out.returned)
        if out.status is None:
            res.comparisons = compare.compare_outputs(out.value, expected, Tolerance(1e-6, 1e-6))
            res.status = Status.PASS if all(c.ok for c in res.comparisons) else Status.FAIL
            compare.matches(out.value, expected, Tolerance(1e-6, 1e-6))
        else:
            res.status = out.status
        st = StageResult(stage="s", title="S", cases=[res], max_points=1.0)
        rep = Report(course="c", stages=[st])
        blob = stored.unpack(stored.pack(rep))
        textrep.render(blob, colour=False, verbose=True)
        textrep.render(blob, colour=False, verbose=False)
        from grader.report import gradescope as gsr, junit as jr, json as jsr
        json.dumps(gsr.results(blob))
        jr.render(blob) if hasattr(jr, "render") else None
        jsr.render(blob) if hasattr(jsr, "render") else None
        casetext.printed(res, casetext.Style(False) if hasattr(casetext, "Style") else None, 3, {}) if hasattr(casetext, "Style") else None
    except Exception as e:
        key = (type(e).__name__, str(e)[:80])
        if key not in bad:
            bad[key] = (h, traceback.format_exc().splitlines()[-4:])
for k, v in bad.items():
    print(k)
    print("   ", {x: (str(y)[:40]) for x, y in v[0].items()})
    print("   ", v[1])
