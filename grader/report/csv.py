"""CSV for gradebooks and spreadsheets (RFC 4180: comma-separated, double quotes doubled, CRLF line ends).

A single run is one header and one row (the total, then each stage's points and status); a cohort is one row per
submission. A cell that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) is prefixed with
a single quote, since submission names and messages come from learners.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from grader.results import Report
from grader.results.cohort import Row

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


def render(report: Report) -> str:
    """One gradebook row for one run."""
    header = ["course", "points", "max_points", "stages_passed", "stages"]
    row: list[object] = [report.course, report.points, report.max_points, sum(s.passed for s in report.stages),
                         len(report.stages)]
    for stage in report.stages:
        header += [f"{stage.stage}_points", f"{stage.stage}_max_points", f"{stage.stage}_status"]
        row += [stage.points, stage.max_points, stage.status.value]
    header.append("notes")
    row.append("; ".join(report.notes))
    return table(header, [row])


def render_cohort(stage_ids: Sequence[str], rows: Iterable[Row]) -> str:
    """One row per submission in the gradebook."""
    header = ["submission", "state", "points", "max_points"]
    for s in stage_ids:
        header += [f"{s}_points", f"{s}_status"]
    header.append("message")
    out = []
    for r in rows:
        line: list[object] = [r.id, r.state, r.points, r.max_points]
        for s in stage_ids:
            status, points, _ = r.stages.get(s, ("", "", 0.0))
            line += [points, status]
        line.append(r.message)
        out.append(line)
    return table(header, out)
