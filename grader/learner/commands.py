"""The learner's commands besides grading: reset (with a backup) and, later, show, hint and the overview."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from grader.course import layout, render
from grader.course.model import Course, Stage


def backup(root: Path, path: Path) -> Path:
    """Copy a learner's file into .grader/backups/ (never overwritten) and return the copy's path."""
    folder = layout.backups(root)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{path.stem}-{stamp}{path.suffix}"
    n = 1
    while target.exists():
        target = folder / f"{path.stem}-{stamp}-{n}{path.suffix}"
        n += 1
    shutil.copy2(path, target)
    return target


def reset(course: Course, stage: Stage, root: Path | None = None) -> tuple[Path, Path | None]:
    """Restore the stub of a stage; the learner's current file is backed up first. Returns (file, backup)."""
    root = root or course.root
    path = root / stage.student_file
    stub = render.stub(stage)
    saved = None
    if path.exists() and path.read_text(encoding="utf-8", errors="replace") != stub:
        saved = backup(root, path)
    render.write_file(path, stub)
    return path, saved
