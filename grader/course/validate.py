"""course.yaml and stages/<id>/stage.yaml, read and checked: the loader's work on a cache miss.

Everything is validated once, here. An unknown key (`atoll:`), a wrong type, a negative tolerance, a duplicate
id, a missing file or a case whose inputs do not match its function's parameters is refused with the file, the
line and the key. Nothing past this module sees a raw dict.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from grader.course import functions as learner_functions
from grader.course import inputs, layout
from grader.course.model import (
    FORMAT_VERSION,
    UPSTREAM_POLICIES,
    Artifact,
    Case,
    Course,
    Decoy,
    External,
    Function,
    LatePolicy,
    Stage,
    Tolerance,
    Weights,
)
from grader.course.where import Where, describe, line_of, strings
from grader.course.yamlio import YList, YMap, read_yaml
from grader.errors import CourseError

MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _tolerance(w: Where, m: Any, what: str) -> Tolerance:
    w.fields(m, what, {"atol": float, "rtol": float}, {})
    for key in ("atol", "rtol"):
        if not math.isfinite(m[key]) or m[key] < 0:
            raise w.fail(line_of(m, key), f"'{key}' in {what} must be a finite number >= 0, got {m[key]}")
    return Tolerance(float(m["atol"]), float(m["rtol"]))


def _unique(w: Where, items: list[Any], ids: list[str], what: str) -> None:
    seen: dict[str, int] = {}
    for item, ident in zip(items, ids, strict=True):
        if ident in seen:
            raise w.fail(line_of(item, "id"), f"duplicate {what} id '{ident}' (also the {what} on line {seen[ident]})")
        seen[ident] = line_of(item, "id")


MAX_TIMEOUT, MAX_MEMORY_MB = 3600.0, 1 << 20  # an hour a call; 1 TiB
LIMITS = (f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}] and memory_mb a whole number of MiB "
          f"in (0, {MAX_MEMORY_MB}]")


def _limits_ok(timeout: float, memory_mb: int) -> bool:
    return math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT and 0 < memory_mb <= MAX_MEMORY_MB


def load(root: Path) -> Course:
    """Read and check the course at `root` (course.yaml and every stage it lists)."""
    path = root / "course.yaml"
    if not path.exists():
        raise CourseError(f"{path}: no course here. Run the grader from the course folder, or pass --root DIR.")
    w = Where(path)
    doc = read_yaml(path)
    w.fields(doc, "course.yaml", {"format_version": int, "title": str, "stages": list},
             {"defaults": dict, "upstream": str, "late": dict, "common": dict})
    if doc["format_version"] != FORMAT_VERSION:
        newer = doc["format_version"] > FORMAT_VERSION
        fix = "upgrade the grader (pip install -U gpt2-course)" if newer else "update course.yaml to the new format"
        raise w.fail(line_of(doc, "format_version"), f"format_version {doc['format_version']} is not supported "
                     f"(this grader reads version {FORMAT_VERSION}): {fix}")
    defaults = w.fields(doc.get("defaults", YMap()), "defaults", {}, {"timeout": float, "memory_mb": int})
    timeout = float(defaults.get("timeout", 10.0))
    memory_mb = int(defaults.get("memory_mb", 4096))
    if not _limits_ok(timeout, memory_mb):
        raise w.fail(defaults.line, f"defaults: {LIMITS}")
    entries = doc["stages"]
    if not entries:
        raise w.fail(line_of(doc, "stages"), "the course lists no stages")
    stages: list[Stage] = []
    for i, entry in enumerate(entries):
        line = entries.item_lines[i]
        if isinstance(entry, str):
            entry = YMap(id=entry)
            entry.line, entry.key_lines = line, {"id": line}
        w.fields(entry, "a stage entry", {"id": str}, {"points": float}, line)
        if entry["id"] in [s.id for s in stages]:
            raise w.fail(line, f"stage '{entry['id']}' is listed twice")
        stage = _load_stage(root, entry["id"], line, w, timeout, memory_mb, entry.get("points"), stages)
        stages.append(stage)
    upstream = doc.get("upstream", "reference")
    if upstream not in UPSTREAM_POLICIES:
        raise w.fail(line_of(doc, "upstream"), f"upstream must be 'reference' (grade each stage with the reference "
                     f"of the stages it depends on) or 'own' (with the learner's own), got '{upstream}'")
    return Course(root=root, title=doc["title"], stages=tuple(stages), timeout=timeout, memory_mb=memory_mb,
                  upstream=upstream, late=_late(w, doc.get("late", YMap())),
                  common_public=_common(w, doc.get("common", YMap()), root, derived=any(s.derived for s in stages)))


def _common(w: Where, m: Any, root: Path, derived: bool) -> tuple[str, ...]:
    """`common:`: the modules of common/ that learners may read (`public:`), each a file in the author's copy."""
    common = w.fields(m, "common", {}, {"public": list})
    public = common.get("public", YList())
    for i, name in enumerate(public):
        line = public.item_lines[i]
        if not (isinstance(name, str) and MODULE.match(name)):
            raise w.fail(line, f"common.public lists module names (name for common/<name>.py), got {describe(name)}")
        # a derived copy (handout, autograder) holds only the modules its files import
        if not derived and not (layout.common_dir(root) / f"{name}.py").is_file():
            raise w.fail(line, f"common.public lists '{name}', but there is no {layout.common_dir(root) / name}.py")
    return tuple(dict.fromkeys(public))


def _late(w: Where, m: Any) -> LatePolicy:
    """`late:`: grace_minutes, per_day (a share of the points, 0 to 1), max_days."""
    late = w.fields(m, "late", {}, {"grace_minutes": float, "per_day": float, "max_days": float})
    grace, per_day, max_days = late.get("grace_minutes", 0.0), late.get("per_day", 0.0), late.get("max_days")
    if not (math.isfinite(grace) and grace >= 0):
        raise w.fail(line_of(late, "grace_minutes"), f"late.grace_minutes must be minutes >= 0, got {grace}")
    if not (math.isfinite(per_day) and 0 <= per_day <= 1):
        raise w.fail(line_of(late, "per_day"), f"late.per_day is the share of the points taken off per day late, "
                     f"from 0 to 1 (0.1 = 10%), got {per_day}")
    if max_days is not None and not (math.isfinite(max_days) and max_days >= 0):
        raise w.fail(line_of(late, "max_days"), f"late.max_days must be a number of days >= 0, got {max_days}")
    return LatePolicy(float(grace), float(per_day), None if max_days is None else float(max_days))


def _load_stage(root: Path, stage_id: str, line: int, cw: Where, timeout: float, memory_mb: int,
                points: float | None, earlier: list[Stage]) -> Stage:
    sdir = root / "stages" / stage_id
    if not (sdir / "stage.yaml").exists():
        raise cw.fail(line, f"stage '{stage_id}' has no definition: expected {sdir / 'stage.yaml'}")
    w = Where(sdir / "stage.yaml")
    m = w.fields(read_yaml(w.path), "stage.yaml",
                 {"id": str, "title": str, "tolerance": dict, "functions": dict, "cases": list},
                 {"summary": str, "points": float, "timeout": float, "memory_mb": int, "depends_on": list,
                  "hints": list, "decoys": list, "instructions": str, "artifacts": str, "hidden_cases": int,
                  "external": dict, "drift": str, "demo": str})
    if m["id"] != stage_id:
        raise w.fail(line_of(m, "id"), f"id '{m['id']}' does not match its folder and course.yaml entry '{stage_id}'")
    tol = _tolerance(w, m["tolerance"], "tolerance")
    functions = learner_functions.observed(w, m, sdir, learner_functions.functions(w, m["functions"]), earlier)
    stage_timeout = float(m.get("timeout", timeout))
    stage_memory = int(m.get("memory_mb", memory_mb))
    if not _limits_ok(stage_timeout, stage_memory):
        raise w.fail(m.line, LIMITS)
    derived = "hidden_cases" in m  # written by `python -m grader handout`: no reference.py in this copy
    if m.get("hidden_cases", 0) < 0:
        raise w.fail(line_of(m, "hidden_cases"), "hidden_cases must be >= 0")
    for key, filename in (("instructions", m.get("instructions", "instructions.md")), ("reference", "reference.py")):
        if not (sdir / filename).exists() and not (derived and key == "reference"):
            raise w.fail(line_of(m, key), f"missing file {sdir / filename}")
    depends = tuple(strings(w, m, "depends_on"))
    for dep in depends:
        if dep not in [s.id for s in earlier]:
            raise w.fail(line_of(m, "depends_on"), f"depends_on '{dep}' must be a stage listed before '{stage_id}' "
                         "in course.yaml")
    decoys = _decoys(w, m, functions)
    if decoys and not (sdir / "decoys.py").exists():
        raise w.fail(line_of(m, "decoys"), f"decoys are listed but {sdir / 'decoys.py'} is missing")
    cases = _cases(w, m, functions, tol)
    if any(s.kind == "generate" for c in cases for s in c.inputs) and not (sdir / "inputs.py").exists():
        raise w.fail(line_of(m, "cases"), f"a case uses 'generate' but {sdir / 'inputs.py'} is missing")
    external = _external(w, m, sdir, cases)
    if "artifacts" in m and not (sdir / "build.py").exists():
        raise w.fail(line_of(m, "artifacts"), f"'artifacts' names a builder but {sdir / 'build.py'} is missing")
    if any(s.kind in ("artifact", "weights", "json") for c in cases for s in c.inputs) and "artifacts" not in m:
        raise w.fail(line_of(m, "cases"), "a case uses 'artifact', 'weights' or 'json' but the stage has no "
                     "'artifacts' builder")
    modules = {f.module for f in functions}
    if len(modules) > 1:
        raise w.fail(line_of(m, "functions"), f"all functions of a stage live in one learner file, got "
                     f"{sorted(modules)}")
    stage_points = float(points if points is not None else m.get("points", 1.0))
    if not (math.isfinite(stage_points) and stage_points >= 0):
        raise w.fail(line_of(m, "points"), "points must be a finite number >= 0")
    return Stage(id=stage_id, title=m["title"], dir=sdir, summary=m.get("summary", ""), functions=functions,
                 tolerance=tol, cases=cases, points=stage_points, timeout=stage_timeout, memory_mb=stage_memory,
                 depends_on=depends, hints=tuple(strings(w, m, "hints")), decoys=decoys,
                 instructions=m.get("instructions", "instructions.md"), artifacts=m.get("artifacts"),
                 hidden_count=int(m.get("hidden_cases", 0)), derived=derived, external=external,
                 drift=m.get("drift"), demo=m.get("demo"))


def _external(w: Where, m: YMap, sdir: Path, cases: tuple[Case, ...]) -> External | None:
    """`external:`: the artifact a learner's own file stands in for, and the checker in external.py."""
    if "external" not in m:
        return None
    e = w.fields(m["external"], "external", {"artifacts": list, "open": str}, {})
    used = {s.source.artifact for c in cases for s in c.inputs if isinstance(s.source, Artifact)}
    used |= {s.source.weights for c in cases for s in c.inputs if isinstance(s.source, Weights)}
    names = strings(w, e, "artifacts")
    if not names or not set(names) <= used:
        raise w.fail(line_of(e, "artifacts"), f"external.artifacts must name artifacts the cases read "
                     f"({', '.join(sorted(used)) or 'none'}), got {names}")
    if not (sdir / "external.py").exists():
        raise w.fail(line_of(e, "open"), f"external.open names a function but {sdir / 'external.py'} is missing")
    return External(artifacts=tuple(names), open=e["open"])


def _decoys(w: Where, m: YMap, functions: tuple[Function, ...]) -> tuple[Decoy, ...]:
    items = m.get("decoys", YList())
    out = []
    for i, d in enumerate(items):
        w.fields(d, "a decoy", {"id": str, "function": str, "hint": str}, {"for": str}, items.item_lines[i])
        target = _target(w, d, "for", functions)
        out.append(Decoy(id=d["id"], function=d["function"], target=target, hint=d["hint"].strip()))
    _unique(w, list(items), [d.id for d in out], "decoy")
    return tuple(out)


def _target(w: Where, m: YMap, key: str, functions: tuple[Function, ...]) -> str:
    names = [f.name for f in functions]
    if key not in m:
        if len(names) > 1:
            raise w.fail(m.line, f"say which function with '{key}:' (one of {', '.join(names)})")
        return names[0]
    if m[key] not in names:
        raise w.fail(line_of(m, key), f"'{m[key]}' is not a function of this stage ({', '.join(names)})")
    return str(m[key])


def _cases(w: Where, m: YMap, functions: tuple[Function, ...], tol: Tolerance) -> tuple[Case, ...]:
    items = m["cases"]
    if not items:
        raise w.fail(line_of(m, "cases"), "the stage has no cases: add at least one under 'cases:'")
    out = []
    for i, c in enumerate(items):
        w.fields(c, "a case", {"id": str, "inputs": dict},
                 {"function": str, "visibility": str, "weight": float, "tolerance": dict}, items.item_lines[i])
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", c["id"]) or c["id"] in (layout.ARTIFACTS, layout.MANIFEST):
            raise w.fail(line_of(c, "id"), f"case id '{c['id']}' must start with a letter, digit or '_' and hold only "
                         "those, '-' and '.' (and not be 'artifacts' or 'MANIFEST.json', the fixture folder's own)")
        fn = next(f for f in functions if f.name == _target(w, c, "function", functions))
        given, wanted = list(c["inputs"]), list(fn.params)
        if set(given) != set(wanted):
            missing, extra = sorted(set(wanted) - set(given)), sorted(set(given) - set(wanted))
            raise w.fail(line_of(c, "inputs"), f"case '{c['id']}': inputs must be exactly the parameters of "
                         f"{fn.name}({', '.join(wanted)}); missing {missing or 'none'}, unexpected {extra or 'none'}")
        case_inputs = tuple(inputs.parse(w, c["inputs"], name) for name in wanted)
        visibility = c.get("visibility", "public")
        if visibility not in ("public", "hidden"):
            raise w.fail(line_of(c, "visibility"), f"visibility must be 'public' or 'hidden', got '{visibility}'")
        weight = float(c.get("weight", 1.0))
        if not (math.isfinite(weight) and weight > 0):
            raise w.fail(line_of(c, "weight"), "weight must be a finite number > 0")
        case_tol = _tolerance(w, c["tolerance"], f"case '{c['id']}' tolerance") if "tolerance" in c else tol
        out.append(Case(id=c["id"], function=fn.name, inputs=case_inputs, tolerance=case_tol,
                        hidden=visibility == "hidden", weight=weight, line=items.item_lines[i]))
    _unique(w, list(items), [c.id for c in out], "case")
    return tuple(out)
