"""Packages a learner's code imports that a grade for marks will not have: said while they still work self-paced.

A graded run executes the submission in a jail that offers the standard library and the course's runtime
dependencies only (grader/run/jail/packages.py: numpy, safetensors, regex, ...). A stage written with torch passes
on the learner's machine and scores 0 when graded, "No module named 'torch'" (red team round 4). The learner
should hear that while they work, not from their grade: each self-paced grade reads the imports of the stage's file
and of the learner's modules it reaches (parsed, never imported) and names the ones a jail lacks that are installed
here (one that is not fails the grade already, with Python's own message).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import sys
from pathlib import Path

from grader.course.model import Stage
from grader.judge import loops
from grader.run.jail import packages


def notes(root: Path, stage: Stage) -> list[str]:
    """One note per learner file that imports a package graded runs do not offer."""
    out = []
    for path, imports in _learner_files(root, stage):
        if imports <= _surely_offered():  # the usual file: said without reading installed metadata (~75 ms cold)
            continue
        missing = sorted(m for m in imports if m not in _offered() and _installed(m))
        if missing:
            rel = path.relative_to(root).as_posix()
            out.append(f"{rel} imports {', '.join(missing)}, which a grade for marks does not offer: graded runs "
                       f"have the standard library and the course's packages only ({_listed()}), so this file "
                       f"would fail there. Write it with those.")
    return out


def preload(root: Path, stage: Stage) -> None:
    """Import here the course's packages the learner's files import (regex, safetensors, ...), not yet loaded.

    Self-paced, each grade forks a child of this process: a package loaded here is loaded there, so a watch
    session imports it once instead of on every save (`regex` was 17 ms of each tokenizer save). Only the course's
    runtime dependencies, found outside the course folder: never a learner's file, nor a module of the standard
    library (some act when imported).
    """
    wanted = _course_packages_by_name() - sys.modules.keys()
    for _, imports in _learner_files(root, stage) if wanted else []:
        for name in sorted(imports & wanted):
            try:
                spec = importlib.util.find_spec(name)
                if spec is not None and spec.origin and not Path(spec.origin).resolve().is_relative_to(root.resolve()):
                    importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the learner's child imports it again, and says what is wrong
                continue


def _learner_files(root: Path, stage: Stage) -> list[tuple[Path, frozenset[str]]]:
    """The stage's learner file and the learner's modules it reaches, each with the packages it imports."""
    out = []
    for module in [stage.module, *sorted(loops.reachable(root, stage.module))]:
        path = root / (module.replace(".", "/") + ".py")
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((path, _imports(str(path), st.st_mtime_ns, st.st_size)))
    return out


@functools.cache
def _course_packages_by_name() -> frozenset[str]:
    """The course's runtime dependencies whose import name is their distribution's (numpy, regex, ...)."""
    return frozenset(packages.name(r) for r in packages.FALLBACK)


@functools.lru_cache(maxsize=64)
def _imports(path: str, _mtime: int, _size: int) -> frozenset[str]:
    """The top-level packages a file imports, at any depth of it (relative imports are the learner's own)."""
    try:
        tree = ast.parse(Path(path).read_bytes(), path)
    except (OSError, SyntaxError, ValueError):
        return frozenset()  # the grade itself says what is wrong with the file
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return frozenset(found)


@functools.cache
def _course_packages() -> frozenset[str]:
    """The importable names of the packages graded runs offer (the course's runtime dependencies and theirs)."""
    _, paths = packages.installed(tuple(packages.requirements()))
    names = set()
    for path in paths:
        base = os.path.basename(path)
        if not base.endswith((".dist-info", ".libs", ".egg-info")):
            names.add(base.split(".")[0])
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _listed() -> str:
    return ", ".join(sorted(packages.name(r) for r in packages.requirements()))


@functools.cache
def _surely_offered() -> frozenset[str]:
    """What every graded run offers, known without reading metadata.

    The standard library, the learner's package, and the course's runtime dependencies whose import name is their
    distribution's (numpy, regex, safetensors, ...).
    """
    return frozenset(sys.stdlib_module_names) | {"student", "__future__"} | _course_packages_by_name()


@functools.cache
def _offered() -> frozenset[str]:
    return frozenset(sys.stdlib_module_names) | _course_packages() | {"student", "__future__"}
