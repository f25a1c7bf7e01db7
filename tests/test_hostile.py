"""The hostile-submission corpus: learner code that tries to fake its verdict or harm the grader (issue 6).

Each file in tests/hostile/ is a `student/double.py` for the mini course. Every test asserts the exact status of
every case and that the grader survives (its process, its pipes, its files). Attacks that only the graded setting
can stop (reading fixtures, the environment, the network) also run self-paced as a control: there they succeed,
which proves the attack is real and the graded test able to fail.

HOSTILE below is the corpus's table; bench/security.py imports it to count what was tried and held.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.course import Course
from grader.judge import grade
from grader.records import replace
from grader.results import StageResult, Status
from grader.run import jail, protocol, safetext
from tests.conftest import UNSANDBOXED, representatives, run_cli, write_student

HOSTILE_DIR = Path(__file__).resolve().parent / "hostile"
WHY_NOT = jail.unavailable()
P, F, X = Status.PASS, Status.FAIL, Status.EXITED


def can_isolate() -> bool:
    """Whether this machine lets the graded sandbox drop to another user (root) and hide files (namespaces)."""
    return os.geteuid() == 0 and os.path.exists("/proc/self/ns/mnt")


@dataclass(frozen=True)
class Hostile:
    """One hostile submission, the setting it is graded in, and the verdict that means the grader held."""

    file: str
    graded: bool
    status: Status
    fragment: str | None = None  # a piece of every case's message
    timeout: float | None = None  # a shorter stage timeout, to keep the suite fast
    needs_isolation: bool = False  # holds only where the graded sandbox can change user / namespaces
    later: Status | None = None  # the status of the 2nd and 3rd cases, when not `status`

    def expected(self) -> list[Status]:
        return [self.status, self.later or self.status, self.later or self.status]


HOSTILE = [
    Hostile("patch_numpy.py", False, F),
    Hostile("patch_numpy.py", True, F),
    Hostile("patch_grader.py", False, F),
    Hostile("lying_eq.py", False, Status.BAD_OUTPUT, "return a numpy array"),
    Hostile("lying_float.py", False, Status.BAD_OUTPUT, "return plain numbers"),
    Hostile("lying_array.py", False, Status.BAD_OUTPUT, "return plain numbers"),
    Hostile("ndarray_subclass.py", False, F),
    Hostile("fake_pass_lines.py", False, F),
    Hostile("forge_pass_frame.py", False, Status.BAD_OUTPUT, "only the grader decides"),
    Hostile("forge_pass_frame.py", True, Status.BAD_OUTPUT, "only the grader decides"),
    Hostile("forge_frames_order.py", False, Status.BAD_OUTPUT, "out of order"),
    Hostile("writes_progress.py", True, F, needs_isolation=True),
    Hostile("writes_outside.py", True, F, needs_isolation=True),
    Hostile("reads_fixtures.py", True, F, needs_isolation=True),
    Hostile("reads_reference.py", True, F, needs_isolation=True),
    Hostile("frame_walk.py", True, F, needs_isolation=True),
    Hostile("reads_environ.py", True, F),
    Hostile("uses_network.py", True, F, needs_isolation=True),
    Hostile("scrapes_memory.py", True, F, needs_isolation=True),
    Hostile("kills_group.py", False, Status.CRASHED, "SIGKILL"),
    Hostile("kills_grader.py", True, F, needs_isolation=True),
    Hostile("escapes.py", False, P),
    Hostile("escapes.py", True, P),
    Hostile("fills_disk.py", True, Status.EXCEPTION),
    Hostile("reads_stdin.py", False, P),
    Hostile("reads_stdin.py", True, P),
    Hostile("closes_fds.py", False, X, "exit code"),
    Hostile("closes_fds.py", True, X, "exit code"),
    Hostile("redirects_fds.py", False, X, "exit code"),
    Hostile("result_to_stdout.py", False, Status.BAD_OUTPUT, "could not read"),
    Hostile("floods_stdout.py", False, P),
    Hostile("sleeps_forever.py", False, Status.TIMEOUT, None, timeout=0.5, later=Status.SKIPPED),
    # graded: one timeout, then its other cases are not run (issue 14: a loop costs one wait, not one per case)
    Hostile("sleeps_forever.py", True, Status.TIMEOUT, None, timeout=0.5, later=Status.SKIPPED),
]
# The attacks a learner's own machine cannot stop (their files, their environment, their network): run
# self-paced, they must succeed, or the graded test above them proves nothing.
CONTROLS = ["reads_fixtures.py", "reads_reference.py", "frame_walk.py", "reads_environ.py", "uses_network.py"]


def _id(h: Hostile) -> str:
    return f"{h.file[:-3]}-{'graded' if h.graded else 'self'}"


class Arena:
    """Places the test fills in, and what they looked like before the grade, to check nothing was harmed."""

    def __init__(self, course: Course) -> None:
        self.course = course
        self.shared = Path(tempfile.mkdtemp(prefix="hostile-"))
        self.shared.chmod(0o777)  # the graded child (an unprivileged uid) writes its pids here
        self.pids = self.shared / "pids"
        self.tmp = self.shared / "tmp"  # the sandbox's scratch folders, apart from other runs on this machine
        self.tmp.mkdir(mode=0o755)
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.setblocking(False)
        self.protected = [course.root / "course.yaml", course.root / "student" / "double.py",
                          course.root / "stages" / "double" / "reference.py"]

    def source(self, name: str) -> str:
        text = (HOSTILE_DIR / name).read_text()
        return (text.replace("@@ROOT@@", str(self.course.root)).replace("@@PIDS@@", str(self.pids))
                .replace("@@PORT@@", str(self.server.getsockname()[1])))

    def connections(self) -> int:
        n = 0
        while True:
            try:
                conn, _ = self.server.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1

    def survivors(self) -> list[int]:
        if not self.pids.exists():
            return []
        alive = []
        for pid in map(int, self.pids.read_text().split()):
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        return alive

    def close(self) -> None:
        for pid in self.survivors():
            os.kill(pid, signal.SIGKILL)
        self.server.close()
        shutil.rmtree(self.shared)


def grade_hostile(course: Course, arena: Arena, h: Hostile, graded: bool | None = None,
                  unsandboxed: bool = False) -> StageResult:
    write_student(course, "double", arena.source(h.file))
    for p in arena.protected:
        if p.name != "double.py":
            p.chmod(0o644)
    if h.timeout is not None:
        stage = replace(course.stage("double"), timeout=h.timeout)
        course = Course(root=course.root, title=course.title, stages=(stage, *course.stages[1:]),
                        timeout=course.timeout, memory_mb=course.memory_mb)
    options = grade.Options(graded=h.graded if graded is None else graded, unsandboxed=unsandboxed)
    return grade.grade_stage(course, course.stage("double"), options)


@pytest.fixture
def arena(mini, monkeypatch):
    monkeypatch.setenv("GRADER_TEST_SECRET", "s3cret")
    a = Arena(mini)
    monkeypatch.setattr(tempfile, "tempdir", str(a.tmp))
    yield a
    a.close()


def _modes() -> list[tuple[Hostile, bool]]:
    """Every row in its setting; graded rows also --unsandboxed (the forked graded child, without the jail)."""
    return [(h, False) for h in HOSTILE] + [(h, True) for h in HOSTILE if h.graded]


@pytest.mark.slow
@pytest.mark.parametrize("h, unsandboxed", _modes(), ids=lambda x: _id(x) if isinstance(x, Hostile) else
                         ("unsandboxed" if x else "jail"))
def test_hostile_submission_is_held(mini, arena, h, unsandboxed):
    """Graded rows run through the jail (grade.Options(graded=True)), and again --unsandboxed."""
    if unsandboxed and h.needs_isolation and not can_isolate():
        pytest.skip("this machine allows neither another user nor namespaces: see SECURITY.md")
    if h.graded and not unsandboxed and WHY_NOT is not None:
        pytest.skip(f"no jail on this machine: {WHY_NOT}")
    before = {p: p.read_bytes() for p in arena.protected[::2]}
    result = grade_hostile(mini, arena, h, unsandboxed=unsandboxed)
    statuses = [c.status for c in result.cases]
    assert statuses == h.expected(), [(c.status, c.message[:300], c.stdout[:200]) for c in result.cases]
    if h.fragment:  # a hidden case's message is never kept when graded: it could quote what the call saw
        assert all(h.fragment in c.message for c in result.cases if not (c.hidden and h.graded)), \
            result.cases[0].message
        assert not any(c.message for c in result.cases if c.hidden and h.graded)
    # nothing the grader owns or the learner started outlives the grade
    time.sleep(0.05)
    assert arena.survivors() == []
    assert arena.connections() == 0
    assert {p: p.read_bytes() for p in arena.protected[::2]} == before
    assert list(arena.tmp.iterdir()) == []  # the scratch folder is gone
    if h.graded:
        note = next(n for n in result.notes if n.startswith("sandbox (graded):"))
        assert ("NOT jailed" in note) == unsandboxed and ("bubblewrap" in note) == (not unsandboxed), note


@pytest.mark.parametrize("name", representatives(CONTROLS, {"reads_environ.py"}))  # the held tests are slow too
def test_control_the_attack_works_where_nothing_stops_it(mini, arena, name):
    result = grade_hostile(mini, arena, Hostile(name, False, P))
    assert [c.status for c in result.cases] == [P] * 3, [(c.status, c.message[:200]) for c in result.cases]


def test_graded_isolation_is_reported(mini, arena):
    if WHY_NOT is not None:
        pytest.skip(f"no jail on this machine: {WHY_NOT}")
    result = grade_hostile(mini, arena, Hostile("reads_stdin.py", True, P))
    note = next(n for n in result.notes if n.startswith("sandbox (graded):"))
    assert "jail: bubblewrap" in note and "no network" in note and "cgroup" in note, note


def test_unsandboxed_isolation_is_reported_as_not_jailed(mini, arena):
    result = grade_hostile(mini, arena, Hostile("reads_stdin.py", True, P), unsandboxed=True)
    note = next(n for n in result.notes if n.startswith("sandbox (graded):"))
    assert "NOT jailed (graded with --unsandboxed" in note, note
    assert "scratch folder as cwd" in note and "cleared environment" in note
    if can_isolate():
        assert "unprivileged user" in note and "network namespace" in note and "mount namespace" in note


def test_fill_disk_is_stopped_by_a_cap(mini, arena):
    result = grade_hostile(mini, arena, Hostile("fills_disk.py", True, Status.EXCEPTION), unsandboxed=UNSANDBOXED)
    assert all("File too large" in c.message or "No space left" in c.message for c in result.cases if not c.hidden), \
        result.cases[0].message


def test_flooded_output_is_capped_and_said(mini, arena):
    result = grade_hostile(mini, arena, Hostile("floods_stdout.py", False, P))
    assert all(c.stdout_cut_lines > 1000 for c in result.cases)  # the renderers say "... N more lines"
    assert all(len(c.stdout) <= protocol.OUTPUT_CAP for c in result.cases)


@pytest.mark.slow  # the hostile corpus through the CLI
def test_progress_file_written_by_the_learner_is_overwritten_with_the_true_verdict(mini, arena):
    """Self-paced, the learner's code can write .grader/progress.json; the grader's own record wins."""
    write_student(mini, "double", arena.source("writes_progress.py"))
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    data = json.loads((mini.root / ".grader" / "progress.json").read_text())
    assert data["stages"]["double"]["status"] == "fail"
    assert "combine" not in data["stages"]  # the learner's forged entries did not survive the grader's save


@pytest.mark.slow  # the hostile corpus through the CLI; in-process below
def test_imitated_pass_lines_do_not_change_the_exit_code_or_json(mini, arena):
    write_student(mini, "double", arena.source("fake_pass_lines.py"))
    proc = run_cli("--stage", "double", "--format", "json", cwd=mini.root)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    stage = report["stages"][0]
    assert stage["status"] == "fail" and not stage["passed"]


def test_learner_output_cannot_carry_terminal_escapes_into_the_report(mini, arena):
    from grader.report import text
    from grader.results import Report

    result = grade_hostile(mini, arena, Hostile("fake_pass_lines.py", False, F))
    rendered = text.render(Report(course="t", stages=[result]), colour=False)
    assert "\x1b" not in rendered


def test_a_forged_status_never_reaches_pass_through_the_frame_reader():
    """The parent's frame reader itself: every status a child could claim, only its own failures pass through."""
    call = protocol.Call(case="c", module="student.x", function="f", inputs={})
    for status in Status:
        out = protocol.result_of(call, {"status": status.value, "message": "m"}, [], 0.0)
        assert out.status is not None and out.status not in (Status.PASS, Status.FAIL, Status.TIMEOUT,
                                                             Status.SKIPPED, Status.CRASHED)
    for header in ({"status": ["pass"]}, {"status": "ok", "keys": 3}, {"status": "ok", "keys": ["a", "a"]},
                   {"status": "ok", "keys": [""]}, {"status": {}}):
        out = protocol.result_of(call, header, [], 0.0)
        assert out.status is Status.BAD_OUTPUT


def test_malformed_frames_are_refused_not_raised():
    frames = protocol.Frames()
    head = b"[" * 200000
    list(frames.feed(protocol.HEADER.pack(len(head)) + head))
    assert frames.broken


@pytest.mark.parametrize("header", [b'{"parts": [1e999]}', b'{"parts": [-1]}', b'{"parts": "x"}', b'[]',
                                    b'{"parts": [1.5]}', b'\xff\xfe'])
def test_a_forged_header_is_refused_not_raised(header):
    frames = protocol.Frames()
    assert list(frames.feed(protocol.HEADER.pack(len(header)) + header)) == []
    assert frames.broken


def test_a_frame_larger_than_the_case_allows_is_refused_from_its_header():
    """512 MiB announced: refused before a byte of its payload is buffered."""
    frames = protocol.Frames()
    frames.limit = 1 << 20
    head = b'{"status": "ok", "keys": [""], "parts": [536870912]}'
    assert list(frames.feed(protocol.HEADER.pack(len(head)) + head + b"x" * 1000)) == []
    assert frames.broken and "more than" in frames.broken
    assert len(frames.buf) < 2000


def test_text_from_a_submission_is_made_safe_where_it_enters():
    text = safetext.safe_text("a\ud800b\x1b[2J\x07c\n\td" + "x" * 100, cap=20)
    assert "\ud800" not in text and "\x1b" not in text and "\x07" not in text
    assert text.startswith("a?b\\x1b[2J\\x07c\n\td")
    text.encode("utf-8")  # encodable: a gradebook or a JSON file can hold it
