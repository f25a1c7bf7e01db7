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
@pytest.mark.xfail(strict=True, reason="BROKEN: stage notes ('Your code uses student/X.py ...') are computed from the "
                   "modules a hidden call imported and are not redacted: a hidden input chooses which notes the "
                   "learner sees (about one bit per other stage, per stage, per submission). "
                   "tests/hostile/redteam/hidden_notes_channel.py")
def test_what_a_hidden_call_imports_does_not_reach_the_stage_notes(mini: Course) -> None:
    if_positive = _graded_double(mini, LEAK_BY_IMPORT.format(op=">"))
    if_negative = _graded_double(mini, LEAK_BY_IMPORT.format(op="<="))
    assert if_positive == if_negative, f"the hidden input chose the notes: {if_positive} vs {if_negative}"
