"""Graded mode on the real course: input files that live in the hidden fixtures folder still reach the learner."""

from __future__ import annotations

import pytest

from grader import grade
from grader.course import load_course
from tests.conftest import ROOT, copy_course

WRAP = """

def run_load_mlp_weights(checkpoint, layer):
    return load_mlp_weights(checkpoint, layer)


def run_checkpoint_mlp(checkpoint, layer, x):
    return checkpoint_mlp(checkpoint, layer, x)
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return load_course(copy_course(ROOT, tmp_path_factory.mktemp("graded")))


def test_checkpoint_stage_passes_in_graded_mode(course):
    stage = course.stage("checkpoint")
    (course.root / stage.student_file).write_text((stage.dir / "reference.py").read_text() + WRAP)
    result = grade.grade_stage(course, stage, grade.Options(graded=True))
    assert result.passed, [(c.case, c.status, c.message[:200]) for c in result.cases if not c.passed]
    assert any("sandbox (graded)" in n for n in result.notes)


def test_the_fixture_folder_itself_stays_out_of_reach(course):
    stage = course.stage("checkpoint")
    fixtures = course.root / "fixtures" / "checkpoint"
    probe = f"""
import os


def run_load_mlp_weights(checkpoint, layer):
    assert os.path.exists(checkpoint), checkpoint
    if os.path.exists({str(fixtures / 'MANIFEST.json')!r}):
        raise RuntimeError("fixtures readable")
    raise NotImplementedError


def run_checkpoint_mlp(checkpoint, layer, x):
    raise NotImplementedError
"""
    (course.root / stage.student_file).write_text(probe)
    result = grade.grade_stage(course, stage, grade.Options(graded=True))
    notes = " ".join(result.notes)
    if "mount namespace" not in notes:
        pytest.skip(f"this machine gives no mount namespace: {notes}")
    assert {c.status.value for c in result.cases} == {"not_started"}, [c.message for c in result.cases]


def test_each_grader_process_confines_to_its_own_uid(course):
    """Two batch workers' submissions must not share a user: one could signal (kill -1) or read the other's."""
    import os

    from grader import confine

    if os.geteuid() != 0:
        pytest.skip("only a root grader changes user")
    mine = confine.make_plan(course.root, None).uid
    assert mine == confine.SANDBOX_UID_BASE + os.getpid() % 100_000_000
    pid = os.fork()
    if pid == 0:
        os._exit(0 if confine.make_plan(course.root, None).uid not in (mine, None) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
