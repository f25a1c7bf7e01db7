"""Which modules of grader/ a test run ran: `python -m pytest -m "not slow" --modules-run` (tests/conftest.py).

A module has run when one of its functions was called (a module with no function: when it was imported), in the
pytest process, in a process it forked (the sandbox's child: it ends with os._exit, so the record is written just
before) or in a Python it started with the environment (the CLI in a subprocess: its sitecustomize is this file). The
jail's resident process starts with an empty environment, where nothing can be recorded: grader/run/jail/inside.py,
which runs only there, counts as run when grader/run/jail/spawn.py (which starts it) ran. A check of the fast loop,
not a coverage measure: one call in a module is enough.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import sys
import threading
import uuid
from pathlib import Path
from types import FrameType
from typing import Any

GRADER = Path(__file__).resolve().parent.parent / "grader"
ENV = "GRADER_MODULES_RUN"  # the folder each process writes its record into
RUN_BY = {"run/jail/inside.py": "run/jail/spawn.py"}  # runs only in the jail; counted when what starts it ran
_prefix = str(GRADER) + os.sep
_called: set[str] = set()
_imported: set[str] = set()


def _trace(frame: FrameType, event: str, arg: Any, prefix: str = _prefix, called: set[str] = _called,
           imported: set[str] = _imported) -> None:
    filename = frame.f_code.co_filename  # (the defaults: still there while the interpreter shuts down)
    if filename.startswith(prefix):
        (imported if frame.f_code.co_name == "<module>" else called).add(filename)
    return None  # no line events: only the first frame of each call is seen


def dump() -> None:
    folder = os.environ.get(ENV)
    if folder and (_called or _imported):
        try:
            name = Path(folder, f"{os.getpid()}-{uuid.uuid4().hex}")
            name.with_suffix(".part").write_text(json.dumps({"called": sorted(_called), "imported": sorted(_imported)}))
            name.with_suffix(".part").replace(name.with_suffix(".json"))  # whole, or not at all
        except OSError:
            pass  # a confined child may not write (a file size cap, a read-only folder): what it ran is not counted


def _after_fork() -> None:
    real_exit = os._exit

    def _exit(code: int) -> None:
        dump()
        real_exit(code)

    os._exit = _exit  # type: ignore[assignment]  # the sandbox's child never returns: it ends here


def start() -> None:
    """Record from now on, in this process, its threads, its forks, and at its exit."""
    sys.settrace(_trace)
    threading.settrace(_trace)
    os.register_at_fork(after_in_child=_after_fork)
    atexit.register(dump)


def defines_functions(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(tree))


def not_run(folder: Path) -> tuple[list[str], int]:
    """The modules of grader/ that did not run, by every record in folder and this process, and how many there are."""
    called, imported = set(_called), set(_imported)
    imported.update(getattr(m, "__file__", None) or "" for m in list(sys.modules.values()))  # before start()
    for record in folder.glob("*.json"):
        data = json.loads(record.read_text())
        called.update(data["called"])
        imported.update(data["imported"])
    called.update(str(GRADER / module) for module, starter in RUN_BY.items() if str(GRADER / starter) in called)
    modules = sorted(GRADER.rglob("*.py"))
    missing = [str(p.relative_to(GRADER.parent)) for p in modules
               if str(p) not in (called if defines_functions(p) else imported)]
    return missing, len(modules)


def install(folder: Path) -> None:
    """Record in this process and in every Python it starts with its environment; the records go to folder."""
    (folder / "sitecustomize.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('_modules_run', {str(Path(__file__).resolve())!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "module.start()\n")
    os.environ[ENV] = str(folder)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(folder), os.environ.get("PYTHONPATH"))))
    start()
