"""Graded mode on the real course: input files that live in the hidden fixtures folder still reach the learner."""

from __future__ import annotations

import pytest

from grader.course import load_course
from grader.instructor import references
from grader.judge import grade
from tests.conftest import ROOT, UNSANDBOXED, copy_course


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return load_course(copy_course(ROOT, tmp_path_factory.mktemp("graded")))


def test_checkpoint_stage_passes_in_graded_mode(course):
    stage = course.stage("checkpoint")
    for rel, text in references.files(course, stage).items():  # with the common/ modules it imports
        (course.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (course.root / rel).write_text(text)
    result = grade.grade_stage(course, stage, grade.Options(graded=True, unsandboxed=UNSANDBOXED))
    assert result.passed, [(c.case, c.status, c.message[:200]) for c in result.cases if not c.passed]
    assert any("sandbox (graded)" in n for n in result.notes)


def test_the_fixture_and_common_folders_stay_out_of_reach(course):
    stage = course.stage("checkpoint")
    fixtures = course.root / "fixtures" / "checkpoint"
    probe = f"""
import os


def run_load_mlp_weights(checkpoint, layer):
    assert os.path.exists(checkpoint), checkpoint
    if os.path.exists({str(fixtures / 'MANIFEST.json')!r}):
        raise RuntimeError("fixtures readable")
    if os.path.exists({str(course.root / 'common' / 'gpt2.py')!r}):
        raise RuntimeError("the course's common/ reference code readable")
    raise NotImplementedError


def run_checkpoint_mlp(checkpoint, layer, x):
    raise NotImplementedError
"""
    (course.root / stage.student_file).write_text(probe)
    result = grade.grade_stage(course, stage, grade.Options(graded=True, unsandboxed=UNSANDBOXED))
    notes = " ".join(result.notes)
    if "mount namespace" not in notes and "jail: bubblewrap" not in notes:
        pytest.skip(f"this machine gives no mount namespace: {notes}")
    assert {c.status.value for c in result.cases} == {"not_started"}, [c.message for c in result.cases]


def test_each_grader_process_confines_to_its_own_uid(course):
    """Two batch workers' submissions must not share a user: one could signal (kill -1) or read the other's."""
    import os

    from grader.run import confine

    if os.geteuid() != 0:
        pytest.skip("only a root grader changes user")
    mine = confine.make_plan(course.root, None).uid
    assert mine == confine.SANDBOX_UID_BASE + os.getpid() % 100_000_000
    pid = os.fork()
    if pid == 0:
        os._exit(0 if confine.make_plan(course.root, None).uid not in (mine, None) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


@pytest.mark.slow
def test_a_submission_cannot_find_an_earlier_submissions_expected_values(mini_template, tmp_path):
    """A batch worker grades one submission after another: the second must not read the first's answers.

    Run in a fresh interpreter, like a batch worker, which only ever grades in the graded setting.
    """
    import os
    import shutil
    import subprocess
    import sys

    from tests.conftest import CORPUS, copy_course

    if os.geteuid() != 0:
        pytest.skip("the heap-scanning submission needs the graded setting's namespaces to be meaningful")
    course = load_course(copy_course(mini_template, tmp_path / "course"))
    for name, source in (("first", (CORPUS / "correct.py").read_text()),
                         ("second", (ROOT / "tests/hostile/scans_heap_for_answers.py").read_text())):
        folder = tmp_path / name / "student"
        folder.mkdir(parents=True)
        shutil.copy(course.root / "student" / "__init__.py", folder / "__init__.py")
        (folder / "double.py").write_text(source)
    script = f"""
from pathlib import Path
from grader.instructor import batch
from grader.judge import grade
from grader.course import load_course
from grader.instructor import references, upstream
course = load_course({str(course.root)!r})
stage = course.stage("double")
for name in ("first", "second"):
    opts = grade.Options(root=Path({str(tmp_path)!r}) / name, hidden=True, graded=True, unsandboxed={UNSANDBOXED},
                         source=batch._source(course, stage))
    result = grade.grade_stage(course, stage, opts)
    print(name, result.points, any("LEAK" in c.stdout for c in result.cases))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["first 4.0 False", "second 0.0 False"], out.stdout


def test_only_public_decoy_outputs_outlive_a_graded_stage(mini_template, tmp_path):
    """Decoy outputs on hidden cases give expected values away (no-bias decoy + bias); only public ones are kept."""
    from grader.instructor import batch
    from grader.judge.decoys import CACHE
    from tests.conftest import copy_course

    course = load_course(copy_course(mini_template, tmp_path / "course"))
    (course.root / "student" / "double.py").write_text("def run_double(x):\n    return x + 2\n")  # plus_two
    stage = course.stage("double")
    CACHE.forget()
    opts = grade.Options(hidden=True, graded=True, source=batch._source(course, stage), unsandboxed=UNSANDBOXED)
    result = grade.grade_stage(course, stage, opts)
    assert {c.case: c.diagnosis for c in result.cases} == {"small": "plus_two", "random": "plus_two",
                                                           "secret": "plus_two"}
    kept = {key[1] for key in CACHE.memory}
    assert kept == {"small", "random"}  # public cases only; 'secret' stayed in the stage's own process


@pytest.mark.slow  # two graded grades; the decoy cache: test above
def test_hidden_decoy_outputs_are_reused_from_a_folder_graded_children_cannot_see(mini_template, tmp_path):
    from grader.instructor import batch
    from grader.judge.decoys import CACHE
    from tests.conftest import copy_course

    course = load_course(copy_course(mini_template, tmp_path / "course"))
    (course.root / "student" / "double.py").write_text("def run_double(x):\n    return x + 2\n")
    stage = course.stage("double")
    opts = grade.Options(hidden=True, graded=True, source=batch._source(course, stage), unsandboxed=UNSANDBOXED)
    first = grade.grade_stage(course, stage, opts)
    files = sorted((course.root / ".grader" / "decoys").glob("*.npz"))
    assert len(files) == 2  # the hidden case's two decoys, written once
    CACHE.forget()
    second = grade.grade_stage(course, stage, opts)
    assert [c.diagnosis for c in first.cases] == [c.diagnosis for c in second.cases] == ["plus_two"] * 3
    assert sorted((course.root / ".grader" / "decoys").glob("*.npz")) == files


def test_a_decoy_that_cannot_run_on_a_case_is_not_tried_again(mini, monkeypatch) -> None:
    """A handout's decoy with no recording for a case raises each time; a failing save paid for it on every save."""
    from grader.judge import decoys
    from grader.judge.decoys import DecoyCache, Lazy

    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        raise KeyError("not recorded")

    monkeypatch.setattr(decoys, "run_decoy", failing)
    cache = DecoyCache()
    stage = mini.stage("double")
    case, decoy = stage.cases[0], stage.decoys[0]
    for _ in range(3):
        produce = cache.producer(stage, case, decoy.function, Lazy(lambda: {}), "digest")
        with pytest.raises(LookupError):
            produce()
    assert len(calls) == 1
    cache.forget()
    with pytest.raises(KeyError):
        cache.producer(stage, case, decoy.function, Lazy(lambda: {}), "digest")()
    assert len(calls) == 2
