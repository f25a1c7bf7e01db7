"""Shared helpers: a throwaway copy of a course, a learner file written in one call, the CLI in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import fixtures
from grader.course import Course, load_course
from grader.judge import grade
from grader.results import StageResult
from grader.run import jail

ROOT = Path(__file__).resolve().parent.parent
# Graded runs need the jail (bubblewrap, cgroups). Where this machine has none, the tests of other graded features
# (batch, Gradescope, decoy caching) run --unsandboxed; the jail's own tests skip, naming why.
UNSANDBOXED = jail.unavailable() is not None
GRADED_FLAGS = ["--unsandboxed"] if UNSANDBOXED else []
MINI = ROOT / "tests" / "minicourse"
CNN = ROOT / "tests" / "cnncourse"  # a second course: nothing in grader/ may know either
CORPUS = ROOT / "tests" / "corpus"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite tests/golden/ from what the reports show now (then review the diff)")


def copy_course(src: Path, dest: Path, stages: list[str] | None = None) -> Path:
    """Copy a course (course.yaml, stages, fixtures, student) into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "course.yaml", dest / "course.yaml")
    for sub in ("stages", "common", "fixtures", "student"):
        if (src / sub).exists():
            shutil.copytree(src / sub, dest / sub, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="session")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini course with its fixtures built once per session."""
    root = copy_course(MINI, tmp_path_factory.mktemp("mini-template"))
    course = load_course(root)
    for stage in course.stages:
        fixtures.build(course, stage)
    return root


@pytest.fixture
def mini(mini_template: Path, tmp_path: Path) -> Course:
    """A fresh, writable copy of the mini course for one test."""
    return load_course(copy_course(mini_template, tmp_path / "course"))


@pytest.fixture(scope="session")
def cnn_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny CNN course with its fixtures built once per session."""
    root = copy_course(CNN, tmp_path_factory.mktemp("cnncourse-copy"))
    course = load_course(root)
    for stage in course.stages:
        fixtures.build(course, stage)
    return root


def write_student(course: Course, stage_id: str, source: str) -> Path:
    path = course.root / "student" / f"{stage_id}.py"
    path.write_text(source)
    return path


def grade_source(course: Course, stage_id: str, source: str, **options: object) -> StageResult:
    write_student(course, stage_id, source)
    return grade.grade_stage(course, course.stage(stage_id), grade.Options(**options))  # type: ignore[arg-type]


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout, input=stdin)
