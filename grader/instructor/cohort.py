"""The cohort report's data: how the class is doing, and whom to help with what.

Computed from a gradebook: pass rates per stage and per case (hidden cases too: a broken hidden case shows up as a
case far below its stage's others), timeouts, crashes, syntax errors and "not started" counted, the known mistakes
and who made them, "fails only because of an earlier stage", a line per learner, pairs of submissions that are
suspiciously alike, and the course state the numbers are of. Rows graded with another course state (stale) are
listed with what changed and left out of the numbers. Rendered as text by grader/report/cohorttext.py and as one
self-contained HTML page by grader/report/html.py.
"""

from __future__ import annotations

import shlex
import statistics
from collections import Counter, defaultdict

from grader import __version__
from grader.course import Course, Stage, render
from grader.instructor import intake, late, regrade, similarity
from grader.instructor.gradebook import Gradebook
from grader.report import cohorttext
from grader.results import UNJAILED
from grader.results.cohort import (
    BINS,
    OUTCOME_OF,
    OUTCOMES,
    CaseRow,
    CaseStats,
    CohortReport,
    Learner,
    LearnerStage,
    Mistake,
    Row,
    StageStats,
    moment,
)


def current_state(course: Course, book: Gradebook) -> regrade.CourseState:
    """The course state the report is of: the stages the last batch graded, as the course defines them now."""
    last = book.setting("last_state")
    parts = book.states().get(last or "", {})
    stages = tuple(s for s in parts.get("stages", {}) if s in {x.id for x in course.stages})
    return regrade.course_state(course, stages, parts.get("grading"))


def build(course: Course, book: Gradebook, top: int = 10, deadline: float | None = None) -> CohortReport:
    """The cohort report of a gradebook (deadline: the one stored by `batch --deadline` unless given)."""
    state = current_state(course, book)
    if deadline is None and book.setting("deadline"):
        deadline = float(book.setting("deadline") or 0)
    rows = late.apply(book.rows(), course.late, deadline)
    current = [r for r in rows if r.course_key == state.key]
    graded = [r for r in current if r.state == "graded"]
    stages = [s for s in course.stages if s.id in state.parts["stages"]]
    max_points = sum(s.points for s in stages)
    report = CohortReport(course=course.title, submissions=len(rows), graded=len(graded),
                          rejected=sum(r.state == "rejected" for r in current),
                          errors=sum(r.state == "error" for r in rows), max_points=max_points)
    cases = [c for c in book.cases() if c.submission in {r.id for r in graded}]
    for stage in stages:
        results = [r.stages[stage.id] for r in graded if stage.id in r.stages]
        report.stages.append(StageStats(
            id=stage.id, title=stage.title, graded=len(results), passed=sum(c.status == "pass" for c in results),
            not_started=sum(c.status == "not_started" for c in results),
            mean_points=statistics.fmean(c.points for c in results) if results else 0.0, max_points=stage.points,
            blamed=sum(c.blamed for c in results), outcomes=_outcomes(stage.id, cases)))
    report.outcomes = {k: len({c.submission for c in cases if _outcome(c.status) == k}) for k in OUTCOMES}
    report.cases = _case_stats(stages, cases)
    report.mistakes = _mistakes(cases, top)
    report.scores = [r.final for r in graded]
    report.histogram = [0] * BINS
    for points in report.scores:
        share = points / max_points if max_points else 0.0
        report.histogram[min(int(share * BINS), BINS - 1)] += 1
    report.problems = [(r.id, r.state, r.message) for r in current if r.state != "graded"]
    report.learners = _learners(rows, cases, state, book.states())
    report.similar = similarity.pairs({k: v for k, v in book.fingerprints().items() if k in {r.id for r in graded}},
                                      {s.student_file: similarity.fingerprints(render.stub(s)) for s in stages})
    report.batch_date = max((r.graded_at for r in rows), default="")
    report.course_state = state.short
    report.course_version = (f"course state {state.short}: grader {__version__}, upstream: {course.upstream}, "
                             + ", ".join(f"{s.id} {s.points:g}" for s in stages))
    report.stale = len(rows) - len(current)
    # a command to paste into a shell: every path quoted (red team round 8: a folder named `x; echo PWNED #`)
    folder = shlex.quote(book.setting("submissions") or "SUBMISSIONS")
    only = " ".join(["--stage " + s.id for s in stages] if len(stages) < len(course.stages) else [])
    report.regrade = intake.printable(f"python -m grader batch {folder} --db {shlex.quote(str(book.path))} {only}"
                                      ).rstrip()
    report.deadline = moment(deadline, "%Y-%m-%d %H:%M %z") if deadline else ""
    report.late = sum(r.late_days > 0 for r in current)
    report.unjailed = sum(r.state == "graded" and r.message.startswith(UNJAILED[:10]) for r in graded)
    return report


def _outcome(status: str) -> str:
    return OUTCOME_OF.get(status, status)


def _outcomes(stage: str, cases: list[CaseRow]) -> dict[str, int]:
    subs: dict[str, set[str]] = defaultdict(set)
    for c in cases:
        if c.stage == stage:
            subs[_outcome(c.status)].add(c.submission)
    return {k: len(subs[k]) for k in OUTCOMES}


def _case_stats(stages: list[Stage], cases: list[CaseRow]) -> list[CaseStats]:
    ran: Counter[tuple[str, str]] = Counter()
    passed: Counter[tuple[str, str]] = Counter()
    for c in cases:
        if c.status != "skipped":
            ran[c.stage, c.case] += 1
            passed[c.stage, c.case] += c.status == "pass"
    out = [CaseStats(st.id, c.id, c.hidden, ran[st.id, c.id], passed[st.id, c.id]) for st in stages for c in st.cases]
    for stat in out:  # far below its stage's other cases, which most learners pass: check the case itself
        others = [o.pass_rate for o in out if o.stage == stat.stage and o is not stat and o.ran]
        typical = statistics.median(others) if others else 0.0
        stat.suspect = stat.ran >= 3 and typical >= 0.5 and stat.pass_rate <= typical / 2
    return out


def _mistakes(cases: list[CaseRow], top: int) -> list[Mistake]:
    who: dict[tuple[str, str], list[str]] = defaultdict(list)
    count: Counter[tuple[str, str]] = Counter()
    for c in cases:
        if c.diagnosis:
            count[c.stage, c.diagnosis] += 1
            if c.submission not in who[c.stage, c.diagnosis]:
                who[c.stage, c.diagnosis].append(c.submission)
    ranked = sorted(who.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:top]
    return [Mistake(stage, ident, len(subs), count[stage, ident], sorted(subs)) for (stage, ident), subs in ranked]


def _learners(rows: list[Row], cases: list[CaseRow], state: regrade.CourseState,
              states: dict[str, dict[str, object]]) -> list[Learner]:
    named: dict[str, list[str]] = defaultdict(list)
    for c in cases:
        label = f"{c.stage}: {c.diagnosis}"
        if c.diagnosis and label not in named[c.submission]:
            named[c.submission].append(label)
    out = []
    for r in rows:
        when = moment(r.submitted_at)
        stale = "" if r.course_key == state.key else regrade.what_changed(states.get(r.course_key), state)
        out.append(Learner(
            id=r.id, state=r.state, points=r.points, max_points=r.max_points, final=r.final, late_days=r.late_days,
            submitted_at=when, course_state=r.course_key[:10], stale=stale,
            stages=[LearnerStage(sid, c.status, c.points, c.max_points, c.upstream, c.blamed)
                    for sid, c in r.stages.items()],
            mistakes=named.get(r.id, []), message=r.message,
            upstream=[f"{sid} ← {c.upstream}" + (" (only cause)" if c.blamed else "")
                      for sid, c in r.stages.items() if (c.upstream and c.status != "pass") or c.blamed]))
    return out


def render_text(report: CohortReport) -> str:
    """The cohort report as text (grader/report/cohorttext.py)."""
    return cohorttext.render(report)
