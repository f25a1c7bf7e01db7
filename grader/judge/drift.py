"""The drift locator: where a composed stage's failing case first parts from the reference.

A stage with `drift: <function>` in its stage.yaml has a reference function that lists the sites of its computation
in order: each names a point ("block 0 · attn"), the earlier stage and the learner's function that computes it there,
the reference's own inputs at that point and its output (an ordered list of dicts, see docs/authoring.md). When a
public case fails, the learner's own function for each site is called on the reference's inputs, in the sandbox like
any call, and compared at that stage's tolerance. The first site out of tolerance is named, with the known mistake
of that stage it matches. When a site fails although the sites inside it agree, the difference is in how its
function puts them together; when every site agrees, it is in the failing stage's own function. Nothing runs when
the case passes, and hidden cases are never located (their values would show through the sites).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures
from grader.course import stagecode
from grader.course.model import Course, Stage
from grader.errors import CourseError
from grader.judge import compare
from grader.records import Record
from grader.run import sandbox
from grader.run.protocol import Call, Limits


class Site(Record):
    """One point of the reference's computation, and the learner's function that should compute it."""

    name: str
    stage: Stage
    function: str
    inputs: dict[str, Any]  # float64, as the reference had them
    output: np.ndarray
    within: str | None = None  # the enclosing site ("block 0" for "block 0 · attn")


def sites(course: Course, stage: Stage, inputs: dict[str, Any]) -> list[Site]:
    """The stage's sites on this case, from its reference's `drift` function (checked: a course author's data).

    A handout has no reference.py: its drift.py holds the sites recorded on its public cases (instructor/recorded.py).
    With neither, there are no sites.
    """
    assert stage.drift is not None
    source = next((f for f in ("reference.py", "drift.py") if (stage.dir / f).exists()), None)
    if source is None:
        return []
    listing = stagecode.function(stage, source, stage.drift)
    out = []
    for i, d in enumerate(listing(**{k: fixtures.upcast(v) for k, v in inputs.items()})):
        where = f"{stage.dir / source}: {stage.drift}() item {i}"
        if not (isinstance(d, dict) and {"name", "stage", "function", "inputs", "output"} <= set(d)):
            raise CourseError(f"{where} must be a dict with name, stage, function, inputs and output")
        site_stage = course.stage(str(d["stage"]))
        if d["function"] not in [f.name for f in site_stage.functions]:
            raise CourseError(f"{where}: '{d['function']}' is not a function of stage '{site_stage.id}'")
        out.append(Site(str(d["name"]), site_stage, str(d["function"]), dict(d["inputs"]),
                        np.asarray(d["output"], dtype=np.float64), d.get("within")))
    return out


def locate(course: Course, stage: Stage, inputs: dict[str, Any], root: Path,
           cancel: Callable[[], bool] | None = None) -> str | None:
    """A sentence naming the first site where the learner's functions part from the reference, or None."""
    found = sites(course, stage, inputs)
    if not found:
        return None
    calls = [Call(case=str(i), module=s.stage.module, function=s.function, inputs=_as_float32(s.inputs))
             for i, s in enumerate(found)]
    limits = Limits(timeout=max(s.stage.timeout for s in found), memory_mb=stage.memory_mb)
    agreed: list[Site] = []
    for outcome in sandbox.run(root, calls, limits, cancel=cancel):
        site = found[int(outcome.case)]
        file = site.stage.student_file
        if outcome.status is not None:
            return (f"Drift: {site.name} is the first place that goes wrong: your {site.function} ({file}) "
                    f"{outcome.status.value.replace('_', ' ')} when given the reference's own input there.")
        assert outcome.value is not None
        tol = site.stage.tolerance
        comparison = compare.compare_outputs(outcome.value, {"": site.output}, tol)[0]
        if comparison.ok:
            agreed.append(site)
            continue
        return _differs(site, comparison, outcome.value, [a for a in agreed if a.within == site.name])
    if not agreed:
        return None
    return (f"Drift: at every one of its {len(agreed)} sites ({agreed[0].name} to {agreed[-1].name}) your own "
            f"functions agree with the reference when given its inputs: the difference is in "
            f"{', '.join(f.name for f in stage.functions)} itself ({stage.student_file}).")


def _differs(site: Site, comparison: Any, value: dict[str, np.ndarray], parts: list[Site]) -> str:
    what = (f"off by up to {comparison.max_abs_error:.2g} ({comparison.headroom:,.0f}x the {site.stage.id} "
            f"stage's tolerance)" if comparison.max_abs_error is not None and comparison.headroom is not None
            else comparison.problem or "different")
    text = (f"Drift: {site.name} is the first place your code parts from the reference: your {site.function} "
            f"({site.stage.student_file}), given the reference's own input there, is {what}.")
    if parts:
        names = ", ".join(sorted({p.function for p in parts}))
        text += f" Its parts ({names}) agree there, so look at how {site.function} puts them together."
    mistake = _mistake(site, value)
    if mistake is not None:
        text += f" It looks like {mistake.id}: {mistake.hint}"
    return text


def _mistake(site: Site, value: dict[str, np.ndarray]) -> Any:
    """The site stage's known mistake the learner's output there matches, if any."""
    if not (site.stage.dir / "decoys.py").exists():
        return None
    producers = []
    for decoy in site.stage.decoys:
        if decoy.target == site.function:
            fn = stagecode.function(site.stage, "decoys.py", decoy.function)
            producers.append((decoy, _producer(fn, site.inputs)))
    return compare.fingerprint(value, producers, site.stage.tolerance)


def _producer(fn: Callable[..., Any], inputs: dict[str, Any]) -> Callable[[], dict[str, np.ndarray]]:
    def produce() -> dict[str, np.ndarray]:
        with np.errstate(all="ignore"):
            return {"": np.asarray(fn(**_copied(inputs)), dtype=np.float64)}
    return produce


def _copied(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def _as_float32(value: Any) -> Any:
    """The reference's float64 site values as the learner's code sees data: float32 (integers as they are)."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.float32)
    if isinstance(value, dict):
        return {k: _as_float32(v) for k, v in value.items()}
    return value
