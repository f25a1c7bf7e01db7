"""What a handout holds in place of reference code: recorded outputs on its own cases, looked up by input digest.

The instructor's decoys.py is a step away from the solution, and a stage's reference.py is the solution: neither
ships. A handout gets each decoy's output on each of its cases (a generated decoys.py reads them back) and, for a
stage with a drift locator, the reference's values at every site of each public case (a generated drift.py). Arrays
are stored once by content (a block's weights recur at every case), under stages/<id>/recorded/.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures
from grader.course import Course, Stage, stagecode

RECORDED = "recorded"  # stages/<id>/recorded/: decoy outputs and drift sites on the copy's cases


def input_key(inputs: dict[str, Any]) -> str:
    """A digest of a case's inputs (arrays by dtype, shape and bytes; a file by name) to look recordings up."""
    h = hashlib.sha256()
    _digest(h, inputs)
    return h.hexdigest()


def _digest(h: Any, value: Any) -> None:
    if isinstance(value, dict):  # a model's parameters: every array's bytes, not numpy's abridged repr
        for name in sorted(value):
            h.update(str(name).encode() + b"\0")
            _digest(h, value[name])
            h.update(b"\0")
    elif isinstance(value, np.ndarray):
        h.update(f"{value.dtype}{value.shape}".encode() + np.ascontiguousarray(value).tobytes())
    elif isinstance(value, str) and os.path.isfile(value):
        h.update(b"file:" + Path(value).name.encode())
    else:
        h.update(repr(value).encode())


def recorded(decoys_file: str, function: str, **inputs: Any) -> Any:
    """The recorded output of a decoy on these inputs (called by a derived copy's generated decoys.py)."""
    folder = Path(decoys_file).parent / RECORDED
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    files = index[function][input_key(inputs)]  # KeyError: never recorded, so this decoy does not match
    arrays = {k: np.load(folder / f, allow_pickle=False) for k, f in files.items()}
    return arrays[""] if set(arrays) == {""} else arrays


_DECOYS_PY = '''"""Recorded outputs of this stage's known mistakes (written by `python -m grader handout`; do not edit).

The instructor's decoys.py is not shipped: each mistake is a step away from the solution. The grader compares
your output with these recordings, made on this copy's cases, to name a mistake.
"""

from grader.instructor.recorded import recorded
{functions}'''


def record_decoys(course: Course, stage: Stage, cases: list[Any], dest: Path) -> None:
    """Each decoy's output on each case, and the decoys.py that reads them back."""
    folder = dest / RECORDED
    folder.mkdir(parents=True, exist_ok=True)
    source = fixtures.StageFixtures(course, stage, tuple(cases))
    index: dict[str, dict[str, dict[str, str]]] = {}
    defs = []
    for decoy in stage.decoys:
        params = stage.function(decoy.target).params
        if decoy.function not in index:
            defs.append(f"\n\ndef {decoy.function}({', '.join(params)}):\n"
                        f"    return recorded(__file__, {decoy.function!r}, "
                        f"{', '.join(f'{p}={p}' for p in params)})\n")
        table = index.setdefault(decoy.function, {})
        fn = stagecode.function(stage, "decoys.py", decoy.function, params)
        for case in (c for c in cases if c.function == decoy.target):
            inputs = {k: fixtures.upcast(v) for k, v in source.inputs(case).items()}
            try:
                with np.errstate(all="ignore"):
                    outputs = fixtures.outputs_of(stage, case, fn(**inputs))
            except Exception:  # noqa: BLE001 - a decoy that cannot run on a case is not recorded for it
                continue
            table[input_key(inputs)] = {key: _store(folder, array) for key, array in outputs.items()}
    (folder / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (dest / "decoys.py").write_text(_DECOYS_PY.format(functions="".join(defs)), encoding="utf-8")


def _store(folder: Path, array: np.ndarray) -> str:
    """An array written once under its content's digest; its file name."""
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    name = hashlib.sha256(buf.getvalue()).hexdigest()[:32] + ".npy"
    if not (folder / name).exists():
        (folder / name).write_bytes(buf.getvalue())
    return name


def _stored(folder: Path, value: Any) -> Any:
    """A site's input as JSON: arrays (and dicts of them) by file, plain values as they are.

    A float64 array whose every value is a float32 (a model's weights, upcast) is stored as float32 and read back
    as the same float64 bytes: half the size, nothing lost.
    """
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if array.dtype == np.float64 and np.array_equal(array.astype(np.float32).astype(np.float64), array):
            return {"npy": _store(folder, array.astype(np.float32)), "float64": True}
        return {"npy": _store(folder, array)}
    if isinstance(value, dict):
        return {"dict": {str(k): _stored(folder, v) for k, v in value.items()}}
    return {"value": value}


def _loaded(folder: Path, spec: dict[str, Any]) -> Any:
    if "npy" in spec:
        array = np.load(folder / spec["npy"], allow_pickle=False)
        return array.astype(np.float64) if spec.get("float64") else array
    if "dict" in spec:
        return {k: _loaded(folder, v) for k, v in spec["dict"].items()}
    return spec["value"]


_DRIFT_PY = '''"""The reference's values at each site of this copy's public cases (written by the handout command).

The drift locator calls your own functions on these values to find where a failing case first goes wrong; the
reference code that made them is not shipped.
"""

from grader.instructor.recorded import recorded_sites


def {name}(**inputs):
    return recorded_sites(__file__, inputs)
'''


def record_sites(course: Course, stage: Stage, cases: list[Any], dest: Path) -> None:
    """The drift locator's sites (stage.drift in reference.py) on each case, and the drift.py that reads them."""
    assert stage.drift is not None
    folder = dest / RECORDED
    folder.mkdir(exist_ok=True)
    source = fixtures.StageFixtures(course, stage, tuple(cases))
    listing = stagecode.function(stage, "reference.py", stage.drift)
    index: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        inputs = {k: fixtures.upcast(v) for k, v in source.inputs(case).items()}
        with np.errstate(all="ignore"):
            found = list(listing(**inputs))
        index[input_key(inputs)] = [
            {**{k: v for k, v in site.items() if k not in ("inputs", "output")},
             "inputs": {k: _stored(folder, v) for k, v in site["inputs"].items()},
             "output": _stored(folder, np.asarray(site["output"], dtype=np.float64))} for site in found]
        for site in found:
            _record_site_decoys(course, course.stage(str(site["stage"])), str(site["function"]), site["inputs"],
                                dest.parent)
    (folder / "sites.json").write_text(json.dumps(index, sort_keys=True) + "\n", encoding="utf-8")
    (dest / "drift.py").write_text(_DRIFT_PY.format(name=stage.drift), encoding="utf-8")


def _record_site_decoys(course: Course, stage: Stage, function: str, inputs: dict[str, Any], stages: Path) -> None:
    """The site's stage's decoys on the site's inputs, added to that stage's recordings: the mistake is named."""
    decoys = [d for d in stage.decoys if d.target == function]
    folder = stages / stage.id / RECORDED
    if not decoys or not (folder / "index.json").exists():
        return
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    key = input_key(inputs)
    for decoy in decoys:
        fn = stagecode.function(stage, "decoys.py", decoy.function)
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(fn(**{k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()}),
                                 dtype=np.float64)
        except Exception:  # noqa: BLE001 - a decoy that cannot run here is not recorded here
            continue
        # float32: a mistake is matched at the site stage's tolerance (1e-5 and up), far above float32's rounding
        index.setdefault(decoy.function, {})[key] = {"": _store(folder, out.astype(np.float32))}
    (folder / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def recorded_sites(drift_file: str, inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded sites of the case with these inputs (called by a derived copy's generated drift.py)."""
    folder = Path(drift_file).parent / RECORDED
    index = json.loads((folder / "sites.json").read_text(encoding="utf-8"))
    found = index.get(input_key(inputs), [])  # not a recorded case: nothing to locate against
    return [{**site, "inputs": {k: _loaded(folder, v) for k, v in site["inputs"].items()},
             "output": _loaded(folder, site["output"])} for site in found]
