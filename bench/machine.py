"""What each bench sets up first: the grader as it runs on a learner's or an instructor's machine."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def usual_bytecode() -> None:
    """Python's bytecode cache, as most machines have it.

    This project's machines set PYTHONDONTWRITEBYTECODE; without the cache every grader process (and, graded, every
    jail) compiles the grader's ~45 modules from source, about 0.1 s a run that no learner's machine pays.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(str(ROOT / "grader"), quiet=1)
