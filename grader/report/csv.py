"""CSV for gradebooks and spreadsheets (RFC 4180: comma-separated, double quotes doubled, CRLF line ends).

A single run is one header and one row; a cohort is one row per submission, in the same columns (`header`): the
total, the late policy's outcome, the course state it was graded with, then each stage's points, status and the
learner's earlier stages that fail. `render_lms` is the two-column id,score file an LMS imports. A cell that a
spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) is prefixed with a single quote, since
submission names and messages come from learners.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from grader.results import Report
from grader.results.cohort import Row, moment

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Rows as CSV text, every cell guarded against formulas."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([_cell(h) for h in header])
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buf.getvalue()


def header(stage_ids: Sequence[str]) -> list[str]:
    """The columns of every CSV of grades: one run's (`--output csv=`) and a cohort's (`batch --csv`)."""
    out = ["course", "submission", "state", "points", "max_points", "final_points", "late_days", "submitted_at",
           "course_state", "stages_passed", "stages"]
    for s in stage_ids:
        out += [f"{s}_points", f"{s}_max_points", f"{s}_status", f"{s}_upstream"]
    return out + ["message"]


def _when(seconds: float | None) -> str:
    return moment(seconds, "%Y-%m-%dT%H:%M:%S%z")


def render(report: Report) -> str:
    """One gradebook row for one run."""
    row: list[object] = [report.course, "", "graded", report.points, report.max_points, report.points, "", "", "",
                         sum(s.passed for s in report.stages), len(report.stages)]
    for stage in report.stages:
        upstream = " ".join(stage.upstream.failing) if stage.upstream else ""
        row += [stage.points, stage.max_points, stage.status.value, upstream]
    return table(header([s.stage for s in report.stages]), [row + ["; ".join(report.notes)]])


def render_cohort(course: str, stage_ids: Sequence[str], rows: Iterable[Row]) -> str:
    """One row per submission in the gradebook, in the columns of a single run's CSV."""
    out = []
    for r in rows:
        passed = sum(c.status == "pass" for c in r.stages.values())
        line: list[object] = [course, r.id, r.state, r.points, r.max_points, r.final, r.late_days or "",
                              _when(r.submitted_at), r.course_key[:10], passed, len(r.stages)]
        for s in stage_ids:
            cell = r.stages.get(s)
            line += [cell.points, cell.max_points, cell.status, cell.upstream] if cell else ["", "", "", ""]
        line.append(r.message)
        out.append(line)
    return table(header(stage_ids), out)


def render_lms(rows: Iterable[tuple[str, float | None]], column: str = "score") -> str:
    """id,score for an LMS's grade import (Canvas and Moodle map these two columns); a blank score is not graded."""
    return table(["id", column], [[sid, "" if score is None else score] for sid, score in rows])
