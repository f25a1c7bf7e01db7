"""When a submission was made, and what lateness costs: course.yaml's `late:` policy and `batch --deadline`.

A submission's time is the newest modification time of the files graded: the zip entries' own times (the UTC time
of the "extended timestamp" field when the zip has one, else the zip's local DOS time read in this machine's time
zone), or the files' mtimes for a folder. Those are what the files themselves say, and a learner sets them (a zip
tool writes any time it is given). An LMS's own record of when each learner submitted (`--times FILE`: a CSV of
submission and time, read by `read_times` and kept in the gradebook) counts instead wherever it names a learner.
"""

from __future__ import annotations

import csv
import io
import math
import os
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from grader.course.model import LatePolicy
from grader.errors import UsageError
from grader.instructor import intake
from grader.results.cohort import Row

EARLIEST = 315532800.0  # 1980-01-01: the first time a zip can hold


def plausible(seconds: float) -> bool:
    """Whether a file's time can be when it was submitted: from 1980 to a day from now.

    A learner sets file times, and one far enough in the future cannot even be written or shown (red team round 8).
    """
    return EARLIEST <= seconds <= time.time() + 86400


def submitted_at(root: Path, written: Iterable[str]) -> float | None:
    """The newest plausible modification time of the files graded (unpack keeps each file's own, if plausible)."""
    times = []
    for rel in written:
        try:
            times.append(os.stat(root / rel).st_mtime)
        except OSError:
            continue
    return max((t for t in times if plausible(t)), default=None)


def parse_deadline(text: str) -> float:
    """--deadline 2025-03-01T23:59 (this machine's zone) or with a zone (+01:00, Z): seconds since the epoch."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--deadline {text}: give a date and time like 2025-03-01T23:59, or with a time zone "
                         "like 2025-03-01T23:59+01:00")
    return when.timestamp()  # a naive time is read in this machine's zone


SUBMISSION_COLUMNS = ("submission", "id", "name", "learner", "student")
TIME_COLUMNS = ("submitted_at", "submitted", "time", "submission_time", "timestamp")


def read_times(path: Path) -> dict[str, float]:
    """--times FILE: a CSV with a header naming a submission column and a time column -> {submission: time}.

    Times as --deadline takes them (ISO 8601, this machine's zone unless one is given), or seconds since the epoch.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--times {path}: cannot read it ({getattr(e, 'strerror', None) or e}); give a CSV file "
                         "of submission,submitted_at")
    rows = list(csv.reader(io.StringIO(text, newline="")))  # a quoted name's own line breaks stay in it (round 33)
    header = [h.strip().lower() for h in rows[0]] if rows else []
    who = next((header.index(c) for c in SUBMISSION_COLUMNS if c in header), None)
    when = next((header.index(c) for c in TIME_COLUMNS if c in header), None)
    if who is None or when is None:
        raise UsageError(f"--times {path}:1: the first line must name the columns: a submission column "
                         f"({', '.join(SUBMISSION_COLUMNS)}) and a time column ({', '.join(TIME_COLUMNS)})")
    times: dict[str, float] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(who, when):
            raise UsageError(f"--times {path}:{line}: {len(row)} columns; every line needs a submission and a time")
        # as ids are made (intake.printable: NFC, escapes), spaces and all: a name that strips to another is another
        # learner's (red team round 33: `mallory ` matched no spelling, and her own file times counted)
        name, stamp = intake.printable(row[who]), row[when].strip()
        try:
            value = float(stamp) if stamp.replace(".", "", 1).isdigit() else parse_deadline(stamp)
        except UsageError:
            raise UsageError(f"--times {path}:{line}: '{intake.printable(stamp)}' is not a time; give one like "
                             "2025-03-01T23:59 (+01:00) or seconds since the epoch")
        if name in times and times[name] != value:
            raise UsageError(f"--times {path}:{line}: '{name}' is given two different times")
        times[name] = value
    return times


def days_late(submitted: float | None, deadline: float | None, policy: LatePolicy) -> float:
    """Days past the deadline and its grace period (0 when on time, or when either time is unknown)."""
    if submitted is None or deadline is None:
        return 0.0
    return max(0.0, (submitted - deadline - 60 * policy.grace_minutes) / 86400)


def final_points(points: float, days: float, policy: LatePolicy) -> float:
    """The points after the late policy: `per_day` off per started day late, none past `max_days`."""
    if days <= 0:
        return points
    if policy.max_days is not None and days > policy.max_days:
        return 0.0
    return points * max(0.0, 1.0 - policy.per_day * math.ceil(days))


def apply(rows: list[Row], policy: LatePolicy, deadline: float | None) -> list[Row]:
    """Fill in each row's late_days and final_points (in place; returned for chaining)."""
    for row in rows:
        row.late_days = round(days_late(row.submitted_at, deadline, policy), 3)
        row.final_points = final_points(row.points, row.late_days, policy)
    return rows
