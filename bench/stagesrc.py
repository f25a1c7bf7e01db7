"""Bench helpers for any stage: a learner file made from the stage's reference, and the stage's minimal script.

`student_source` writes a student/<file>.py whose functions call the stage's reference (optionally made wrong, so
every save changes the verdict); `minimal_script` is the floor a grade is compared with: load the stage's fixtures,
call the learner's functions, compare with numpy at the stage's tolerances, nothing else (no digests, no child
process, no report).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.course import load_course


def student_source(root: Path, stage_id: str, wrong: bool = False) -> str:
    """A learner file for the stage whose functions are the reference's (wrong: scaled by 1.01, or changed)."""
    stage = load_course(root).stage(stage_id)
    reference = str(stage.dir / "reference.py")
    course_root = str(stage.dir.parent.parent)  # for the reference's `from common... import`
    lines = ["import importlib.util", "import sys", "import types", "", "import numpy as np", "",
             f"if {course_root!r} not in sys.path:", f"    sys.path.append({course_root!r})",
             f"_spec = importlib.util.spec_from_file_location('_bench_ref_{stage_id}', {reference!r})",
             "_ref = importlib.util.module_from_spec(_spec)", "_spec.loader.exec_module(_ref)",
             "_orig = types.SimpleNamespace(**vars(_ref))", "", "",
             "def _off(v):",
             "    if isinstance(v, dict):",
             "        return {k: _off(x) for k, x in v.items()}",
             "    if isinstance(v, str):",
             "        return v + '!'",
             "    a = np.asarray(v)",
             "    return a + 1 if a.dtype.kind in 'iu' else a * 1.01", ""]
    for fn in stage.functions:
        params = ", ".join(fn.params)
        call = f"_orig.{fn.reference}({params})"
        lines += ["", f"def {fn.name}({params}):", f"    return {'_off(' + call + ')' if wrong else call}", ""]
    # A function the stage observes (`observe:`) is called by the reference's own code through the learner's name,
    # as a learner's generator calls their own run_attention_cached, so the grader sees those calls.
    observed = {entry.split(":")[1] for f in stage.functions for entry in f.observe}
    for fn in stage.functions:
        if fn.name in observed:
            lines += [f"_ref.{fn.reference} = lambda *a, **k: {fn.name}(*a, **k)", ""]
    return "\n".join(lines)


MINIMAL = '''import json
import sys

import numpy as np

sys.path.insert(0, ".")
from {module} import {names}  # noqa: E402

STAGE, TOLERANCES, KEYS = {stage!r}, {tolerances}, {keys}
FUNCTIONS = {{{functions}}}
manifest = json.load(open(f"fixtures/{{STAGE}}/MANIFEST.json"))


def load(meta):
    if "file" in meta:
        return np.load(f"fixtures/{{STAGE}}/" + meta["file"])
    if "artifact" in meta:
        return f"fixtures/{{STAGE}}/artifacts/" + meta["artifact"]
    if "json" in meta:
        return json.load(open(f"fixtures/{{STAGE}}/artifacts/" + meta["json"]))
    if "weights" in meta:
        from safetensors.numpy import load_file
        every = load_file(f"fixtures/{{STAGE}}/artifacts/" + meta["weights"])
        p = meta["prefix"]
        return {{k[len(p):]: v for k, v in every.items() if k.startswith(p)}}
    return meta["value"]


for case, entry in manifest["cases"].items():
    inputs = {{k: load(m) for k, m in entry["inputs"].items()}}
    out = FUNCTIONS[TOLERANCES[case][0]](**inputs)
    atol, rtol = TOLERANCES[case][1:]
    if isinstance(out, tuple):  # returns: tuple, nested tuples flattened in the order of the function's keys
        flat, todo = [], list(out)
        while todo:
            item = todo.pop(0)
            todo[:0] = list(item) if isinstance(item, tuple) else []
            flat += [] if isinstance(item, tuple) else [item]
        out = dict(zip(KEYS[TOLERANCES[case][0]], flat))
    outs = out if isinstance(out, dict) else {{"": out}}
    for key, meta in entry["expected"].items():
        want = np.load(f"fixtures/{{STAGE}}/" + meta["file"])
        got = np.asarray(outs[key])
        assert got.shape == want.shape, case
        if want.dtype.kind == "U":
            assert str(got) == str(want), case
        else:
            assert np.allclose(got, want, atol=atol, rtol=rtol), case
'''


TIMED = '''
import statistics
import time

cases = [(TOLERANCES[c][0], {{k: load(m) for k, m in e["inputs"].items()}}) for c, e in manifest["cases"].items()]
passes = []
for _ in range({repeat}):
    t0 = time.perf_counter()
    for function, inputs in cases:
        FUNCTIONS[function](**inputs)
    passes.append(time.perf_counter() - t0)
print("calls_ms", 1000 * statistics.median(passes))
'''


def calls_script(root: Path, stage_id: str, repeat: int = 5) -> str:
    """A script printing the median time (ms) of one pass of the learner's calls over the stage's cases, inputs
    loaded once: the floor of any save-to-verdict time, which no grader can go below."""
    return minimal_script(root, stage_id) + TIMED.format(repeat=repeat)


def minimal_script(root: Path, stage_id: str) -> str:
    """The stage's minimal grading script, to be run from the course folder."""
    stage = load_course(root).stage(stage_id)
    tolerances = {c.id: (c.function, c.tolerance.atol, c.tolerance.rtol) for c in stage.cases}
    names = ", ".join(f.name for f in stage.functions)
    functions = ", ".join(f"{f.name!r}: {f.name}" for f in stage.functions)
    keys = {f.name: list(f.keys) for f in stage.functions}
    return MINIMAL.format(module=stage.module, names=names, stage=stage_id, tolerances=json.dumps(tolerances),
                          functions=functions, keys=json.dumps(keys))
