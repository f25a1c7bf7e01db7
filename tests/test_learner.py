"""The learner's commands in-process, on the mini course: what progress, "Next" and the overview say about the files
as they are now, and the tools around a case (inputs, saved outputs, backups)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from grader.course import Course
from grader.errors import UsageError
from grader.learner import cases, commands, grading
from grader.learner.progress import Progress, Standing, standings
from grader.results import CaseResult, StageResult, Status
from tests.conftest import write_student

DOUBLE = "def run_double(x):\n    return 2 * x\n"
COMBINE = "from student.double import run_double\n\n\ndef run_combine(x, y):\n    return run_double(x) + y\n"


def grade(course: Course, stage_id: str, **settings: object) -> grading.Graded:
    return grading.grade_stages(course, [course.stage(stage_id)], grading.Settings(**settings))  # type: ignore[arg-type]


def now(course: Course) -> dict[str, Standing]:
    return standings(course, Progress(course.root)).of


def test_a_pass_counts_only_for_the_files_it_was_given_for(mini: Course):
    write_student(mini, "double", DOUBLE)
    write_student(mini, "combine", COMBINE)
    grade(mini, "double")
    grade(mini, "combine")
    assert now(mini)["double"] is Standing.PASSED and now(mini)["combine"] is Standing.PASSED
    write_student(mini, "double", DOUBLE + "# an edit\n")  # combine's verdict was for the old double.py too
    assert now(mini)["double"] is Standing.CHANGED and now(mini)["combine"] is Standing.CHANGED
    lines, _ = commands.overview(mini)
    assert "0 of 3 stages passed." in lines
    assert lines[-1] == ("Next: grade double again, its files changed since it was last graded: "
                         "`python -m grader --stage double --watch`")


def test_a_progress_file_that_claims_passes_without_digests_is_not_believed(mini: Course):
    (mini.root / ".grader").mkdir(exist_ok=True)
    (mini.root / ".grader/progress.json").write_text(json.dumps(
        {"version": 1, "stages": {s: {"status": "pass"} for s in ("double", "combine", "split")}}))
    assert set(now(mini).values()) == {Standing.CHANGED}
    assert "0 of 3 stages passed." in commands.overview(mini)[0]


def test_isolate_never_records_and_reset_sets_the_stage_back(mini: Course):
    write_student(mini, "combine", COMBINE)
    isolated = grade(mini, "combine", isolate=True)
    assert isolated.report.passed
    assert now(mini)["combine"] is Standing.NOT_STARTED  # a pass over the reference double is not the learner's
    write_student(mini, "double", DOUBLE)
    grade(mini, "double")
    assert now(mini)["double"] is Standing.PASSED
    commands.reset(mini, mini.stage("double"))
    assert now(mini)["double"] is Standing.NOT_STARTED


def test_not_started_names_the_function_that_raised_and_its_file(mini: Course):
    write_student(mini, "combine", COMBINE)  # double.py is still the stub
    graded = grade(mini, "combine")
    assert graded.report.stages[0].status is Status.TODO
    assert ("It is run_double() in student/double.py that raises NotImplementedError, called from your "
            "run_combine(): write it first (`python -m grader show double`).") in graded.footer
    assert "waits for double" in "\n".join(commands.overview(mini)[0])
    alone = grade(mini, "double")  # its own stub: the report's line already says so
    assert not any("It is" in line for line in alone.footer)


def test_the_child_s_raised_in_is_used_when_it_says(mini: Course):
    case = CaseResult(stage="combine", case="pair", function="run_combine", status=Status.TODO,
                      message="anything", raised_in="student/double.py:run_double")
    result = StageResult(stage="combine", title="", cases=[case])
    who = commands.raiser(mini, mini.stage("combine"), result)
    assert who is not None and (who.file, who.function, who.stage) == ("student/double.py", "run_double", "double")


def test_upstream_note_says_a_changed_stage_changed(mini: Course):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    grade(mini, "double")
    write_student(mini, "double", "def run_double(x):\n    return x + 3\n")  # fixed in another shell, not graded
    write_student(mini, "combine", COMBINE)
    notes = grade(mini, "combine").report.stages[0].notes
    assert any("student/double.py (stage 'double'), which has changed since it was last graded" in n for n in notes)


def test_history_says_the_last_grade_and_this_one(mini: Course):
    write_student(mini, "double", "def run_double(x):\n    return x * 2 if x.ndim == 1 else x\n")
    grade(mini, "double")
    write_student(mini, "double", DOUBLE)
    footer = grade(mini, "double").footer
    assert any(line.startswith("last grade 1/3") and line.endswith(", now 3/3") for line in footer)


def test_restore_brings_back_the_backup_reset_made(mini: Course):
    stage = mini.stage("double")
    with pytest.raises(UsageError, match="no backup of student/double.py"):
        commands.restore(mini, stage)
    path = write_student(mini, "double", DOUBLE)
    assert "restore double" in commands.reset_message(mini, stage)
    path.write_text(DOUBLE + "# started again\n")
    said = commands.restore(mini, stage)
    assert path.read_text() == DOUBLE and "the file it replaces is saved as .grader/backups/double-" in said
    commands.restore(mini, stage)  # the newest backup is the file restore replaced: undone
    assert path.read_text() == DOUBLE + "# started again\n"
    with pytest.raises(UsageError, match="no such backup"):
        commands.restore(mini, stage, "double-nope.py")


def test_inputs_prints_python_that_loads_a_public_case(mini: Course):
    write_student(mini, "double", DOUBLE)
    code = cases.snippet(mini, mini.stage("double"), "small")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    assert float(out.stdout) == 0.0
    with pytest.raises(UsageError, match="hidden"):
        cases.snippet(mini, mini.stage("double"), "secret")
    with pytest.raises(UsageError, match="Did you mean 'small'"):
        cases.snippet(mini, mini.stage("double"), "smal")


def test_save_outputs_writes_public_cases_only(mini: Course, tmp_path):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    folder = tmp_path / "outs"
    (folder / "double" / "small").mkdir(parents=True)
    (folder / "double" / "small" / "yours.npy").write_bytes(b"stale")
    graded = grade(mini, "double", save_outputs=folder)
    assert sorted(p.name for p in (folder / "double").iterdir()) == ["random", "small"]  # never 'secret'
    yours, expected = (np.load(folder / "double" / "small" / f"{n}.npy") for n in ("yours", "expected"))
    np.testing.assert_array_equal(yours - 2, expected / 2)
    assert any("for 2 public cases" in line for line in graded.footer)


PRELOAD = """
import sys
from pathlib import Path
from grader.course import load_course
from grader.judge import portable
course = load_course(Path(sys.argv[1]))
if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[1])  # where the learner's shadowing regex.py is importable
portable.preload(course.root, course.stage("double"))
print(sorted(m for m in ("regex", "antigravity") if m in sys.modules))
"""


def test_the_course_packages_a_learner_imports_are_loaded_once_for_every_child(mini) -> None:
    """Watch mode forks a child a save: `regex` loaded in the grader is loaded in each child (17 ms a tokenizer
    save). Only the course's own packages are loaded, and never a learner's file that shadows one. (In a fresh
    interpreter each time: what this test process has imported already is beside the point.)"""
    write_student(mini, "double", "import regex\nimport antigravity\n\n\ndef run_double(x):\n    return 2 * x\n")

    def loaded(*extra: str) -> str:
        done = subprocess.run([sys.executable, "-c", PRELOAD, str(mini.root), *extra], capture_output=True,
                              text=True, check=True)
        return done.stdout.strip()

    assert loaded() == "['regex']"  # (the standard library's antigravity acts when imported: never)
    (mini.root / "regex.py").write_text("raise SystemExit('the learner shadowed regex')\n")
    assert loaded("shadowed") == "[]"
