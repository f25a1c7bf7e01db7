"""The JSON report: one object per run (one per line in watch mode), for editors, scripts and CI."""

from __future__ import annotations

import json
import math
from typing import Any

from grader.results import SEALED, CaseResult, Report, StageResult, redacted, shown_report, to_dict


def _finite(x: Any) -> Any:
    """JSON has no inf or nan: they become strings."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def case_dict(case: CaseResult) -> dict[str, Any]:
    """One case as JSON, everything the record holds; a hidden case through `redacted` (no values, no output)."""
    case = redacted(case)
    out = {
        "id": case.case, "function": case.function, "status": case.status.value, "category": case.status.category,
        "passed": case.passed, "points": case.points, "max_points": case.max_points, "hidden": case.hidden,
        "max_abs_error": case.max_abs_error, "max_rel_error": case.max_rel_error, "mismatched": case.mismatched,
        "tolerance_used": case.headroom, "atol": case.atol, "rtol": case.rtol,
        "diagnosis": case.diagnosis, "diagnosis_hint": case.diagnosis_hint, "message": case.message,
        "notes": case.notes, "returned": case.returned, "seconds": round(case.seconds, 6),
    }
    if case.verdict_only:  # the wording for a hidden (or sealed) case; what it may show is `redacted`'s to say
        out["message"] = "" if case.passed else f"{case.status.value} ({'hidden case' if case.hidden else SEALED})"
    else:
        out["comparisons"] = to_dict(case.comparisons)
        out["stdout"], out["stderr"] = case.stdout, case.stderr
        out["stdout_cut_lines"], out["stderr_cut_lines"] = case.stdout_cut_lines, case.stderr_cut_lines
    return out


def stage_dict(stage: StageResult) -> dict[str, Any]:
    """One stage as JSON (`upstream` only in graded runs of a stage that depends on others)."""
    out = {"id": stage.stage, "title": stage.title, "status": stage.status.value, "passed": stage.passed,
           "points": stage.points, "max_points": stage.max_points, "notes": stage.notes,
           "hidden_not_run": stage.hidden_not_run, "against": stage.against,
           "cases": [case_dict(c) for c in stage.cases]}
    if stage.upstream is not None:
        out["upstream"] = to_dict(stage.upstream)
    return out


def render(report: Report, indent: int | None = 1) -> str:
    """The whole report as one JSON object (one line with indent=None)."""
    report = shown_report(report)
    data = {"course": report.course, "passed": report.passed, "points": report.points,
            "max_points": report.max_points, "notes": report.notes, "stages": [stage_dict(s) for s in report.stages]}
    return json.dumps(_finite(data), indent=indent, ensure_ascii=False) + "\n"
