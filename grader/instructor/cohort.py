"""The cohort report's data: pass rate per stage, the most common mistakes, the score distribution.

Computed from a gradebook; rendered as text here (a few lines) and as one self-contained HTML page by
grader/report/html.py.
"""

from __future__ import annotations

import statistics
from collections import Counter

from grader.course import Course
from grader.instructor.gradebook import Gradebook
from grader.results import UNJAILED
from grader.results.cohort import BINS, CohortReport, Mistake, StageStats


def build(course: Course, book: Gradebook, top: int = 10) -> CohortReport:
    """The cohort report of a gradebook."""
    rows = book.rows()
    graded = [r for r in rows if r.state == "graded"]
    max_points = max((r.max_points for r in graded), default=sum(s.points for s in course.stages))
    report = CohortReport(course=course.title, submissions=len(rows), graded=len(graded),
                          rejected=sum(r.state == "rejected" for r in rows),
                          errors=sum(r.state == "error" for r in rows), max_points=max_points)
    for stage in course.stages:
        results = [r.stages[stage.id] for r in graded if stage.id in r.stages]
        report.stages.append(StageStats(
            id=stage.id, title=stage.title, graded=len(results), passed=sum(s == "pass" for s, _, _ in results),
            not_started=sum(s == "not_started" for s, _, _ in results),
            mean_points=statistics.fmean(p for _, p, _ in results) if results else 0.0, max_points=stage.points))
    subs: Counter[tuple[str, str]] = Counter()
    cases: Counter[tuple[str, str]] = Counter()
    seen = set()
    for c in book.cases():
        if c.diagnosis:
            cases[(c.stage, c.diagnosis)] += 1
            if (c.submission, c.stage, c.diagnosis) not in seen:
                seen.add((c.submission, c.stage, c.diagnosis))
                subs[(c.stage, c.diagnosis)] += 1
    report.mistakes = [Mistake(stage, ident, n, cases[(stage, ident)])
                       for (stage, ident), n in sorted(subs.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
    report.scores = [r.points for r in graded]
    report.histogram = [0] * BINS
    for points in report.scores:
        share = points / max_points if max_points else 0.0
        report.histogram[min(int(share * BINS), BINS - 1)] += 1
    report.problems = [(r.id, r.state, r.message) for r in rows if r.state != "graded"]
    report.unjailed = sum(r.state == "graded" and r.message.startswith(UNJAILED[:10]) for r in graded)
    return report


def render_text(report: CohortReport) -> str:
    """The cohort report as a few lines of text."""
    lines = [f"{report.course}: {report.submissions} submissions, {report.graded} graded, "
             f"{report.rejected} rejected, {report.errors} grader errors",
             *([f"{report.unjailed} of them graded {UNJAILED}"] if report.unjailed else []),
             f"Score: mean {report.mean:.3g}, median {report.median:.3g} of {report.max_points:g} points", "",
             "Pass rate per stage:"]
    for s in report.stages:
        if not s.graded:
            lines.append(f"  {s.id:<14}   n/a   (not graded)")
            continue
        lines.append(f"  {s.id:<14} {100 * s.pass_rate:5.1f}%  ({s.passed} of {s.graded}; {s.not_started} not "
                     f"started; mean {s.mean_points:.3g}/{s.max_points:g})")
    lines += ["", "Most common mistakes:"]
    lines += [f"  {m.stage}: {m.id:<28} {m.submissions} submissions ({m.cases} cases)" for m in report.mistakes]
    if not report.mistakes:
        lines.append("  none recognised")
    lines += ["", "Score distribution (share of the maximum):"]
    peak = max(report.histogram, default=0) or 1
    for i, n in enumerate(report.histogram):
        lo, hi = 100 * i // BINS, 100 * (i + 1) // BINS
        lines.append(f"  {lo:3d}-{hi:3d}%  {'#' * round(30 * n / peak):<30} {n}")
    if report.problems:
        lines += ["", "Not graded:"]
        lines += [f"  {sid} ({state}): {msg.splitlines()[0] if msg else ''}" for sid, state, msg in report.problems]
    return "\n".join(lines) + "\n"
