"""Shared helpers: a throwaway copy of a course, a learner file written in one call, the CLI in a subprocess.

Also: one BLAS thread for the tests, `representatives` (a parametrization's fast-loop members) and `--modules-run`
(which modules of grader/ no test ran).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy is imported: the tests
    os.environ.setdefault(_name, "1")  # make many small products on shared cores, where BLAS threads only wait

import modules_run  # noqa: E402
import pytest  # noqa: E402

from grader import fixtures  # noqa: E402
from grader.course import Course, load_course  # noqa: E402
from grader.judge import grade  # noqa: E402
from grader.results import StageResult  # noqa: E402
from grader.run import jail  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# Graded runs need the jail (bubblewrap, cgroups). Where this machine has none, the tests of other graded features
# (batch, Gradescope, decoy caching) run --unsandboxed; the jail's own tests skip, naming why.
UNSANDBOXED = jail.unavailable() is not None
GRADED_FLAGS = ["--unsandboxed"] if UNSANDBOXED else []
MINI = ROOT / "tests" / "minicourse"
CNN = ROOT / "tests" / "cnncourse"  # a second course: nothing in grader/ may know either
CORPUS = ROOT / "tests" / "corpus"
_MODULES_RUN = pytest.StashKey[Path]()
_NOT_RUN = pytest.StashKey[tuple[list[str], int]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite tests/golden/ from what the reports show now (then review the diff)")
    parser.addoption("--modules-run", action="store_true",
                     help="at the end, name each module of grader/ that no test ran (tests/modules_run.py); with "
                          "-m 'not slow' it checks that the fast loop still runs all of grader/")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("modules_run") and hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: it records into its controller's folder (from the environment it started with)
    if config.getoption("modules_run"):
        config.stash[_MODULES_RUN] = Path(tempfile.mkdtemp(prefix="modules-run-"))
        modules_run.install(config.stash[_MODULES_RUN])


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.getoption("modules_run") and hasattr(session.config, "workerinput"):
        modules_run.dump()  # before the worker tells its controller it is done, which then reads every record
        return
    folder = session.config.stash.get(_MODULES_RUN, None)
    if folder is not None:
        session.config.stash[_NOT_RUN] = modules_run.not_run(folder)
        shutil.rmtree(folder, ignore_errors=True)
        if session.config.stash[_NOT_RUN][0] and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if _NOT_RUN in config.stash:
        missing, total = config.stash[_NOT_RUN]
        terminalreporter.write_sep("=", f"modules of grader/ run: {total - len(missing)} of {total}")
        for name in missing:
            terminalreporter.write_line(f"not run: {name}")


def representatives(values: Iterable[Any], keep: Collection[str], ids: Callable[[Any], str] = str) -> list[Any]:
    """parametrize's values, each one whose id is not in keep marked slow: the fast loop runs these representatives of
    the same work, the full suite every one."""
    out, seen = [], set()
    for value in values:
        seen.add(ids(value))
        out.append(pytest.param(value, id=ids(value), marks=() if ids(value) in keep else pytest.mark.slow))
    assert set(keep) <= seen, f"no parameter {sorted(set(keep) - seen)} to keep"
    return out


def copy_course(src: Path, dest: Path, stages: list[str] | None = None) -> Path:
    """Copy a course (course.yaml, stages, fixtures, student) into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "course.yaml", dest / "course.yaml")
    for sub in ("stages", "common", "fixtures", "student"):
        if (src / sub).exists():
            shutil.copytree(src / sub, dest / sub, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def linked_course(dest: Path, **student: str) -> Path:
    """The course's own course.yaml, its stages, common/ and fixtures as symlinks (not 120 MB copied), and a student/
    folder of its own holding these files (stage id -> source). For tests that change nothing but student/ and
    .grader/."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "course.yaml").write_text((ROOT / "course.yaml").read_text())
    for sub in ("stages", "common", "fixtures"):
        os.symlink(ROOT / sub, dest / sub)
    (dest / "student").mkdir()
    (dest / "student" / "__init__.py").write_text("")
    for stage_id, source in student.items():
        (dest / "student" / f"{stage_id}.py").write_text(source)
    return dest


def build_all(root: Path) -> Course:
    """The course at root, every stage's fixtures built."""
    course = load_course(root)
    for stage in course.stages:
        fixtures.build(course, stage)
    return course


def course_from_files(root: Path, files: dict[str, str], student: dict[str, str]) -> Course:
    """A course written at root from {relative path: text}, these learner files in student/, its fixtures built."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "student").mkdir()
    (root / "student" / "__init__.py").write_text("")
    for name, text in student.items():
        (root / "student" / f"{name}.py").write_text(text)
    return build_all(root)


@pytest.fixture(scope="session")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini course with its fixtures built once per session."""
    return build_all(copy_course(MINI, tmp_path_factory.mktemp("mini-template"))).root


@pytest.fixture
def mini(mini_template: Path, tmp_path: Path) -> Course:
    """A fresh, writable copy of the mini course for one test."""
    return load_course(copy_course(mini_template, tmp_path / "course"))


@pytest.fixture(scope="session")
def cnn_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny CNN course with its fixtures built once per session."""
    return build_all(copy_course(CNN, tmp_path_factory.mktemp("cnncourse-copy"))).root


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
