"""`python -m grader check`: the course's self-test (rustlings' `dev check`, nbgrader's `validate --invert`).

Fixtures match their manifest; every reference passes every case, in the grader and then as a learner's file in
the jail, as `batch` and Gradescope grade (what the jail lacks, a package the stage tells learners to import, fails
here rather than in every learner's grade); every decoy fails and is named as itself; the common modules a handout
would ship are public; every stub reports "not started" on every case.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures
from grader.course import derived, render, stagecode
from grader.course.model import Course, Stage
from grader.errors import FixtureError
from grader.instructor import references
from grader.judge import grade
from grader.records import Record, field
from grader.results import StageResult, Status
from grader.run import jail


class CheckLine(Record):
    """One self-check and whether it held."""

    stage: str
    what: str
    ok: bool
    detail: str = ""
    skipped: bool = False  # could not run in this copy (a handout has no reference code)


class CheckReport(Record):
    """Everything `python -m grader check` found."""

    lines: list[CheckLine] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(line.ok for line in self.lines)


def _grade_with(course: Course, stage: Stage, stand_in: dict[str, Callable[..., Any]]) -> StageResult:
    """Grade with trusted code (a reference or a decoy) standing in for the learner's module and its upstream."""
    options = grade.Options(isolate=True, extra_substitutes={stage.module: stand_in})
    return grade.grade_stage(course, stage, options)


def check(course: Course, stages: list[Stage]) -> CheckReport:
    """Fixtures verify; every reference passes every case; every decoy fails and is named; every stub is TODO."""
    report = CheckReport()
    for stage in stages:
        add = report.lines.append
        try:
            fixtures.StageFixtures(course, stage).verify_all()
            add(CheckLine(stage.id, "fixtures match their manifest", True))
        except FixtureError as e:
            add(CheckLine(stage.id, "fixtures match their manifest", False, str(e)))
        verified = report.lines[-1].ok
        _check_shipped(course, stage, report)
        if not verified:
            continue
        if not (stage.dir / "reference.py").exists():
            add(CheckLine(stage.id, "the reference passes and every decoy is named", True,
                          "skipped: this copy has no reference solutions (a handout); these checks need the "
                          "instructor's copy of the course", skipped=True))
        else:
            _check_code(course, stage, report)
        with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
            (Path(tmp) / "student").mkdir()
            (Path(tmp) / "student" / "__init__.py").write_text("")
            (Path(tmp) / stage.student_file).write_text(render.stub(stage))
            result = grade.grade_stage(course, stage, grade.Options(root=Path(tmp)))
            bad = [c.case for c in result.cases if c.status is not Status.TODO]
            add(CheckLine(stage.id, "the stub reports 'not started' on every case", not bad,
                          f"cases not TODO: {bad}" if bad else ""))
    _check_hidden_outputs(course, stages, report)
    _check_jailed(course, [s for s in stages if (s.dir / "reference.py").exists()], report)
    return report


def _check_hidden_outputs(course: Course, stages: list[Stage], report: CheckReport) -> None:
    """No hidden case's expected output is any case's input, in any stage.

    A call's inputs enter the jail, a job holds all its calls' inputs, and a jail's /tmp outlives its jobs (red team
    round 32: the tokenizer's hidden decode was given the ids its hidden encode must return, and code that returned
    the other call's input passed both with no tokenizer at all).
    """
    given: list[tuple[str, str, str, Any]] = []  # (stage, case, input, value) of every case the fixtures verify
    for other in course.stages:
        store = fixtures.StageFixtures(course, other)
        for case in other.cases:
            try:
                given += [(other.id, case.id, k, v) for k, v in store.inputs(case).items()]
            except FixtureError:
                continue  # said by that stage's own line
    for stage in stages:
        store = fixtures.StageFixtures(course, stage)
        found = []
        for case in (c for c in stage.cases if c.hidden):
            try:
                outputs = store.expected(case).values()
            except FixtureError:
                continue
            found += [f"{case.id}'s expected output is the input '{k}' of {s}/{c}" for out in outputs
                      for s, c, k, v in given if (s, c) != (stage.id, case.id) and _same(out, v)]
        report.lines.append(CheckLine(stage.id, "no hidden case's expected output is another case's input", not found,
                                      "; ".join(found) + ": learner code can read it in the jail; give one of them "
                                      "other values" if found else ""))


def _same(expected: np.ndarray, value: Any) -> bool:
    """Whether an input holds exactly an expected output: the same text, or the same two or more numbers."""
    if expected.dtype.kind == "U":
        return isinstance(value, str) and expected.size == 1 and str(expected.reshape(())) == value
    if isinstance(value, (str, dict)) or expected.dtype.kind not in "biuf" or expected.size < 2:
        return False
    got = np.asarray(value)
    return got.dtype.kind in "biuf" and got.size == expected.size and bool(
        np.array_equal(got.ravel().astype(np.float64), expected.ravel().astype(np.float64)))


def _check_shipped(course: Course, stage: Stage, report: CheckReport) -> None:
    """A handout can hold the stage's files: the common modules they import are ones learners may read."""
    files = [stage.dir / n for n in derived.shipped_files(stage) if n.endswith(".py")]
    if not stagecode.common_sources(course.root, files):
        return
    bad = [f"{f.name} needs {', '.join(f'common/{p.name}' for p in secret)}"
           for f in files if (secret := derived.not_public(course, f))]
    report.lines.append(CheckLine(
        stage.id, "the common modules its shipped files import are public", not bad,
        "; ".join(bad) + " (not under `common: public:` in course.yaml, so a handout cannot hold them)" if bad else ""))


def _failures(result: StageResult) -> list[str]:
    return [f"{c.case} ({c.status.value}: {c.message or next((x.problem for x in c.comparisons if x.problem), '')})"
            for c in result.cases if not c.passed]


def _check_jailed(course: Course, stages: list[Stage], report: CheckReport) -> None:
    """Each reference, written as a learner's file (and those of every stage, for their imports), graded in a jail."""
    what = "the reference passes every case in the jail (graded mode)"
    why = jail.unavailable()
    if why is not None:
        report.lines += [CheckLine(s.id, what, True, f"skipped: this machine cannot jail ({why})", skipped=True)
                         for s in stages]
        return
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        root = Path(tmp)
        (root / "student").mkdir()
        (root / "student" / "__init__.py").write_text("")
        written = [s for s in course.stages if (s.dir / "reference.py").exists()]
        for rel, text in references.files(course, *written).items():  # one cut of common/ for them all
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        with jail.Jail(root) as box:
            for stage in stages:
                failed = _failures(grade.grade_stage(course, stage, grade.Options(root=root, graded=True, jail=box)))
                report.lines.append(CheckLine(stage.id, what, not failed, "; ".join(failed)))


def _check_code(course: Course, stage: Stage, report: CheckReport) -> None:
    add = report.lines.append
    references = {f.name: stagecode.reference(stage, f.name) for f in stage.functions}
    result = _grade_with(course, stage, dict(references))
    failed = _failures(result)
    tightest = max((c.headroom or 0.0 for c in result.cases), default=0.0)
    add(CheckLine(stage.id, "the reference passes every case", not failed,
                  "; ".join(failed) if failed else f"uses at most {100 * tightest:.2g}% of any tolerance"))
    for decoy in stage.decoys:
        fn = stagecode.function(stage, "decoys.py", decoy.function, stage.function(decoy.target).params)
        result = _grade_with(course, stage, {**references, decoy.target: fn})
        failing = [c for c in result.cases if c.status is Status.FAIL]
        named = [c.case for c in failing if c.diagnosis == decoy.id]
        others = sorted({f"{c.case}->{c.diagnosis}" for c in failing if c.diagnosis not in (None, decoy.id)})
        ok = bool(failing) and bool(named)
        detail = f"fails {len(failing)} of {len(result.cases)} cases, named as itself on {len(named)}"
        if others:
            detail += f"; named as another mistake on {', '.join(others)}"
        add(CheckLine(stage.id, f"decoy '{decoy.id}' fails and is recognised", ok, detail))
