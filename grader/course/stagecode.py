"""Imports a stage's own trusted Python (reference.py, decoys.py, inputs.py, build.py) by path.

Course code is data that happens to be Python: it lives in stages/<id>/, never on sys.path, and is imported
under a private name so two stages may both have a reference.py. Code several stages share lives in the course's
common/ folder and is imported by name (`from common.<name> import f`): while a stage file runs, and only
then, `common` is that course's folder, so two courses in one process each see their own. Which common modules a
file uses is read from its imports (`sources`): they are part of its version, of the fixtures' code digest, and of
what a derived copy of the course ships (course/derived.py).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.util
import inspect
import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from grader import fsutil
from grader.course import layout
from grader.course.model import Stage
from grader.errors import CourseError

COMMON = layout.COMMON
_LOCK = threading.RLock()  # `common` in sys.modules belongs to one course at a time


def load(stage: Stage, filename: str) -> ModuleType:
    """The module stages/<id>/<filename>, imported once per process (again when it or a common module changes)."""
    path = stage.dir / filename
    try:
        st = path.stat()
    except OSError:
        raise CourseError(f"{path}: missing; stage '{stage.id}' needs it")
    # Keyed by path and version: two courses in one process, or an edited file, never share a stale module.
    stamp = f"{path.resolve()}:{st.st_mtime_ns}:{st.st_size}"
    for used in sources(stage, filename)[1:]:
        used_st = used.stat()
        stamp += f"|{used.resolve()}:{used_st.st_mtime_ns}:{used_st.st_size}"
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    name = f"{layout.STAGE_MODULE_PREFIX}{stage.id}_{path.stem}_{key}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _common(layout.course_root(stage.dir)):
            spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise CourseError(f"{path}: cannot import it: {type(e).__name__}: {e}") from e
    return module


@contextlib.contextmanager
def _common(root: Path) -> Iterator[None]:
    """`common` is this course's common/ folder while a stage file runs; whatever held the name before, after."""
    with _LOCK:
        mine = {n for n in sys.modules if n == COMMON or n.startswith(COMMON + ".")}
        saved = {n: sys.modules.pop(n) for n in mine}
        package = ModuleType(COMMON, f"the common/ folder of the course at {root}")
        package.__path__ = [str(layout.common_dir(root))]
        sys.modules[COMMON] = package
        try:
            yield
        finally:
            for n in [n for n in sys.modules if n == COMMON or n.startswith(COMMON + ".")]:
                del sys.modules[n]
            sys.modules.update(saved)


def sources(stage: Stage, filename: str) -> list[Path]:
    """stages/<id>/<filename>, then the common modules it imports (directly or through each other), by name."""
    path = stage.dir / filename
    return [path, *common_sources(layout.course_root(stage.dir), [path])]


def common_sources(root: Path, files: Iterable[Path]) -> list[Path]:
    """The modules of the course's common/ that these files import, directly or through each other, by name."""
    folder = layout.common_dir(root)
    known = _Scanned(root)
    todo = [(f, name) for f in files for name in known.imports(f)]
    found: dict[str, Path] = {}
    while todo:
        importer, name = todo.pop()
        if name in found:
            continue
        path = folder / f"{name}.py"
        if not path.is_file():
            raise CourseError(f"{importer}: imports {COMMON}.{name}, but there is no {path}")
        found[name] = path
        todo += [(path, n) for n in known.imports(path)]
    known.keep()
    return [found[n] for n in sorted(found)]


class _Scanned:
    """What files of a course import from common/, by the sha256 of their bytes, kept in .grader/cache/.

    Every grade checks its fixtures' code digest, which needs the common modules a stage's reference imports;
    parsing them (common/gpt2.py is the whole model) cost a cold grade 5-15 ms. A file's answer depends on its
    bytes only, so it is kept under their digest; a file that does not parse is never kept (its error is raised
    each time).
    """

    def __init__(self, root: Path) -> None:
        self.root, self.path = root, layout.imports_cache(root)
        self.kept: dict[str, list[str]] | None = None
        self.new = False

    def imports(self, path: Path) -> tuple[str, ...]:
        try:
            source = path.read_bytes()
        except OSError:
            return ()
        if COMMON.encode() not in source:
            return ()
        if self.kept is None:
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                self.kept = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self.kept = {}
        key = hashlib.sha256(source).hexdigest()
        names = self.kept.get(key)
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return tuple(names)
        found = _scan(source, str(path))
        self.kept[key], self.new = list(found), True
        return found

    def keep(self) -> None:
        if not self.new or self.kept is None:
            return
        try:
            layout.state(self.root)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.write_text(self.path, json.dumps(self.kept), durable=False)
        except OSError:
            pass  # a read-only course folder: scanned again next time


@functools.lru_cache(maxsize=256)
def _scan(source: bytes, filename: str) -> tuple[str, ...]:
    if COMMON.encode() not in source:
        return ()
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as e:
        raise CourseError(f"{filename}:{e.lineno}: cannot import it: SyntaxError: {e.msg}") from None
    top = {id(node) for node in tree.body}
    found: list[str] = []
    for node in ast.walk(tree):
        names = _imported(node)
        if not names:
            continue
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if id(node) not in top:
            raise CourseError(f"{where}: import {COMMON} modules at the top of the file, not inside a function or "
                              f"a block: `{COMMON}` is this course's folder only while the file is loaded")
        if "*" in names:
            raise CourseError(f"{where}: name the {COMMON} modules it imports (`from {COMMON}.<name> import f`), "
                              "not `*`")
        found += names
    return tuple(dict.fromkeys(found))


def _imported(node: ast.AST) -> list[str]:
    """The common modules one statement imports."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[1] for a in node.names if a.name.startswith(COMMON + ".")]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module == COMMON:
            return [a.name for a in node.names]  # from common import <name>
        if node.module.startswith(COMMON + "."):
            return [node.module.split(".")[1]]
    return []


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


def forget(stage_id: str | None = None) -> None:
    """Drop the imported stage modules (of one stage, or all): the next use imports them afresh."""
    prefix = layout.STAGE_MODULE_PREFIX + (f"{stage_id}_" if stage_id else "")
    for name in [m for m in sys.modules if m.startswith(prefix)]:
        del sys.modules[name]
