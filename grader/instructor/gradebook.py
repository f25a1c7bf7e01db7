"""The cohort's gradebook: one SQLite file (stdlib sqlite3) with a row per submission, per stage and per case.

Each submission is written in one transaction (its old rows replaced), so a batch killed at any point leaves every
submission either fully recorded or absent. A row records the content digest and the course state it was graded
with (grader/instructor/regrade.py), its whole report (compressed JSON, for `feedback`), when it was submitted and
its similarity fingerprints. One writer (the batch's parent process); WAL so a report can read while a batch
writes. A gradebook of the first schema is brought up to date in place: its rows are then stale and regraded.
"""

from __future__ import annotations

import json
import sqlite3
import time
from array import array
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.records import Record, field
from grader.results import Report
from grader.results import stored as stored_reports
from grader.results.cohort import CaseRow, Row, StageCell

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
  id TEXT PRIMARY KEY, digest TEXT NOT NULL, state TEXT NOT NULL, points REAL NOT NULL, max_points REAL NOT NULL,
  message TEXT NOT NULL, seconds REAL NOT NULL, compute_seconds REAL NOT NULL, graded_at TEXT NOT NULL,
  course_key TEXT NOT NULL DEFAULT '', submitted_at REAL, report BLOB);
CREATE TABLE IF NOT EXISTS stages (
  submission TEXT NOT NULL, stage TEXT NOT NULL, status TEXT NOT NULL, points REAL NOT NULL,
  max_points REAL NOT NULL, upstream TEXT NOT NULL DEFAULT '', blamed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (submission, stage));
CREATE TABLE IF NOT EXISTS cases (
  submission TEXT NOT NULL, stage TEXT NOT NULL, case_id TEXT NOT NULL, status TEXT NOT NULL, points REAL NOT NULL,
  max_points REAL NOT NULL, hidden INTEGER NOT NULL, diagnosis TEXT, message TEXT NOT NULL,
  PRIMARY KEY (submission, stage, case_id));
CREATE TABLE IF NOT EXISTS states (key TEXT PRIMARY KEY, parts TEXT NOT NULL, first_used TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fingerprints (
  submission TEXT NOT NULL, file TEXT NOT NULL, hashes BLOB NOT NULL, PRIMARY KEY (submission, file));
"""
_UPGRADE_1 = """
ALTER TABLE submissions ADD COLUMN course_key TEXT NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN submitted_at REAL;
ALTER TABLE submissions ADD COLUMN report BLOB;
ALTER TABLE stages ADD COLUMN upstream TEXT NOT NULL DEFAULT '';
ALTER TABLE stages ADD COLUMN blamed INTEGER NOT NULL DEFAULT 0;
UPDATE meta SET value = '2' WHERE key = 'schema';
"""
STATES = ("graded", "rejected", "error")  # rejected: the submission itself is unusable; error: the grader failed


class Entry(Record):
    """One submission's outcome, as the batch hands it to the gradebook."""

    id: str
    digest: str
    state: str
    report: Report | None = None
    message: str = ""
    seconds: float = 0.0  # wall time to grade it
    compute_seconds: float = 0.0  # time spent inside the learner's functions
    max_points: float = 0.0  # what the stages graded are worth (for a row without a report: rejected, error)
    course_key: str = ""  # the course state it was graded with (regrade.CourseState.key)
    submitted_at: float | None = None  # newest time of the files graded (zip entry times or file mtimes)
    fingerprints: dict[str, list[int]] = field(default_factory=dict)  # file -> similarity fingerprints


class Gradebook:
    """A gradebook file, created on first use; refuses a file made for another course."""

    def __init__(self, path: Path, course_title: str) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            meta = self._meta()
            if meta.get("schema") == "1" and meta.get("course") == course_title:
                with self.db:
                    self.db.executescript(_UPGRADE_1)
                meta["schema"] = "2"
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise UsageError(f"{path}: not a gradebook this grader can use ({e}); pass another --db file")
        if not meta:
            with self.db:
                self.db.executemany("INSERT INTO meta VALUES (?, ?)",
                                    [("schema", str(SCHEMA_VERSION)), ("course", course_title)])
        elif meta.get("schema") != str(SCHEMA_VERSION) or meta.get("course") != course_title:
            self.db.close()
            raise UsageError(f"{path}: this gradebook belongs to course '{meta.get('course')}' (schema "
                             f"{meta.get('schema')}); pass another --db file for '{course_title}'")

    def _meta(self) -> dict[str, str]:
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def setting(self, key: str) -> str | None:
        """A value kept with the gradebook (the deadline, the submissions folder a batch read)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (f"setting:{key}",)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"setting:{key}", value))

    def ids(self) -> set[str]:
        """Every submission the gradebook holds a row for."""
        return {i for (i,) in self.db.execute("SELECT id FROM submissions")}

    def known(self) -> dict[str, tuple[str, str]]:
        """Submission id -> (content digest, course state) recorded for good (a grader error is tried again)."""
        return {i: (d, k) for i, d, k in self.db.execute(
            "SELECT id, digest, course_key FROM submissions WHERE state != 'error'")}

    def remember_state(self, key: str, parts: dict[str, Any]) -> None:
        """Keep what a course state was made of, so a report can say what changed since."""
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO states VALUES (?, ?, ?)",
                            (key, json.dumps(parts, sort_keys=True), time.strftime("%Y-%m-%dT%H:%M:%S%z")))

    def states(self) -> dict[str, dict[str, Any]]:
        """Course state key -> its parts, for every state a row was graded with."""
        return {k: json.loads(p) for k, p in self.db.execute("SELECT key, parts FROM states")}

    def record(self, entry: Entry) -> None:
        """Write one submission, replacing any earlier rows for it, in a single transaction."""
        if entry.state not in STATES:
            raise ValueError(f"unknown state {entry.state!r}")
        report = entry.report
        with self.db:
            for table, key in (("cases", "submission"), ("stages", "submission"), ("fingerprints", "submission"),
                               ("submissions", "id")):
                self.db.execute(f"DELETE FROM {table} WHERE {key} = ?", (entry.id,))
            self.db.execute("INSERT INTO submissions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (entry.id, entry.digest, entry.state, report.points if report else 0.0,
                             report.max_points if report else entry.max_points, entry.message, entry.seconds,
                             entry.compute_seconds, time.strftime("%Y-%m-%dT%H:%M:%S%z"), entry.course_key,
                             entry.submitted_at, stored_reports.pack(report) if report else None))
            for stage in report.stages if report else []:
                up = stage.upstream
                self.db.execute("INSERT INTO stages VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (entry.id, stage.stage, stage.status.value, stage.points, stage.max_points,
                                 " ".join(up.failing) if up else "", int(bool(up and up.blamed))))
                self.db.executemany("INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    [(entry.id, stage.stage, c.case, c.status.value, c.points, c.max_points,
                                      int(c.hidden), c.diagnosis, c.message) for c in stage.cases])
            self.db.executemany("INSERT INTO fingerprints VALUES (?, ?, ?)",
                                [(entry.id, f, array("q", h).tobytes()) for f, h in entry.fingerprints.items()])

    def times(self) -> dict[str, float]:
        """The LMS's record of when each learner submitted (`--times`), by submission id."""
        try:
            kept = json.loads(self.setting("times") or "{}")
        except ValueError:
            return {}
        return {str(k): float(v) for k, v in kept.items()} if isinstance(kept, dict) else {}

    def rows(self) -> list[Row]:
        """Every submission, by id, with its per-stage results; submitted_at from `--times` where it names one."""
        rows = {r[0]: Row(*r) for r in self.db.execute(
            "SELECT id, state, points, max_points, message, seconds, compute_seconds, course_key, submitted_at, "
            "graded_at FROM submissions ORDER BY id")}
        for sub, stage, status, points, max_points, upstream, blamed in self.db.execute(
                "SELECT submission, stage, status, points, max_points, upstream, blamed FROM stages ORDER BY rowid"):
            if sub in rows:
                rows[sub].stages[stage] = StageCell(status, points, max_points, upstream, bool(blamed))
        for sub, when in self.times().items():
            if sub in rows:
                rows[sub].submitted_at = when
        return list(rows.values())

    def cases(self) -> list[CaseRow]:
        """Every case of every graded submission."""
        return [CaseRow(s, st, c, status, bool(h), d) for s, st, c, status, h, d in self.db.execute(
            "SELECT submission, stage, case_id, status, hidden, diagnosis FROM cases ORDER BY submission, rowid")]

    def report(self, submission: str) -> Report | None:
        """The full report a submission was graded with (hidden cases already redacted), or None."""
        row = self.db.execute("SELECT report FROM submissions WHERE id = ?", (submission,)).fetchone()
        return stored_reports.unpack(row[0]) if row and row[0] else None

    def fingerprints(self) -> dict[str, dict[str, list[int]]]:
        """Submission -> file -> similarity fingerprints."""
        out: dict[str, dict[str, list[int]]] = {}
        for sub, name, blob in self.db.execute("SELECT submission, file, hashes FROM fingerprints"):
            out.setdefault(sub, {})[name] = array("q", blob).tolist()
        return out
