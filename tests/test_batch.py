"""Grading a cohort: every kind of broken submission gets its own row, the batch goes on, and resumes."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, UNSANDBOXED, run_cli

from grader.course import load_course
from grader.instructor import batch, submissions
from grader.instructor.gradebook import Gradebook

GOOD = {"double": "def run_double(x):\n    return 2 * x\n",
        "combine": "def run_combine(x, y):\n    return 2 * x + y\n",
        "split": "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n"}


def folder(root: Path, name: str, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root / name


def make_zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
    return path


def student(files: dict[str, str]) -> dict[str, str | bytes]:
    return {f"student/{k}.py": v for k, v in files.items()}


@pytest.fixture
def cohort(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    subs.mkdir()
    folder(subs, "good", student(GOOD))
    folder(subs, "wrong", student({**GOOD, "double": "def run_double(x):\n    return x + 2\n"}))
    folder(subs, "syntax", student({"double": "def run_double(x:\n"}))
    folder(subs, "loop", student({"double": "def run_double(x):\n    while True:\n        pass\n"}))
    folder(subs, "nostudent", {"readme.txt": "forgot it"})
    folder(subs, "binary", {"student/double.py": b"\x89PNG\r\n\x1a\n\x00\x00"})
    make_zip(subs / "zipped.zip", [(f"alice/student/{k}.py", v.encode()) for k, v in GOOD.items()])
    make_zip(subs / "slip.zip", [("student/double.py", GOOD["double"].encode()), ("../../evil.py", b"x=1")])
    make_zip(subs / "absolute.zip", [("/etc/student/double.py", GOOD["double"].encode())])
    link = zipfile.ZipInfo("student/double.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    make_zip(subs / "symlink.zip", [(link, b"/etc/passwd")])
    (subs / "notazip.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    return subs


def grade_cohort(course_root: Path, subs: Path, db: Path, jobs: int = 2) -> tuple[batch.Summary, Gradebook]:
    course = load_course(course_root)
    book = Gradebook(db, course.title)
    return batch.run(course, subs, book, batch.BatchOptions(jobs=jobs, budget=2.0, unsandboxed=UNSANDBOXED)), book


def test_a_submission_that_kills_its_worker_costs_no_other_learner_their_row(mini_template: Path, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's death fails every submission in flight with it (BrokenProcessPool): each is graded again alone,
    and only the one that kills its worker again is an error row (red team round 10: 3 of 6 learners lost theirs)."""
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("alice", "bob", "killer", "zoe"):
        folder(subs, name, student(GOOD))
    real = batch.grade_submission

    def grade(course, sub, digest, options, phases=None):  # type: ignore[no-untyped-def]
        if sub.id == "killer":
            os._exit(9)  # as the kernel's OOM killer ends a worker
        return real(course, sub, digest, options, phases)

    monkeypatch.setattr(batch, "grade_submission", grade)  # the workers are forks: they see it
    course = load_course(mini_template)
    with Gradebook(tmp_path / "gb.sqlite", course.title) as book:
        summary = batch.run(course, subs, book, batch.BatchOptions(jobs=2, budget=5.0, unsandboxed=True))
        rows = {r.id: r for r in book.rows()}
    assert summary.errors == 1 and rows["killer"].state == "error" and "died, twice" in rows["killer"].message
    assert all(rows[n].state == "graded" and rows[n].points == rows[n].max_points for n in ("alice", "bob", "zoe"))


@pytest.mark.slow
def test_every_submission_gets_its_row(mini_template: Path, cohort: Path, tmp_path: Path) -> None:
    summary, book = grade_cohort(mini_template, cohort, tmp_path / "gb.sqlite")
    rows = {r.id: r for r in book.rows()}
    assert summary.total == len(rows) == 11 and summary.errors == 0
    assert rows["good"].state == "graded" and rows["good"].points == rows["good"].max_points == 7
    assert rows["zipped"].points == 7
    assert rows["wrong"].stages["double"][0] == "fail" and rows["wrong"].points == 3
    assert rows["syntax"].stages["double"][0] == "syntax_error"
    loop = rows["loop"]
    assert loop.state == "graded" and loop.stages["double"][0] in ("timeout", "skipped")
    assert loop.seconds < 10  # the budget (2 s), not 3 s per case times every case
    expect = {"nostudent": "no student/ folder", "binary": "not a text file", "slip": "points outside",
              "absolute": "points outside", "symlink": "symbolic link", "notazip": "not a readable zip"}
    for sid, words in expect.items():
        assert rows[sid].state == "rejected" and words in rows[sid].message, (sid, rows[sid].message)
    cases = book.cases()
    assert {c.diagnosis for c in cases if c.submission == "wrong"} == {"plus_two", None}
    assert any(c.hidden and c.case == "secret" for c in cases)  # hidden cases run in a batch
    assert not (tmp_path / "evil.py").exists() and not (cohort.parent / "evil.py").exists()
    book.close()


@pytest.mark.slow
def test_batch_resumes_and_regrades_only_changes(mini_template: Path, cohort: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    first, book = grade_cohort(mini_template, cohort, db, jobs=1)
    book.close()
    (cohort / "wrong" / "student" / "double.py").write_text(GOOD["double"])
    second, book = grade_cohort(mini_template, cohort, db)
    assert (second.skipped, second.graded + second.rejected) == (10, 1)
    rows = {r.id: r for r in book.rows()}
    assert rows["wrong"].points == 7 and len(rows) == 11
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 11
        dupes = con.execute("SELECT COUNT(*) FROM (SELECT submission, stage, case_id FROM cases "
                            "GROUP BY 1, 2, 3 HAVING COUNT(*) > 1)").fetchone()[0]
        assert dupes == 0
    book.close()


@pytest.mark.slow
def test_a_killed_batch_resumes_without_loss_or_duplicates(mini_template: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    slow = "import time\ndef run_double(x):\n    time.sleep(0.15)\n    return 2 * x\n"
    for i in range(8):
        folder(subs, f"s{i:02d}", student({**GOOD, "double": slow}))
    db = tmp_path / "gb.sqlite"
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(subs), "--db", str(db), "--jobs", "1",
                             *GRADED_FLAGS], cwd=mini_template, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    count = 0
    while time.monotonic() < deadline and count < 2:
        time.sleep(0.1)
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    count = con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 2 <= count < 8, "the batch should have been killed halfway"
    again = run_cli("batch", str(subs), "--db", str(db), "--jobs", "2", "--csv", str(tmp_path / "g.csv"), *GRADED_FLAGS,
                    cwd=mini_template)
    assert again.returncode == 0, again.stderr
    import re

    skipped = int(re.search(r"(\d+) already in", again.stdout).group(1))  # type: ignore[union-attr]
    assert skipped >= count and again.stdout.count("] s") == 8 - skipped
    with sqlite3.connect(db) as con:
        ids = [r[0] for r in con.execute("SELECT id FROM submissions")]
        assert sorted(ids) == [f"s{i:02d}" for i in range(8)]
        assert con.execute("SELECT COUNT(*) FROM stages").fetchone()[0] == 8 * 3
    assert (tmp_path / "g.csv").read_text().count("\n") == 9


def test_zip_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = make_zip(tmp_path / "big.zip", [("student/double.py", b"# " + b"x" * 100_000 + b"\n")])
    monkeypatch.setattr(submissions, "MAX_BYTES", 50_000)
    with pytest.raises(submissions.SubmissionError, match="files to grade unpack to 100003 bytes"):
        submissions.unpack(submissions.Submission("big", big), tmp_path / "a")
    monkeypatch.setattr(submissions, "MAX_BYTES", 10_000_000)
    monkeypatch.setattr(submissions, "MAX_FILE_BYTES", 50_000)  # the bytes actually read count, not the header
    with pytest.raises(submissions.SubmissionError, match=r"larger than the cap \(50000 bytes per file\)"):
        submissions.unpack(submissions.Submission("big", big), tmp_path / "b")
    many = make_zip(tmp_path / "many.zip", [(f"student/f{i}.py", b"") for i in range(30)])
    monkeypatch.setattr(submissions, "MAX_FILES", 20)
    with pytest.raises(submissions.SubmissionError, match="holds 30 Python files to grade"):
        submissions.unpack(submissions.Submission("many", many), tmp_path / "c")


def test_zip_bomb_is_refused_without_unpacking(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("student/double.py", "w", force_zip64=True) as f:
            chunk = b"\0" * (1 << 20)
            for _ in range(submissions.MAX_BYTES // len(chunk) + 8):
                f.write(chunk)
    (tmp_path / "bomb.zip").write_bytes(buf.getvalue())
    assert (tmp_path / "bomb.zip").stat().st_size < 1 << 20
    with pytest.raises(submissions.SubmissionError, match="the cap is"):
        submissions.unpack(submissions.Submission("bomb", tmp_path / "bomb.zip"), tmp_path / "out")
    assert not (tmp_path / "out" / "student" / "double.py").exists()


def test_folder_with_symlink_is_refused(tmp_path: Path) -> None:
    sub = folder(tmp_path, "linky", student(GOOD))
    (sub / "student" / "extra.py").symlink_to("/etc/passwd")
    with pytest.raises(submissions.SubmissionError, match="symbolic link"):
        submissions.unpack(submissions.Submission("linky", sub), tmp_path / "out")


def test_cli_usage_errors(mini_template: Path, tmp_path: Path) -> None:
    missing = run_cli("batch", str(tmp_path / "nowhere"), "--db", str(tmp_path / "g.sqlite"), *GRADED_FLAGS,
                      cwd=mini_template)
    assert missing.returncode == 2 and "not a folder of submissions" in missing.stderr
    assert "Traceback" not in missing.stderr
    (tmp_path / "subs").mkdir()
    jobs = run_cli("batch", str(tmp_path / "subs"), "--jobs", "0", "--db", str(tmp_path / "g.sqlite"), *GRADED_FLAGS,
                   cwd=mini_template)
    assert jobs.returncode == 2 and "--jobs 0" in jobs.stderr
    unknown = run_cli("batch", str(tmp_path / "subs"), "--stage", "doubel", "--db", str(tmp_path / "g.sqlite"),
                      *GRADED_FLAGS, cwd=mini_template)
    assert unknown.returncode == 2 and "no stage 'doubel'" in unknown.stderr
    assert "Did you mean 'double'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    for budget in ("nan", "inf", "-1"):
        bad_budget = run_cli("batch", str(tmp_path / "subs"), "--budget", budget, "--db", str(tmp_path / "g.sqlite"),
                             *GRADED_FLAGS, cwd=mini_template)
        assert bad_budget.returncode == 2 and f"--budget {budget}:" in bad_budget.stderr
    (tmp_path / "other.sqlite").write_bytes(b"not a database at all" * 100)
    bad = run_cli("report", "--db", str(tmp_path / "other.sqlite"), cwd=mini_template)
    assert bad.returncode == 2 and "not a gradebook" in bad.stderr


@pytest.mark.slow
def test_a_spent_budget_keeps_the_verdicts_of_the_cases_that_ran(mini_template: Path, tmp_path: Path) -> None:
    """Cases that finished before the budget ran out keep their points; only the rest are 'not run'."""
    course = load_course(mini_template)
    subs = tmp_path / "subs"
    loops_on_random = "def run_double(x):\n    while x.size == 128:\n        pass\n    return 2 * x\n"
    folder(subs, "slow", student({**GOOD, "double": loops_on_random}))
    entry = batch.grade_submission(course, submissions.discover(subs)[0], "d",
                                   batch.BatchOptions(budget=1.5, stages=("double",), unsandboxed=UNSANDBOXED))
    assert entry.report is not None
    cases = {c.case: c for c in entry.report.stages[0].cases}
    assert cases["small"].passed and cases["small"].points > 0
    assert cases["random"].status.value in ("skipped", "timeout") and not cases["random"].passed
    assert not cases["secret"].passed


def test_a_batch_warns_when_its_jails_could_use_more_memory_than_the_machine_has(mini, monkeypatch) -> None:
    """Red team round 34: nothing said that --jobs x memory_mb past the machine's memory lets the kernel's OOM killer,
    which picks by RSS and not by cgroup, end an honest learner's call (graded as out of memory)."""
    from grader.instructor import commands
    from grader.run import jail

    monkeypatch.setattr(jail, "make_room", lambda jails, memory_mb: None)
    memory_mb = max(s.memory_mb for s in mini.stages)
    said: list[str] = []
    pages = {"SC_PHYS_PAGES": (memory_mb * 3 // 2) << 8, "SC_PAGE_SIZE": 4096}  # 1.5 jails' worth
    monkeypatch.setattr(commands.os, "sysconf", lambda name: pages[name])
    commands._file_table(mini, 2, (), False, said.append)
    assert any("warning: --jobs 2 jails" in x and "use --jobs 1 or less" in x for x in said), said
    said.clear()
    commands._file_table(mini, 1, (), False, said.append)
    assert not said, said
