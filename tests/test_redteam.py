"""Red team of the graded mode (branch redteam-wip): each test reproduces a break found against today's code.

Every test here asserts what SECURITY.md promises and is marked xfail(strict=True): it fails on today's code (so the
suite stays green and the break is documented) and will start passing, and so fail the suite, once the break is
fixed; then drop the marker. The hostile submissions themselves are in tests/hostile/redteam/ (one per attack, each
with a docstring saying what it tries); these tests are their minimal reproductions on the mini course.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from conftest import write_student

from grader.course import Course
from grader.instructor import submissions
from grader.judge import grade
from grader.results import Status
from grader.run import jail

WHY_NOT = jail.unavailable()
needs_jail = pytest.mark.skipif(WHY_NOT is not None, reason=f"no jail on this machine: {WHY_NOT}")

# The hidden case 'secret' of the mini course's `double` is the only call with a 1-d x of 5 elements. On it, this
# submission imports student.combine (a course stage it never finishes) only when the hidden input's first value
# is positive, and fails the case on purpose so that the stage does not pass.
LEAK_BY_IMPORT = """
import importlib

def run_double(x):
    if x.ndim == 1 and x.size == 5:
        if float(x[0]) {op} 0:
            importlib.import_module("student.combine")
        return x + 1.0
    return 2 * x
"""
STUB_COMBINE = "def run_combine(x, y):\n    raise NotImplementedError\n"


def _graded_double(course: Course, source: str) -> list[str]:
    write_student(course, "combine", STUB_COMBINE)
    write_student(course, "double", source)
    result = grade.grade_stage(course, course.stage("double"), grade.Options(graded=True))
    assert any(c.hidden and c.status is Status.FAIL for c in result.cases)
    return [n for n in result.notes if not n.startswith("sandbox (graded)")]


@needs_jail
@pytest.mark.xfail(strict=True, reason="BROKEN (latent): a graded StageResult's notes ('Your code uses student/X.py "
                   "...') are computed from the modules the hidden pass's calls imported and survive "
                   "without_hidden_values: a hidden input chooses them (about one bit per other stage, per stage). "
                   "Today's graded front-ends do not print stage notes (gradebook, CSV, cohort report and "
                   "results.json carry run-level notes only); the JSON and text renderers do. "
                   "tests/hostile/redteam/hidden_notes_channel.py")
def test_what_a_hidden_call_imports_does_not_reach_the_stage_notes(mini: Course) -> None:
    if_positive = _graded_double(mini, LEAK_BY_IMPORT.format(op=">"))
    if_negative = _graded_double(mini, LEAK_BY_IMPORT.format(op="<="))
    assert if_positive == if_negative, f"the hidden input chose the notes: {if_positive} vs {if_negative}"


def _corrupt_zip(path: Path, method: int) -> Path:
    """A zip whose one entry's compressed stream is damaged right after its local header."""
    buf = io.BytesIO()
    name = "student/double.py"
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        zf.writestr(name, "def run_double(x):\n    return 2 * x\n" * 20)
    data = bytearray(buf.getvalue())
    at = 30 + len(name)  # the local header is 30 bytes and the name
    if method == zipfile.ZIP_DEFLATED:
        data[at] = 0xFF  # a final block of the reserved type 3: zlib.error "invalid block type"
    else:
        for i in range(at + 5, at + 25):
            data[i] ^= 0x5A  # lzma.LZMAError "Corrupt input data"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.xfail(strict=True, reason="BROKEN: a zip entry whose deflate or LZMA stream is damaged raises zlib.error "
                   "/ lzma.LZMAError out of submissions.unpack instead of a SubmissionError naming the zip: batch "
                   "records a grader 'error' row ('the grader failed on this submission'), autograde tells the "
                   "learner 'The autograder failed'. tests/hostile/redteam/zips/")
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_LZMA], ids=["deflate", "lzma"])
def test_a_damaged_compressed_entry_is_a_submission_error(tmp_path: Path, method: int) -> None:
    zipped = _corrupt_zip(tmp_path / "learner.zip", method)
    with pytest.raises(submissions.SubmissionError):
        submissions.unpack(submissions.Submission("learner", zipped), tmp_path / "out")


@pytest.mark.xfail(
    strict=True,
    reason="BROKEN: MAX_FILES caps a zip's entries (2000), but unpack writes an __init__.py "
                   "into every folder of every entry's path (up to 31 each): a 2000-entry zip of a few hundred KB "
                   "became ~60,000 files and cost one batch worker 133 s (unpack 19 s, staging 23 s, then the jail), "
                   "outside the per-submission budget. tests/hostile/redteam/zips/make_zips.py (deep_init.zip)")
def test_a_zip_cannot_make_the_grader_write_far_more_files_than_its_entries(tmp_path: Path) -> None:
    zipped = tmp_path / "deep.zip"
    entries = 200
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("student/double.py", "def run_double(x):\n    return 2 * x\n")
        for i in range(entries - 1):
            zf.writestr("student/" + "/".join(f"d{i}_{j}" for j in range(29)) + "/m.py", "")
    dest = tmp_path / "out"
    try:
        submissions.unpack(submissions.Submission("deep", zipped), dest)
    except submissions.SubmissionError:
        return  # refused: fine
    written = sum(len(files) for _, _, files in __import__("os").walk(dest))
    assert written <= 2 * entries, f"{entries} entries became {written} files"


# On the hidden case, fail in a way the submission chooses: each choice could be one value of a hidden input's bits.
FAIL_BY_CHOICE = """
import os

def run_double(x):
    if x.ndim == 1 and x.size == 5:
        {how}
    return 2 * x
"""
CHOICES = {"fail": "return x + 1.0", "exception": "raise ValueError('0')", "todo": "raise NotImplementedError",
           "exited": "os._exit(3)", "bad_output": "return 'text'", "bad_frame": "os.write(3, b'\\xff' * 16)"}


@needs_jail
@pytest.mark.xfail(
    strict=True,
    reason="BROKEN (bound understated): SECURITY.md says a submission failing hidden cases on "
                   "purpose signals 'about one bit per hidden case', but each hidden case's status (fail, exception, "
                   "not started, exited, bad output, crashed, timeout, memory) is kept by the redaction and shown to "
                   "the learner (results.json: 'hidden_x (a hidden check): bad output'): ~3 bits per hidden case per "
                   "submission. tests/hostile/redteam/hidden_status_channel.py")
def test_a_hidden_case_shows_the_learner_only_pass_or_fail(mini: Course) -> None:
    from grader.report import gradescope as gradescope_report
    from grader.results import Report

    shown = {}
    for name, how in CHOICES.items():
        write_student(mini, "double", FAIL_BY_CHOICE.format(how=how))
        result = grade.grade_stage(mini, mini.stage("double"), grade.Options(graded=True))
        data = gradescope_report.results(Report(course=mini.title, stages=[result]), seconds=0.0)
        shown[name] = next(t["output"] for t in data["tests"] if "secret" in t["name"])
    assert len(set(shown.values())) == 1, f"the learner sees {len(set(shown.values()))} distinct verdicts: {shown}"


@pytest.mark.xfail(strict=True, reason="BROKEN: the cohort report's HTML page (`report --html`) never says that "
                   "submissions were graded NOT jailed; the text report says '2 of them graded NOT jailed', the HTML "
                   "template has no such line (docs/instructors.md: 'every line, CSV row and cohort report then says "
                   "NOT jailed')")
def test_the_html_cohort_report_says_not_jailed(mini: Course, tmp_path: Path) -> None:
    from grader.instructor import cohort
    from grader.instructor.gradebook import Entry, Gradebook
    from grader.report import html
    from grader.results import UNJAILED, Report

    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    result = grade.grade_stage(mini, mini.stage("double"), grade.Options(graded=True, unsandboxed=True))
    book = Gradebook(tmp_path / "book.sqlite", mini.title)
    book.record(Entry("learner", "0" * 64, "graded", report=Report(course=mini.title, stages=[result],
                                                                   notes=[UNJAILED]), message=UNJAILED))
    report = cohort.build(mini, book)
    assert "NOT jailed" in cohort.render_text(report)  # the control: the text form says it
    assert "NOT jailed" in html.render(report)


@pytest.mark.skipif(not __import__("shutil").which("unshare"), reason="needs unshare(1)")
@pytest.mark.xfail(strict=True, reason="BROKEN: staging.sweep (and sweep_groups) decide that a folder's owner is dead "
                   "from /proc/<pid> in the sweeper's own pid namespace. A grader started in another pid namespace "
                   "that shares /tmp (a container, a CI job under unshare/bwrap, pid 1 of its namespace) deletes the "
                   "live staging folders (and empty cgroups) of every other grader on the machine. Seen in a real "
                   "batch here: two honest learners got 'error' rows and a third was recorded as graded 37.14/40 "
                   "instead of 40/40 (its hidden checkpoint cases import_error / exited) when such a grader "
                   "started; /tmp/grader-jail-1-* appeared at that second.")
def test_a_grader_in_another_pid_namespace_does_not_sweep_a_live_graders_staging(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import tempfile

    prefix = f"redteam-sweep-{os.getpid()}x-"  # a prefix of this test alone: other graders' folders are never touched
    live = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    try:
        code = f"from grader.run.jail import staging; print(staging.sweep({prefix!r}))"
        done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", code],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            pytest.skip(f"cannot make a pid namespace here: {done.stderr.strip()[:200]}")
        assert live.exists(), f"a grader in another pid namespace deleted this live grader's folder ({done.stdout})"
    finally:
        __import__("shutil").rmtree(live, ignore_errors=True)


def _deep_folder(base: Path, depth: int = 1100) -> Path:
    import os

    (base / "student").mkdir(parents=True)
    (base / "student" / "double.py").write_text("def run_double(x):\n    return 2 * x\n")
    here = base
    for _ in range(depth):  # 'd/d/d/...': 2 characters a level, well under PATH_MAX
        here = here / "d"
        os.mkdir(here)
    return base


@pytest.mark.xfail(
    strict=True,
    reason="BROKEN: submissions.digest walks a folder submission with os.walk, uncapped and "
                   "outside any try (batch.run hashes every submission before grading any): a folder nested ~1000 "
                   "deep raises RecursionError and the whole batch stops with 'the grader itself failed' before "
                   "any learner is graded. tests/hostile/redteam/deep_folder.py")
def test_a_deeply_nested_folder_submission_is_refused_and_the_batch_goes_on(mini: Course, tmp_path: Path) -> None:
    from grader.instructor import batch
    from grader.instructor.gradebook import Gradebook

    cohort = tmp_path / "cohort"
    (cohort / "honest" / "student").mkdir(parents=True)
    (cohort / "honest" / "student" / "double.py").write_text("def run_double(x):\n    return 2 * x\n")
    _deep_folder(cohort / "deep")
    book = Gradebook(tmp_path / "book.sqlite", mini.title)
    seen: list[Any] = []
    try:
        batch.run(mini, cohort, book, batch.BatchOptions(stages=("double",), unsandboxed=WHY_NOT is not None),
                  progress=seen.append)
    finally:
        _remove_deep(cohort / "deep")  # shutil.rmtree (pytest's clean-up too) recurses as deep as os.walk
    assert {e.id: e.state for e in seen} == {"honest": "graded", "deep": "rejected"}


def _remove_deep(base: Path) -> None:
    import os
    import shutil

    here = base
    while (here / "d").is_dir():
        here = here / "d"
    while here != base:
        os.rmdir(here)
        here = here.parent
    shutil.rmtree(base)


@needs_jail
@pytest.mark.slow  # builds the real course's bundle and autogrades it: about 80 s
@pytest.mark.xfail(
    strict=True,
    reason="BROKEN: the Gradescope bundle's course ships no reference.py, but stages generate and kvcache judge by "
           "`check: greedy_check`, which grade._check loads from reference.py outside its try: any submission whose "
           "run_generate returns n_new integer ids (right or wrong) raises CourseError, and autograde writes 'The "
           "autograder is misconfigured', score 0.0 and no tests, for the whole course. "
           "tests/hostile/redteam/generate_zeros.py")
def test_the_gradescope_bundle_grades_a_stage_judged_by_its_check(tmp_path: Path) -> None:
    import json

    from conftest import ROOT

    from grader.course import load_course
    from grader.instructor import gradescope

    bundle = tmp_path / "autograder.zip"
    gradescope.build_bundle(load_course(ROOT), bundle)
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(tmp_path / "source")
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "generate.py").write_text("import numpy as np\n\ndef run_generate(token_ids, params, n_head, n_new):"
                                            "\n    return np.zeros(n_new, dtype=np.int64)\n")
    results = tmp_path / "results" / "results.json"
    gradescope.autograde(load_course(tmp_path / "source" / "course"), submission, results)
    data = json.loads(results.read_text())
    assert data["tests"], data["output"]
