"""Loading a course: from the cache when nothing changed, else read and checked by course/validate.py.

A grade's start-up takes the cache path: the validated course, kept as JSON under .grader/cache/, is turned back into
the frozen objects of course/model.py without importing YAML or the validators.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grader import fsutil
from grader.course import layout
from grader.course.model import (
    FORMAT_VERSION,
    Case,
    Course,
    Decoy,
    External,
    Function,
    InputSpec,
    LatePolicy,
    Stage,
    Tolerance,
)
from grader.records import asdict


def load_course(root: Path | str = ".", cache: bool = True) -> Course:
    """Read and validate course.yaml and every stage it lists.

    With `cache`, a course validated before and unchanged since (the same YAML bytes, and the same files in
    every stage folder) is read back from .grader/cache/course.json without importing YAML, which is most of
    the grader's start-up work. Pass cache=False where the course folder is writable by untrusted code.
    """
    root = Path(root).resolve()
    if cache:
        key = _cache_key(root)
        cached = _read_cache(root, key) if key else None
        if cached is not None:
            return cached
    from grader.course import validate  # YAML and the checks: only when the cache cannot answer

    course = validate.load(root)
    if cache and key:
        _write_cache(root, key, course)
    return course


def _cache_key(root: Path) -> list[Any] | None:
    """Stats of every file and folder the loader's verdict depends on, or None if one cannot be read."""
    import hashlib

    from grader import __version__

    key: list[Any] = [__version__, FORMAT_VERSION]
    try:
        stage_dirs = sorted(p for p in (root / "stages").iterdir() if p.is_dir())
        common = layout.common_dir(root)  # `common: public:` names files there
        shared = sorted(common.glob("*.py")) if common.is_dir() else []
        for path in [root / "course.yaml", *(q for d in stage_dirs for q in sorted(d.iterdir())), *shared]:
            if path.suffix == ".yaml":  # hashed: an edit within the file system's mtime granularity still counts
                key.append([str(path), hashlib.sha256(path.read_bytes()).hexdigest()])
            else:
                st = path.stat()
                key.append([str(path), st.st_mtime_ns, st.st_size])
    except OSError:
        return None
    return key


def _read_cache(root: Path, key: list[Any]) -> Course | None:
    try:
        data = json.loads(layout.course_cache(root).read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        return _course_from(root, data["course"])
    except Exception:  # a missing, stale or damaged cache is simply rebuilt  # noqa: BLE001
        return None


def _write_cache(root: Path, key: list[Any], course: Course) -> None:
    cache = layout.course_cache(root)
    try:
        layout.state(root)
        cache.parent.mkdir(parents=True, exist_ok=True)
        body = {k: v for k, v in asdict(course).items() if k != "root"}
        fsutil.write_text(cache, json.dumps({"key": key, "course": body}, default=str), durable=False)
    except OSError:
        pass  # a read-only course folder: no cache, same verdicts


def _course_from(root: Path, d: dict[str, Any]) -> Course:
    def tol(t: dict[str, Any]) -> Tolerance:
        return Tolerance(**t)

    stages = []
    for s in d["stages"]:
        stages.append(Stage(**{
            **s, "dir": Path(s["dir"]), "tolerance": tol(s["tolerance"]),
            "functions": tuple(Function(**{**f, "params": tuple(f["params"]), "keys": tuple(f["keys"]),
                                           "observe": tuple(f["observe"])})
                               for f in s["functions"]),
            "cases": tuple(Case(**{**c, "tolerance": tol(c["tolerance"]), "inputs": tuple(
                InputSpec.from_definition({"name": i["name"], "kind": i["kind"], **i["source"]}) for i in c["inputs"])})
                for c in s["cases"]),
            "decoys": tuple(Decoy(**x) for x in s["decoys"]), "depends_on": tuple(s["depends_on"]),
            "hints": tuple(s["hints"]),
            "external": External(tuple(s["external"]["artifacts"]), s["external"]["open"]) if s.get("external")
            else None}))
    return Course(**{**d, "root": root, "stages": tuple(stages), "late": LatePolicy(**d.get("late", {})),
                     "common_public": tuple(d.get("common_public", ()))})


