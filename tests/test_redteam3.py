"""The third red team's breaks of graded mode (tests/hostile/redteam/round3-findings.md), each now a test.

Break 1 (escapes through the observe record) and 2 (a correct cache failing the check) are tested in
test_observe.py; this file holds break 3 (the jail's copy of common/gpt2.py), 4 (hidden ids) and 5 (flock between
jails).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, ROOT, linked_course

from grader.course import commoncut, load_course
from grader.errors import CourseError
from grader.instructor import batch, submissions, upstream
from grader.run import jail

WHY_NOT = jail.unavailable()
needs_jail = pytest.mark.skipif(WHY_NOT is not None or bool(GRADED_FLAGS),
                                reason=f"no jail on this machine: {WHY_NOT}")
ROUND3 = ROOT / "tests" / "hostile" / "redteam" / "round3"


# --- 3. the jail's copy of a common module holds only what the upstream references reach ------------------------


def course_with(tmp_path: Path, common: dict[str, str], reference: str) -> Path:
    (tmp_path / "common").mkdir(parents=True)
    for name, text in common.items():
        (tmp_path / "common" / f"{name}.py").write_text(text)
    (tmp_path / "reference.py").write_text(reference)
    return tmp_path


MODEL = '''"""A model."""

import math

import numpy as np

SCALE = 2.0


def helper(x):
    return x * SCALE


def piece(x):  # an earlier stage's
    return np.tanh(helper(x))


def later(x):  # the stage being graded: must not be shipped
    return piece(x) + math.pi


@staticmethod
def decorated(x):
    return x
'''


def test_a_common_module_is_cut_to_the_definitions_the_reference_reaches(tmp_path: Path) -> None:
    root = course_with(tmp_path, {"model": MODEL}, "from common.model import piece\n")
    text = commoncut.cut(root, [root / "reference.py"])["model"]
    assert "def piece" in text and "def helper" in text and "SCALE = 2.0" in text and "import numpy" in text
    assert "def later" not in text and "def decorated" not in text and "import math" not in text
    namespace: dict[str, object] = {}
    exec(compile(text, "model", "exec"), namespace)  # the cut runs on its own
    assert namespace["piece"](0.0) == 0.0  # type: ignore[operator]


def test_the_cut_follows_one_common_module_into_another(tmp_path: Path) -> None:
    uses = "from common.model import piece\n\n\ndef check(x):\n    return piece(x)\n\n\ndef unused():\n    pass\n"
    root = course_with(tmp_path, {"model": MODEL, "uses": uses}, "from common import uses\n\nuses.check(1)\n")
    cut = commoncut.cut(root, [root / "reference.py"])
    assert list(cut) == ["model", "uses"]  # each after the modules it imports
    assert "def check" in cut["uses"] and "def unused" not in cut["uses"]
    assert "def piece" in cut["model"] and "def later" not in cut["model"]


def test_a_module_used_in_ways_a_reading_cannot_follow_is_kept_whole(tmp_path: Path) -> None:
    opaque = MODEL + "\n\ndef by_name(name):\n    return globals()[name]\n"
    root = course_with(tmp_path, {"model": opaque}, "from common.model import by_name\n")
    assert "def later" in commoncut.cut(root, [root / "reference.py"])["model"]
    root2 = course_with(tmp_path / "b", {"model": MODEL}, "import common.model as m\n\nf = m\n")
    assert "def later" in commoncut.cut(root2, [root2 / "reference.py"])["model"]  # passed around: all of it


def test_a_missing_common_module_is_named(tmp_path: Path) -> None:
    root = course_with(tmp_path, {}, "from common.nothere import f\n")
    with pytest.raises(CourseError, match=r"common\.nothere, but there is no .*nothere\.py"):
        commoncut.cut(root, [root / "reference.py"])


def test_no_stage_jail_holds_the_common_code_that_solves_it() -> None:
    """The course's own stages: common/gpt2.py's piece for a stage is in no jail grading that stage."""
    course = load_course(ROOT)
    for stage in course.stages:
        deps = [course.stage(d) for d in upstream.earlier(course, stage)]
        if not deps:
            continue
        shipped = "".join(t for rel, t in upstream.reference_files(course, *deps).items()
                          if upstream.COMMON_COPY in rel)
        assert "def gpt2(" not in shipped or stage.id in ("generate", "kvcache"), stage.id
        if stage.id in ("mlp", "attention", "block"):
            assert "def transformer_block(" not in shipped, stage.id
        if stage.id == "mlp":
            assert "def ffn(" not in shipped
        if stage.id == "attention":
            assert "def mha(" not in shipped


@needs_jail
@pytest.mark.parametrize("stage_id", ["mlp", "block"])
def test_a_learner_who_calls_the_jails_common_copy_solves_nothing(stage_id: str, tmp_path: Path) -> None:
    root = linked_course(tmp_path / "course")
    lazy = (ROUND3 / f"lazy_{stage_id}.py").read_text()
    sub = tmp_path / "subs" / "lazy" / "student"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    (sub / f"{stage_id}.py").write_text(lazy)
    course = load_course(root)
    found = next(iter(submissions.discover(tmp_path / "subs")))
    entry = batch.grade_submission(course, found, "digest", batch.BatchOptions(stages=(stage_id,)))
    assert entry.report is not None, entry.message
    result = entry.report.stages[0]
    assert not result.passed and not any(c.passed for c in result.cases), [(c.case, c.message[:200])
                                                                            for c in result.cases]
    assert any("_course_common_gpt2" in c.message for c in result.cases), [c.message[:300] for c in result.cases]
