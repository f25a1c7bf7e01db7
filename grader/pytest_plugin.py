"""`pytest --stage ID`: each case of a stage becomes a pytest item whose failure text is the grader's own.

Registered by the package (entry point `gpt2_course`), or with `-p grader.pytest_plugin` in a handout. Without
--stage it does nothing. The stage is graded once, by the grader (forked child, fixtures with digests, decoys), when
its first item runs; each item then reports its case. Items are named `<stage>::<case>`; a case that is not
started fails with "not started", and a hidden case shows its status and mistake only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grader.course.model import Course, Stage
from grader.results import StageResult


def pytest_addoption(parser: pytest.Parser) -> None:
    """--stage, --course-root, --public-only."""
    group = parser.getgroup("gpt2_course", "the course grader (python -m grader)")
    group.addoption("--stage", action="append", default=[], metavar="ID",
                    help="collect each case of this course stage as a test (repeatable; 'all' for every stage)")
    group.addoption("--course-root", default=None, metavar="DIR",
                    help="the course folder (default: found upward from the current folder)")
    group.addoption("--public-only", action="store_true", default=False, help="skip hidden cases")


class CaseFailed(Exception):
    """A case that did not pass; its text is the grader's report of the case."""


class StageCollector(pytest.Collector):
    """The cases of one stage."""

    def __init__(self, *, course: Course, stage: Stage, public_only: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.course, self.stage, self.public_only = course, stage, public_only
        self._result: StageResult | None = None

    def collect(self) -> list[pytest.Item]:
        return [CaseItem.from_parent(self, name=case.id, case=case.id) for case in self.stage.cases
                if not (self.public_only and case.hidden)]

    def result(self) -> StageResult:
        """The stage's StageResult, graded on first use."""
        if self._result is None:
            from grader.judge import grade

            self._result = grade.grade_stage(self.course, self.stage, grade.Options(hidden=not self.public_only))
        return self._result


class CaseItem(pytest.Item):
    """One case of a stage."""

    def __init__(self, *, case: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        parent = self.parent
        assert isinstance(parent, StageCollector)
        result = parent.result()
        found = next((c for c in result.cases if c.case == self.case), None)
        if found is None or found.passed:
            return
        from grader.report.gradescope import case_feedback

        raise CaseFailed(case_feedback(found))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        parent = self.parent
        assert isinstance(parent, StageCollector)
        return parent.stage.file, 0, f"{parent.stage.id}::{self.case}"


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --stage: add an item per case of each stage asked for."""
    wanted = config.getoption("--stage")
    if not wanted:
        return
    from grader.course import load_course
    from grader.course.layout import find_root
    from grader.errors import GraderError

    try:
        root = Path(config.getoption("--course-root") or find_root(Path.cwd()))
        course = load_course(root)
        stages = list(course.stages) if "all" in wanted else [course.stage(s) for s in wanted]
    except GraderError as e:
        raise pytest.UsageError(str(e))
    if items:  # `pytest --stage gelu` in a course that has its own test suite: run the stage, not the suite
        config.hook.pytest_deselected(items=list(items))
        items.clear()
    for stage in stages:
        collector = StageCollector.from_parent(session, name=stage.id, nodeid=stage.id, course=course,
                                               stage=stage, public_only=config.getoption("--public-only"))
        items.extend(collector.collect())
