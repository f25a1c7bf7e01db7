"""Imports a stage's own trusted Python (reference.py, decoys.py, inputs.py, build.py) by path.

Course code is data that happens to be Python: it lives in stages/<id>/, never on sys.path, and is imported
under a private name so two stages may both have a reference.py.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from grader.course import layout
from grader.course.model import Stage
from grader.errors import CourseError


def load(stage: Stage, filename: str) -> ModuleType:
    """The module stages/<id>/<filename>, imported once per process."""
    path = stage.dir / filename
    try:
        st = path.stat()
    except OSError:
        raise CourseError(f"{path}: missing; stage '{stage.id}' needs it")
    # Keyed by path and version: two courses in one process, or an edited file, never share a stale module.
    key = hashlib.sha256(f"{path.resolve()}:{st.st_mtime_ns}:{st.st_size}".encode()).hexdigest()[:16]
    name = f"{layout.STAGE_MODULE_PREFIX}{stage.id}_{path.stem}_{key}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise CourseError(f"{path}: cannot import it: {type(e).__name__}: {e}") from e
    return module


def function(stage: Stage, filename: str, name: str, params: tuple[str, ...] | None = None) -> Callable[..., Any]:
    """A named function of a stage file, checked to take exactly `params` when given."""
    module = load(stage, filename)
    fn = getattr(module, name, None)
    if not callable(fn):
        raise CourseError(f"{stage.dir / filename}: no function '{name}' (named in {stage.file})")
    if params is not None:
        got = tuple(inspect.signature(fn).parameters)
        if got != params:
            raise CourseError(f"{stage.dir / filename}: {name}({', '.join(got)}) must take the parameters "
                              f"({', '.join(params)}) declared in {stage.file}")
    return fn  # type: ignore[no-any-return]  # callable() checked it


def reference(stage: Stage, function_name: str) -> Callable[..., Any]:
    """The reference implementation of one of the stage's functions."""
    f = stage.function(function_name)
    return function(stage, "reference.py", f.reference, f.params)


def as_learner_file(stage: Stage) -> str:
    """The stage's reference.py as a learner's file: its text, and the learner's names for its functions."""
    source = (stage.dir / "reference.py").read_text(encoding="utf-8")
    names = [f"{f.name} = {f.reference}\n" for f in stage.functions if f.name != f.reference]
    return source + ("\n\n# the learner's names for the reference's functions\n" if names else "") + "".join(names)


def forget(stage_id: str | None = None) -> None:
    """Drop the imported stage modules (of one stage, or all): the next use imports them afresh."""
    prefix = layout.STAGE_MODULE_PREFIX + (f"{stage_id}_" if stage_id else "")
    for name in [m for m in sys.modules if m.startswith(prefix)]:
        del sys.modules[name]
