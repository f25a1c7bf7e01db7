"""Issue 9's attacks that need a cohort, a course or the command line, run through `python -m grader batch`.

One batch grades a cohort in which hostile submissions sit beside honest ones: one reads another learner's files,
the gradebook and an autograder.zip; one asks git for the committed fixtures; one reads the host; one sends a lone
surrogate and escape sequences; and the cohort has a folder whose name is not UTF-8, one whose name holds escape
sequences, a FIFO, a zip with a 4 KiB-deep path, one with a file and a folder of the same name and one whose entry
name holds escape sequences. It is started with `--root COURSE` from another folder, with --jobs 2, and must finish
every other learner with the grades a batch of them alone gives. Where the attack is one a learner's own machine
cannot stop, it also runs self-paced, where it must succeed (the control). Then: `--unsandboxed` is said on every
record, a machine without bubblewrap is refused by name, and a SIGKILLed batch leaves no process behind.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, copy_course, grade_source, run_cli

from grader.course import load_course
from grader.errors import UsageError
from grader.instructor import gradescope
from grader.judge import grade
from grader.results import Status
from grader.run import jail
from grader.run.jail import staging

WHY_NOT = jail.unavailable()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no jail on this machine: {WHY_NOT}")
HOSTILE = ROOT / "tests" / "hostile" / "jail"
GOOD = {"double": "def run_double(x):\n    return 2 * x\n",
        "combine": "def run_combine(x, y):\n    return 2 * x + y\n",
        "split": "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n"}
WRONG = {**GOOD, "double": "def run_double(x):\n    return x + 2\n"}
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def student(folder: Path, files: dict[str, str]) -> Path:
    (folder / "student").mkdir(parents=True)
    for name, text in files.items():
        (folder / "student" / f"{name}.py").write_text(text)
    return folder


def fill(name: str, **values: object) -> str:
    text = (HOSTILE / name).read_text()
    for key, value in values.items():
        text = text.replace(f"@@{key}@@", str(value))
    return text


def zipped(path: Path, entries: list[tuple[str, bytes]]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name), data)


@pytest.fixture(scope="module")
def course(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini course as a git repository with its fixtures committed, and an autograder.zip left in it."""
    root = copy_course(mini_template, tmp_path_factory.mktemp("repo") / "course")
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", "course"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    (root / "autograder.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    return root


@pytest.fixture(scope="module")
def cohort(course: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The cohort graded by one batch, from a folder of its own; and the honest ones graded alone, for comparison."""
    work = tmp_path_factory.mktemp("work")
    subs = work / "subs"
    subs.mkdir()
    (work / "autograder.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    honest = {"good": GOOD, "wrong": WRONG, "good2": GOOD}
    for name, files in honest.items():
        student(subs / name, files)
    fills = {"SUBS": subs, "WORK": work, "ROOT": course, "GIT": course / ".git"}
    for name, file in (("reads_other", "reads_other_submissions.py"), ("git_show", "git_show_fixtures.py"),
                       ("reads_host", "reads_host.py"), ("surrogate", "surrogate_and_escapes.py")):
        student(subs / name, {**GOOD, "double": fill(file, **fills)})
    student(Path(os.fsdecode(bytes(subs) + b"/bad\xffname")), GOOD)  # a folder name that is not UTF-8
    student(subs / "esc\x1b[2Jape", GOOD)
    student(subs / "fifo", {k: v for k, v in GOOD.items() if k != "double"})
    os.mkfifo(subs / "fifo" / "student" / "double.py")
    zipped(subs / "deep.zip", [("student/double.py", GOOD["double"].encode()),
                               ("student/" + "d/" * 2048 + "x.py", b"x = 1\n")])
    zipped(subs / "clash.zip", [("student/double.py", GOOD["double"].encode()),
                                ("student/double.py/x.py", b"x = 1\n")])
    zipped(subs / "escname.zip", [("student/double.py", GOOD["double"].encode()),
                                  ("\x1b]0;pwned\x07/../../x.py", b"x = 1\n")])
    batch = run_cli("--root", str(course), "batch", str(subs), "--db", str(work / "gradebook.sqlite"), "--jobs", "2",
                    "--csv", str(work / "grades.csv"), cwd=work, timeout=300)
    report = run_cli("--root", str(course), "report", "--db", str(work / "gradebook.sqlite"), cwd=work)
    alone = work / "alone"
    for name, files in honest.items():
        student(alone / name, files)
    baseline = run_cli("--root", str(course), "batch", str(alone), "--db", str(work / "alone.sqlite"),
                       "--csv", str(work / "alone.csv"), cwd=work, timeout=300)
    return {"work": work, "subs": subs, "batch": batch, "report": report, "baseline": baseline, "fills": fills}


def rows(path: Path) -> dict[str, dict[str, str]]:
    return {r["submission"]: r for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}


@pytest.mark.slow  # the hostile cohort: two batches
def test_the_batch_finishes_every_other_learner_with_unchanged_grades(cohort):
    batch, baseline = cohort["batch"], cohort["baseline"]
    assert batch.returncode == 0 and baseline.returncode == 0, batch.stderr + baseline.stderr
    assert "13 submissions: 9 graded, 4 rejected, 0 grader errors" in batch.stdout, batch.stdout
    got, alone = rows(cohort["work"] / "grades.csv"), rows(cohort["work"] / "alone.csv")
    for name in ("good", "wrong", "good2"):
        same = {k: v for k, v in got[name].items() if k != "submitted_at"}  # the files' times: written apart
        assert same == {k: v for k, v in alone[name].items() if k != "submitted_at"}, name
    assert got["bad\\xffname"]["points"] == got["esc\\x1b[2Jape"]["points"] == "7"


@pytest.mark.parametrize("name", ["reads_other", "git_show", "reads_host", "surrogate"])
@pytest.mark.slow  # the hostile cohort: two batches
def test_each_attack_gets_nothing_but_its_own_failure(cohort, name):
    row = rows(cohort["work"] / "grades.csv")[name]
    assert row["state"] == "graded" and row["double_points"] == "0" and row["points"] == "3", row
    expected = "exception" if name == "surrogate" else "fail"
    assert row["double_status"] == expected, row


@pytest.mark.parametrize("name, attack", [("reads_other", "reads_other_submissions.py"),
                                          ("git_show", "git_show_fixtures.py")])
@pytest.mark.slow  # the hostile cohort: two batches
def test_control_the_attack_works_where_nothing_stops_it(course, cohort, tmp_path, name, attack):
    """Self-paced, in the course itself (a git repository, beside the cohort): the same file passes."""
    mine = load_course(copy_course(course, tmp_path / "c"))
    shutil.copytree(course / ".git", mine.root / ".git")
    result = grade_source(mine, "double", fill(attack, **cohort["fills"]))
    assert [c.status for c in result.cases] == [Status.PASS] * 3, [(c.message, c.stdout) for c in result.cases]


@pytest.mark.parametrize("name, words", [("fifo", "a FIFO (named pipe), not a file or a folder"),
                                         ("deep", "folders deep (the caps are 1024 and 32)"),
                                         ("clash", "'student/double.py' is both a file and a folder"),
                                         ("escname", "entry '\\x1b]0;pwned\\x07/../../x.py' points outside")])
@pytest.mark.slow  # the hostile cohort: two batches
def test_unusable_submissions_are_rejected_with_a_reason(cohort, name, words):
    row = rows(cohort["work"] / "grades.csv")[name]
    assert row["state"] == "rejected" and words in row["message"], row


@pytest.mark.slow  # the hostile cohort: two batches
def test_names_and_messages_reach_terminal_gradebook_and_csv_as_plain_text(cohort):
    batch, report = cohort["batch"], cohort["report"]
    for out in (batch.stdout, report.stdout, (cohort["work"] / "grades.csv").read_text(encoding="utf-8")):
        assert "\x1b" not in out and "\x07" not in out and "\udcff" not in out
    assert "] esc\\x1b[2Jape: graded" in batch.stdout and "] bad\\xffname: graded" in batch.stdout
    assert "escname (rejected): " in report.stdout and "\\x1b]0;pwned\\x07" in report.stdout


@pytest.mark.slow  # the hostile corpus, jailed and in the CLI
def test_a_lone_surrogate_and_a_non_utf8_file_name_reach_results_json(mini_template, tmp_path):
    course = load_course(mini_template)
    sub = student(tmp_path / "sub", {**GOOD, "double": (HOSTILE / "surrogate_and_escapes.py").read_text()})
    (Path(os.fsdecode(bytes(sub) + b"/student/\xff.py"))).write_text("x = 1\n")
    results = tmp_path / "results.json"
    report = gradescope.autograde(course, sub, results)
    data = json.loads(results.read_text(encoding="utf-8"))
    assert report is not None and data["score"] == 3.0
    small = next(t for t in data["tests"] if t["name"] == "double: small")
    assert "bad ? value \\x1b[31mred" in small["output"] and "out \\udcff put \\x1b[2J" in small["output"]
    json_run = run_cli("--stage", "double", "--format", "json", cwd=_with(mini_template, tmp_path, sub))
    case = json.loads(json_run.stdout)["stages"][0]["cases"][0]
    assert case["status"] == "exception" and "bad ? value" in case["message"]


def _with(template: Path, tmp_path: Path, sub: Path) -> Path:
    root = copy_course(template, tmp_path / "self")
    shutil.copy(sub / "student" / "double.py", root / "student" / "double.py")
    return root


# --- --unsandboxed, and machines that cannot jail -------------------------------------------------------------


@pytest.mark.slow  # batch, report and autograde in subprocesses
def test_unsandboxed_is_said_on_every_record(course, tmp_path):
    student(tmp_path / "subs" / "good", GOOD)
    db, grades = tmp_path / "gb.sqlite", tmp_path / "g.csv"
    batch = run_cli("--root", str(course), "batch", str(tmp_path / "subs"), "--db", str(db), "--csv", str(grades),
                    "--unsandboxed", cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr
    assert "good: graded, NOT jailed, 7/7 points" in batch.stdout and "note: NOT jailed" in batch.stdout
    assert rows(grades)["good"]["message"].startswith("NOT jailed (graded with --unsandboxed")
    report = run_cli("--root", str(course), "report", "--db", str(db), cwd=tmp_path)
    assert "1 of them graded NOT jailed" in report.stdout
    results = tmp_path / "results.json"
    auto = run_cli("--root", str(course), "autograde", "--submission", str(tmp_path / "subs" / "good"),
                   "--results", str(results), "--unsandboxed", cwd=tmp_path)
    assert auto.returncode == 0 and "note: NOT jailed" in auto.stdout
    data = json.loads(results.read_text())
    assert data["score"] == 7.0 and "NOT jailed" in data["output"]
    assert all("NOT jailed" not in t["output"] for t in data["tests"])  # said once, at the top


@pytest.mark.slow  # three subprocesses
def test_a_machine_without_bubblewrap_is_refused_by_name_unless_unsandboxed(course, tmp_path):
    student(tmp_path / "subs" / "good", GOOD)
    env = {"PATH": str(tmp_path / "no-bin")}  # no bwrap on it
    refused = run_cli("--root", str(course), "batch", str(tmp_path / "subs"), "--db", str(tmp_path / "a.sqlite"),
                      cwd=tmp_path, env=env)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "apt-get install bubblewrap" in refused.stderr and "--unsandboxed" in refused.stderr
    results = tmp_path / "results.json"
    auto = run_cli("--root", str(course), "autograde", "--submission", str(tmp_path / "subs" / "good"), "--results",
                   str(results), cwd=tmp_path, env=env)
    assert auto.returncode == 0 and "apt-get install bubblewrap" in json.loads(results.read_text())["output"]
    allowed = run_cli("--root", str(course), "batch", str(tmp_path / "subs"), "--db", str(tmp_path / "b.sqlite"),
                      "--unsandboxed", cwd=tmp_path, env=env)
    assert allowed.returncode == 0 and "good: graded, NOT jailed, 7/7 points" in allowed.stdout


def test_graded_isolate_is_refused_with_the_reason(mini):
    with pytest.raises(UsageError, match="never runs reference code beside a submission"):
        grade.grade_stage(mini, mini.stage("combine"), grade.Options(graded=True, isolate=True))


# --- a killed batch --------------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, start time, state) of a process, or None when it is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    return int(fields[1]), int(fields[19]), fields[0].decode()


def _descendants(root: int) -> list[tuple[int, int]]:
    children: dict[int, list[tuple[int, int]]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (s := _stat(int(name))) is not None:
            children.setdefault(s[0], []).append((int(name), s[1]))
    out, todo = [], [root]
    while todo:
        for pid, started in children.get(todo.pop(), []):
            out.append((pid, started))
            todo.append(pid)
    return out


@pytest.mark.slow
def test_a_killed_batch_leaves_no_worker_or_learner_process(course, tmp_path, monkeypatch):
    """SIGKILL `batch --jobs 2` mid-grade: its workers, their jails and the learners' setsid() processes all die."""
    sleeper = ("import os\nimport time\n\n\ndef run_double(x):\n    if os.fork() == 0:\n        os.setsid()\n"
               "        time.sleep(300)\n        os._exit(0)\n    time.sleep(2)\n    return 2 * x\n")
    for i in range(4):
        student(tmp_path / "subs" / f"s{i}", {**GOOD, "double": sleeper})
    (tmp_path / "tmp").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "grader", "--root", str(course), "batch", str(tmp_path / "subs"),
                             "--db", str(tmp_path / "gb.sqlite"), "--jobs", "2"], cwd=tmp_path,
                            env={**os.environ, "TMPDIR": str(tmp_path / "tmp")}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline, tree = time.monotonic() + 60, []
        while time.monotonic() < deadline:  # both workers in a jail, each with the learner's sleeping process
            tree = _descendants(proc.pid)
            if sum(Path(f"/proc/{p}/comm").exists() and Path(f"/proc/{p}/comm").read_text() == "bwrap\n"
                   for p, _ in tree) >= 4 and len(tree) >= 12:
                break
            time.sleep(0.05)
        assert len(tree) >= 12, tree
        os.kill(proc.pid, signal.SIGKILL)  # the batch's process alone, as `kill -9` would
        proc.wait()
        time.sleep(1.5)  # well below the learner's 2 s: a worker left alive would still be grading
        alive = [(pid, s[2]) for pid, started in tree if (s := _stat(pid)) and s[1] == started and s[2] != "Z"]
        assert alive == [], alive
        left = list((tmp_path / "tmp").iterdir())  # the killed workers' staging and scratch: the next run's to sweep
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
        assert staging.sweep() + staging.sweep("grader-submission-") == len(left) > 0, left
        assert not list((tmp_path / "tmp").iterdir())
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.slow  # a jailed batch; test_cohort.py's (two workers) is in the fast loop
def test_a_batch_leaves_no_jail_staging_or_spare_behind(mini_template, tmp_path, monkeypatch, jobs):
    """Each submission's jail, and the warm spare started for the next one, end with the batch (and its workers)."""
    from grader.instructor import batch
    from grader.instructor.gradebook import Gradebook

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    for i in range(3):
        student(tmp_path / "subs" / f"s{i}", GOOD)
    course = load_course(mini_template)
    book = Gradebook(tmp_path / "gb.sqlite", course.title)
    before = _children()
    summary = batch.run(course, tmp_path / "subs", book, batch.BatchOptions(jobs=jobs))
    assert summary.graded == 3 and {r.points for r in book.rows()} == {7.0}
    book.close()
    assert list(scratch.iterdir()) == []
    assert _children() - before == set()  # every jail's processes reaped, the spare's too


def _children() -> set[int]:
    """This process's children (zombies included): a subreaper inherits orphans, which it must reap."""
    return {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and (s := _stat(int(p.name)))
            and s[0] == os.getpid()}
