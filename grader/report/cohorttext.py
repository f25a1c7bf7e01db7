"""The cohort report as text: how the class is doing, then whom to help and with what.

Sections: the course state the numbers are of (and the rows left out as stale, with the command that regrades
them), pass rates per stage, outcomes (timeouts, crashes, syntax errors, not started), per-case pass rates with
suspect cases marked, the known mistakes and who made them, similar pairs, the score distribution, a line per
learner, and what could not be graded.
"""

from __future__ import annotations

from grader.results import ID_SHOWN, UNJAILED, headline, listed
from grader.results.cohort import BINS, OUTCOMES, CohortReport, Learner

SHOW_WHO = 8  # names listed per mistake before "and N more"
LABELS = {"timeout": "timed out", "crashed": "crashed", "syntax_error": "syntax or import error",
          "exception": "raised", "not_started": "not started", "skipped": "not run"}


def late_words(days: float) -> str:
    """How late, in the unit that reads best: `40 min`, `5.5 h`, `2.1 d`."""
    if days < 1 / 24:
        return f"{max(1, round(days * 1440))} min"
    return f"{days * 24:.1f} h" if days < 1 else f"{days:.1f} d"


def _names(ids: list[str]) -> str:
    return listed(ids, SHOW_WHO)


def learner_line(learner: Learner, width: int) -> str:
    """One learner: score, late, each stage's status, named mistakes, upstream failures, stale."""
    if learner.state != "graded":
        return f"  {headline(learner.id, ID_SHOWN):<{width}}  {learner.state}: {headline(learner.message)}"
    score = f"{learner.final:.4g}/{learner.max_points:.4g}"
    if learner.late_days:
        was = f", was {learner.points:.4g}" if learner.final != learner.points else ""
        score += f" ({late_words(learner.late_days)} late{was})"
    marks = " ".join(f"{s.stage}:{s.status}" for s in learner.stages if s.status != "pass") or "all pass"
    line = f"  {headline(learner.id, ID_SHOWN):<{width}}  {score:<12} {marks}"
    if learner.mistakes:
        line += f" | mistakes: {', '.join(learner.mistakes)}"
    if learner.upstream:
        line += f" | upstream: {', '.join(learner.upstream)}"
    if learner.stale:
        line += f" | STALE ({learner.stale})"
    return line


def render(report: CohortReport) -> str:
    """The cohort report as text."""
    lines = [f"{report.course}: {report.submissions} submissions, {report.graded} graded, "
             f"{report.rejected} rejected, {report.errors} grader errors",
             *([f"{report.unjailed} of them graded {UNJAILED}"] if report.unjailed else []),
             f"Graded {report.batch_date or 'never'}; {report.course_version}"]
    if report.stale:
        lines.append(f"{report.stale} rows were graded with another course state and are left out of these numbers; "
                     f"regrade them: {report.regrade}")
    if report.deadline:
        lines.append(f"Deadline {report.deadline}: {report.late} submissions late")
    lines += [f"Score: mean {report.mean:.3g}, median {report.median:.3g} of {report.max_points:g} points", "",
              "Pass rate per stage:"]
    for s in report.stages:
        if not s.graded:
            lines.append(f"  {s.id:<14}   n/a   (not graded)")
            continue
        blamed = f"; {s.blamed} only because of an earlier stage" if s.blamed else ""
        lines.append(f"  {s.id:<14} {100 * s.pass_rate:5.1f}%  ({s.passed} of {s.graded}; {s.not_started} not "
                     f"started; mean {s.mean_points:.3g}/{s.max_points:g}{blamed})")
    lines += ["", "Outcomes (submissions with a case of each):",
              "  " + "  ".join(f"{LABELS[k]} {report.outcomes.get(k, 0)}" for k in OUTCOMES)]
    for s in report.stages:
        if any(s.outcomes.values()):
            lines.append(f"  {s.id:<14} " + "  ".join(f"{LABELS[k]} {n}" for k, n in s.outcomes.items() if n))
    lines += ["", "Pass rate per case (! = far below its stage's other cases: check the case itself):"]
    for c in report.cases:
        mark = "!" if c.suspect else " "
        lines.append(f" {mark}{c.stage + ':' + c.case:<30} {'hidden' if c.hidden else 'public':<6} "
                     f"{100 * c.pass_rate:5.1f}%  ({c.passed} of {c.ran})")
    lines += ["", "Most common mistakes:"]
    lines += [f"  {m.stage}: {m.id:<28} {m.submissions} submissions ({m.cases} cases): {_names(m.who)}"
              for m in report.mistakes]
    if not report.mistakes:
        lines.append("  none recognised")
    lines += ["", "Similar submissions (normalised code; look before you conclude anything):"]
    lines += [f"  {headline(p.a, ID_SHOWN)} ~ {headline(p.b, ID_SHOWN)}: {100 * p.score:.0f}% of the smaller one's "
              f"fingerprints ({p.shared}); {listed(p.files)}"
              for p in report.similar] or ["  none above the threshold"]
    lines += ["", "Score distribution (share of the maximum):"]
    peak = max(report.histogram, default=0) or 1
    for i, n in enumerate(report.histogram):
        lo, hi = 100 * i // BINS, 100 * (i + 1) // BINS
        lines.append(f"  {lo:3d}-{hi:3d}%  {'#' * round(30 * n / peak):<30} {n}")
    width = max((len(headline(x.id, ID_SHOWN)) for x in report.learners), default=8)
    lines += ["", "Per learner (stages that do not pass; upstream: stage ← the earlier stage of theirs that fails):"]
    lines += [learner_line(x, width) for x in report.learners]
    if report.problems:
        lines += ["", "Not graded:"]
        lines += [f"  {headline(sid, ID_SHOWN)} ({state}): {headline(msg or '')}"
                  for sid, state, msg in report.problems]
    return "\n".join(lines) + "\n"
