"""The red team's breaks of graded mode, each now a test that holds what SECURITY.md promises.

A fresh reviewer, briefed as an adversarial learner, found these against the jailed grader (tests/hostile/redteam/
README.md lists every attack tried and its verdict); each test failed on that code and passes on the fix. The hostile
submissions are in tests/hostile/redteam/; these tests are their minimal reproductions on the mini course.
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


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_LZMA], ids=["deflate", "lzma"])
def test_a_damaged_compressed_entry_is_a_submission_error(tmp_path: Path, method: int) -> None:
    zipped = _corrupt_zip(tmp_path / "learner.zip", method)
    with pytest.raises(submissions.SubmissionError):
        submissions.unpack(submissions.Submission("learner", zipped), tmp_path / "out")


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
# "not started" stays visible (a stub must say so): with pass and fail, at most log2(3) bits a hidden case.
CHOICES = {"fail": "return x + 1.0", "exception": "raise ValueError('0')", "exited": "os._exit(3)",
           "bad_output": "return 'text'", "bad_frame": "os.write(3, b'\\xff' * 16)"}


@needs_jail
@pytest.mark.slow  # five graded grades, each in a jail
def test_a_hidden_case_shows_the_learner_only_pass_or_fail(mini: Course) -> None:
    from grader.report import gradescope as gradescope_report
    from grader.results import Report

    shown = {}
    for name, how in CHOICES.items():
        write_student(mini, "double", FAIL_BY_CHOICE.format(how=how))
        result = grade.grade_stage(mini, mini.stage("double"), grade.Options(graded=True))
        data = gradescope_report.results(Report(course=mini.title, stages=[result]), seconds=0.0)
        shown[name] = next(t["output"] for t in data["tests"] if t["name"] == "double: hidden 1")
    assert len(set(shown.values())) == 1, f"the learner sees {len(set(shown.values()))} distinct verdicts: {shown}"


def test_the_html_cohort_report_says_not_jailed(mini: Course, tmp_path: Path) -> None:
    from grader.instructor import cohort
    from grader.instructor.gradebook import Entry, Gradebook
    from grader.report import html
    from grader.results import UNJAILED, Report

    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    result = grade.grade_stage(mini, mini.stage("double"), grade.Options(graded=True, unsandboxed=True))
    from grader.instructor import regrade

    book = Gradebook(tmp_path / "book.sqlite", mini.title)
    state = regrade.course_state(mini, ("double",))
    book.remember_state(state.key, state.parts)
    book.set_setting("last_state", state.key)
    entry = Entry("learner", "0" * 64, "graded", report=Report(course=mini.title, stages=[result], notes=[UNJAILED]),
                  message=UNJAILED)
    entry.course_key = state.key
    book.record(entry)
    report = cohort.build(mini, book)
    assert "NOT jailed" in cohort.render_text(report)  # the control: the text form says it
    assert "NOT jailed" in html.render(report)


@pytest.mark.skipif(not __import__("shutil").which("unshare"), reason="needs unshare(1)")
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


@pytest.mark.slow  # a batch over a folder 4096 deep
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
                  progress=lambda entry, *_: seen.append(entry))
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
