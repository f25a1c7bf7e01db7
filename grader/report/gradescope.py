"""Gradescope's results.json: one test per case, with the case's share of the stage's points.

Follows Gradescope's autograder specification (gradescope-autograders.readthedocs.io/en/latest/specs/): top-level
score, execution_time, output, output_format, visibility, stdout_visibility, extra_data, tests; each test has name,
score, max_score, status ("passed" or "failed"), output, output_format, visibility and number. The spec has no
top-level maximum (Gradescope sums the tests' max_score); the total is in `output` and in extra_data.max_score.

Feedback on a hidden case is its status and the mistake it matches, never its inputs, expected values, the
learner's printed output or an error message computed from its inputs; its test is named "STAGE: hidden N", never
by the case's id (results.shown_name).
"""

from __future__ import annotations

import json
import math
from typing import Any

from grader.report import text
from grader.results import SEALED, CaseResult, Report, Status, redacted, shown_report

LABEL = {Status.TODO: "not started", Status.SKIPPED: "not run", Status.PASS: "passed", Status.FAIL: "failed"}


def _points(x: float) -> float:
    return round(x, 6) if math.isfinite(x) else 0.0


def case_feedback(case: CaseResult) -> str:
    """What a learner may read about one case: full detail for a public case, status and mistake for a hidden one."""
    case = redacted(case)
    if not case.verdict_only:
        return "\n".join(text.case_report(case))
    what = "a hidden check" if case.hidden else SEALED
    lines = [f"{case.case} ({what}): {LABEL.get(case.status, case.status.value.replace('_', ' '))}"]
    if case.diagnosis:
        lines.append(f"Known mistake: {case.diagnosis}. {case.diagnosis_hint or ''}".rstrip())
    if not case.passed and case.hidden:
        lines.append("Its inputs are not shown; the public checks of this stage show what is expected.")
    return "\n".join(lines)


def summary_line(report: Report) -> str:
    """The run's total in one line."""
    passed = sum(s.passed for s in report.stages)
    return (f"{report.course}: {report.points:.4g}/{report.max_points:.4g} points; "
            f"{passed} of {len(report.stages)} stages pass.")


def results(report: Report, seconds: float | None = None, hidden_visibility: str = "visible") -> dict[str, Any]:
    """The results.json object."""
    report = shown_report(report)
    tests = []
    number = 0
    for stage in report.stages:
        for case in stage.cases:
            number += 1
            tests.append({
                "name": f"{stage.stage}: {case.case}",
                "number": f"{number}",
                "score": _points(case.points),
                "max_score": _points(case.max_points),
                "status": "passed" if case.passed else "failed",
                "output": case_feedback(case),
                "output_format": "text",
                "visibility": hidden_visibility if case.hidden else "visible",
            })
    lines = [summary_line(report), *report.notes]
    lines += [f"  {text.verdict(s)}" for s in report.stages]
    out: dict[str, Any] = {
        "score": _points(report.points),
        "output": "\n".join(lines),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"max_score": _points(report.max_points), "course": report.course, "notes": report.notes,
                       "stages": {s.stage: {"status": s.status.value, "points": _points(s.points),
                                            "max_points": _points(s.max_points)} for s in report.stages}},
        "tests": tests,
    }
    if seconds is not None:
        out["execution_time"] = round(seconds, 3)
    return out


def failure(message: str) -> dict[str, Any]:
    """A results.json for a submission that could not be graded at all (Gradescope must always get one)."""
    return {"score": 0.0, "output": message, "output_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": []}


def render(report: Report) -> str:
    """results.json as text."""
    return json.dumps(results(report), indent=1, ensure_ascii=False) + "\n"
