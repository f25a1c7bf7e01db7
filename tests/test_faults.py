"""Fault injection (issue 6): the grader killed (SIGKILL) or the disk full in the middle of each of its writes.

Every fault runs the real write in a child Python process with one function wrapped so that its n-th call kills
the process (before or after doing its work), writes half its data and then kills, or fails with ENOSPC. Afterwards
the previous state must be intact and complete (nothing half-written in place), and the next run must say what
happened and carry on. FAULTS is the table bench/security.py counts.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader import fixtures
from grader.course import load_course
from grader.fixtures import builder
from grader.instructor import gradebook, submissions
from grader.learner.progress import Progress, ProgressError
from grader.results import CaseResult, Report, StageResult, Status

ROOT = Path(__file__).resolve().parent.parent

# The child's side: wrap `module.attr` so its n-th call misbehaves as `how` says.
_INJECT = textwrap.dedent('''
    import errno, importlib, os, signal, sys, json
    spec = json.loads(sys.argv[1])
    module = importlib.import_module(spec["module"])
    original = getattr(module, spec["attr"])
    calls = [0]

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    class HalfWriter:
        def __init__(self, f):
            self.f = f
        def write(self, data):
            self.f.write(data[: len(data) // 2]); self.f.flush(); os.fsync(self.f.fileno()); die()
        def __getattr__(self, name):
            return getattr(self.f, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    def wrapper(*args, **kwargs):
        calls[0] += 1
        if calls[0] == spec["nth"]:
            how = spec["how"]
            if how == "kill_before":
                die()
            if how == "enospc":
                raise OSError(errno.ENOSPC, "No space left on device")
            if how == "half":
                return HalfWriter(original(*args, **kwargs))
            result = original(*args, **kwargs)
            die()
            return result
        return original(*args, **kwargs)

    setattr(module, spec["attr"], wrapper)
    exec(spec["code"])
''')


def run_with_fault(code: str, module: str, attr: str, nth: int, how: str, cwd: Path) -> int:
    """Run `code` in a child Python with the fault armed; return its exit status (-9 when it was killed)."""
    spec = {"module": module, "attr": attr, "nth": nth, "how": how, "code": textwrap.dedent(code)}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _INJECT, json.dumps(spec)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode


@dataclass(frozen=True)
class Fault:
    """One injected fault: which write, where in it, and how."""

    target: str  # progress, fixtures, gradebook, unpack
    module: str
    attr: str
    nth: int
    how: str  # kill_before, kill_after, half, enospc

    @property
    def id(self) -> str:
        return f"{self.target}-{self.attr}#{self.nth}-{self.how}"


FAULTS = [
    # progress: the save of a stage's verdict over an earlier one (written without fsync: every grade rewrites it)
    Fault("progress", "os", "fdopen", 1, "half"),
    Fault("progress", "os", "replace", 1, "kill_before"),
    Fault("progress", "os", "replace", 1, "kill_after"),
    Fault("progress", "os", "fdopen", 1, "enospc"),
    # fixtures: a rebuild over the existing fixtures of the mini course's `double` stage
    Fault("fixtures", "grader.fixtures.builder", "_write", 2, "kill_before"),
    Fault("fixtures", "grader.fixtures.builder", "_write", 4, "kill_after"),
    Fault("fixtures", "grader.fixtures.builder", "_fsync_dir", 1, "kill_after"),
    Fault("fixtures", "os", "replace", 2, "kill_after"),
    Fault("fixtures", "grader.fixtures.builder", "_write", 3, "enospc"),
    Fault("fixtures", "os", "replace", 1, "kill_after"),  # between build()'s two renames (a bug until a4b47fe)
    # gradebook: re-recording a submission already in it
    Fault("gradebook", "sqlite3", "connect", 1, "kill_mid_transaction"),
    Fault("gradebook", "sqlite3", "connect", 1, "full_mid_transaction"),
    # unpacking a zip submission
    Fault("unpack", "grader.instructor.submissions", "_write", 2, "kill_before"),
    Fault("unpack", "grader.instructor.submissions", "_write", 2, "enospc"),
]


# --- progress ------------------------------------------------------------------------------------------------


def _stage(stage_id: str, status: Status) -> StageResult:
    case = CaseResult(stage=stage_id, case="c", function="f", status=status, max_points=1.0,
                      points=1.0 if status is Status.PASS else 0.0)
    return StageResult(stage=stage_id, title=stage_id, cases=[case], max_points=1.0)


def _progress_fault(tmp_path: Path, fault: Fault) -> tuple[str, str, Progress]:
    """Save 'fail' for gelu, then save 'pass' for it with the fault armed; return old and new file text."""
    Progress(tmp_path).record(_stage("gelu", Status.FAIL))
    path = tmp_path / ".grader" / "progress.json"
    old = path.read_text()
    code = f"""
        from pathlib import Path
        from grader.learner.progress import Progress, ProgressError
        from grader.results import CaseResult, StageResult, Status
        case = CaseResult(stage="gelu", case="c", function="f", status=Status.PASS, max_points=1.0, points=1.0)
        try:
            Progress(Path({str(tmp_path)!r})).record(StageResult(stage="gelu", title="g", cases=[case]))
        except ProgressError as e:
            print(e)
            raise SystemExit(3)
    """
    rc = run_with_fault(code, fault.module, fault.attr, fault.nth, fault.how, tmp_path)
    assert rc == (3 if fault.how == "enospc" else -9), rc
    return old, path.read_text(), Progress(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("fault", [f for f in FAULTS if f.target == "progress"], ids=lambda f: f.id)
def test_progress_survives(tmp_path, fault):
    old, now, after = _progress_fault(tmp_path, fault)
    assert json.loads(now)["stages"]["gelu"]["status"] in ("fail", "pass")  # whole, never half
    if fault.how != "kill_after":
        assert now == old  # the previous state, untouched
    else:
        assert json.loads(now)["stages"]["gelu"]["status"] == "pass"
    assert not list((tmp_path / ".grader").glob(".progress-*"))  # the next run cleaned up ...
    if fault.how in ("half", "kill_before") and fault.attr != "replace" or fault.attr == "replace" and \
            fault.how == "kill_before":
        assert after.notice and "interrupted" in after.notice  # ... and said what happened
    after.record(_stage("gelu", Status.PASS))  # and carries on
    assert Progress(tmp_path).passed("gelu")


def test_progress_disk_full_is_a_clear_error_and_keeps_the_file(tmp_path, monkeypatch):
    progress = Progress(tmp_path)
    progress.record(_stage("gelu", Status.FAIL))
    before = progress.path.read_bytes()

    real_fdopen = os.fdopen

    class Full:  # the progress file is written without fsync (it is rewritten by every grade): the write fails
        def __init__(self, fd: int, *args: object, **kwargs: object) -> None:
            self.f = real_fdopen(fd, *args, **kwargs)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", Full)
    with pytest.raises(ProgressError, match="No space left on device.*previous progress file is unchanged"):
        progress.record(_stage("gelu", Status.PASS))
    assert progress.path.read_bytes() == before
    assert not list(progress.path.parent.glob(".progress-*"))


def test_damaged_progress_is_set_aside_never_overwritten(tmp_path):
    folder = tmp_path / ".grader"
    folder.mkdir()
    for text in ("{not json", "[1, 2]"):  # two damages within one second
        (folder / "progress.json").write_text(text)
        p = Progress(tmp_path)
        assert p.notice and "damaged" in p.notice and p.stages == {}
    asides = sorted(x.read_text() for x in folder.glob("progress.damaged-*.json"))
    assert asides == sorted(["{not json", "[1, 2]"])


# --- fixtures ------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fault", [f for f in FAULTS if f.target == "fixtures"], ids=lambda f: f.id)
def test_fixture_build_survives(mini, fault):
    stage = mini.stage("double")
    before = {p.relative_to(mini.root): p.read_bytes() for p in (mini.root / "fixtures" / "double").rglob("*")
              if p.is_file()}
    code = f"""
        from grader import fixtures
        from grader.course import load_course
        course = load_course({str(mini.root)!r})
        from grader.errors import GraderError
        try:
            fixtures.build(course, course.stage("double"))
        except (OSError, GraderError):
            raise SystemExit(3)
    """
    rc = run_with_fault(code, fault.module, fault.attr, fault.nth, fault.how, mini.root)
    assert rc == (3 if fault.how == "enospc" else -9), rc
    course = load_course(mini.root)
    fixtures.StageFixtures(course, stage).verify_all()  # whole and consistent, old or new
    after = {p.relative_to(mini.root): p.read_bytes() for p in (mini.root / "fixtures" / "double").rglob("*")
             if p.is_file()}
    assert after == before  # a rebuild is byte-for-byte identical, so old or new, the bytes are these
    fixtures.build(course, stage)  # the next run carries on


def test_fixture_build_killed_leaves_no_litter_after_the_next_build(mini):
    code = f"""
        from grader import fixtures
        from grader.course import load_course
        course = load_course({str(mini.root)!r})
        fixtures.build(course, course.stage("double"))
    """
    assert run_with_fault(code, "grader.fixtures.builder", "_write", 2, "kill_before", mini.root) == -9
    course = load_course(mini.root)
    fixtures.build(course, course.stage("double"))
    assert not [p.name for p in (mini.root / "fixtures").iterdir() if p.name.startswith(".")]


def test_fixture_build_disk_full_is_a_fixture_error(mini, monkeypatch):
    from grader.errors import FixtureError

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(builder, "_write", full)
    with pytest.raises(FixtureError):
        fixtures.build(mini, mini.stage("double"))


# --- gradebook -----------------------------------------------------------------------------------------------

_GRADEBOOK = """
    import sqlite3, os, signal
    from pathlib import Path
    from grader.instructor import gradebook
    from grader.results import CaseResult, Report, StageResult, Status

    def report(points):
        case = CaseResult(stage="gelu", case="c", function="f", status=Status.PASS if points else Status.FAIL,
                          points=points, max_points=1.0)
        return Report(course="C", stages=[StageResult(stage="gelu", title="g", cases=[case], max_points=1.0)])

    book = gradebook.Gradebook(Path({db!r}), "C")
    HOW = {how!r}

    class Faulty:  # the connection, with its 2nd statement inside the transaction failing
        def __init__(self, db):
            self.db, self.n = db, 0
        def execute(self, *a):
            self.n += 1
            if self.n == 2:
                if HOW == "kill_mid_transaction":
                    os.kill(os.getpid(), signal.SIGKILL)
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(*a)
        def executemany(self, *a):
            return self.db.executemany(*a)
        def __enter__(self):
            return self.db.__enter__()
        def __exit__(self, *exc):
            return self.db.__exit__(*exc)

    book.db = Faulty(book.db)
    try:
        book.record(gradebook.Entry(id="alice", digest="d2", state="graded", report=report(1.0)))
    except sqlite3.OperationalError:
        raise SystemExit(3)
"""


@pytest.mark.slow
@pytest.mark.parametrize("fault", [f for f in FAULTS if f.target == "gradebook"], ids=lambda f: f.id)
def test_gradebook_survives(tmp_path, fault):
    db = tmp_path / "book.sqlite"
    book = gradebook.Gradebook(db, "C")
    case = CaseResult(stage="gelu", case="c", function="f", status=Status.FAIL, max_points=1.0)
    book.record(gradebook.Entry(id="alice", digest="d1", state="graded",
                                report=Report(course="C", stages=[StageResult(stage="gelu", title="g", cases=[case],
                                                                              max_points=1.0)])))
    book.record(gradebook.Entry(id="bob", digest="b1", state="rejected", message="no student/"))
    book.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_GRADEBOOK.format(db=str(db), how=fault.how))],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == (-9 if fault.how.startswith("kill") else 3), proc.stderr
    book = gradebook.Gradebook(db, "C")  # opens (recovering its journal) and ...
    rows = {r.id: r for r in book.rows()}
    assert set(rows) == {"alice", "bob"}  # ... alice's earlier grade, whole; bob untouched
    assert book.known() == {"alice": ("d1", ""), "bob": ("b1", "")} and rows["alice"].stages["gelu"][0] == "fail"
    assert [c.case for c in book.cases() if c.submission == "alice"] == ["c"]
    book.close()


# --- unpacking a submission ----------------------------------------------------------------------------------


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name in ("gelu", "mlp", "conv1d"):
            z.writestr(f"student/{name}.py", f"def run_{name}(x):\n    return x\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("fault", [f for f in FAULTS if f.target == "unpack"], ids=lambda f: f.id)
def test_unpack_survives(tmp_path, fault):
    sub = _zip(tmp_path / "alice.zip")
    before = sub.read_bytes()
    dest = tmp_path / "dest"
    code = f"""
        from pathlib import Path
        from grader.instructor import submissions
        sub = submissions.Submission("alice", Path({str(sub)!r}))
        try:
            submissions.unpack(sub, Path({str(dest)!r}))
        except submissions.SubmissionError as e:
            print(e)
            raise SystemExit(3)
        except OSError as e:
            print("bare", e)
            raise SystemExit(4)
    """
    rc = run_with_fault(code, fault.module, fault.attr, fault.nth, fault.how, tmp_path)
    assert rc in ((-9,) if fault.how.startswith("kill") else (3, 4)), rc
    assert sub.read_bytes() == before  # the submission itself is never touched
    again = tmp_path / "again"  # the next run unpacks it whole
    got = submissions.unpack(submissions.Submission("alice", sub), again)
    assert sorted(got) == ["student/conv1d.py", "student/gelu.py", "student/mlp.py"]


# --- the learner's work --------------------------------------------------------------------------------------


def test_reset_backs_up_the_learners_file(mini):
    from grader.learner import commands

    path = mini.root / "student" / "double.py"
    path.write_text("def run_double(x):\n    return 2 * x  # my work\n")
    _, saved = commands.reset(mini, mini.stage("double"))
    assert saved is not None and saved.read_text().endswith("# my work\n")
    assert "NotImplementedError" in path.read_text()
