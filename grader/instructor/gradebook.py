"""The cohort's gradebook: one SQLite file (stdlib sqlite3) with a row per submission, per stage and per case.

Each submission is written in one transaction (its old rows replaced), so a batch killed at any point leaves every
submission either fully recorded or absent; `batch` run again grades only what is absent or whose content digest
changed. One writer (the batch's parent process); WAL so a report can read while a batch writes.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError
from grader.results import Report
from grader.results.cohort import CaseRow, Row

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
  id TEXT PRIMARY KEY, digest TEXT NOT NULL, state TEXT NOT NULL, points REAL NOT NULL, max_points REAL NOT NULL,
  message TEXT NOT NULL, seconds REAL NOT NULL, compute_seconds REAL NOT NULL, graded_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stages (
  submission TEXT NOT NULL, stage TEXT NOT NULL, status TEXT NOT NULL, points REAL NOT NULL,
  max_points REAL NOT NULL, PRIMARY KEY (submission, stage));
CREATE TABLE IF NOT EXISTS cases (
  submission TEXT NOT NULL, stage TEXT NOT NULL, case_id TEXT NOT NULL, status TEXT NOT NULL, points REAL NOT NULL,
  max_points REAL NOT NULL, hidden INTEGER NOT NULL, diagnosis TEXT, message TEXT NOT NULL,
  PRIMARY KEY (submission, stage, case_id));
"""
STATES = ("graded", "rejected", "error")  # rejected: the submission itself is unusable; error: the grader failed


@dataclass
class Entry:
    """One submission's outcome, as the batch hands it to the gradebook."""

    id: str
    digest: str
    state: str
    report: Report | None = None
    message: str = ""
    seconds: float = 0.0  # wall time to grade it
    compute_seconds: float = 0.0  # time spent inside the learner's functions
    max_points: float = 0.0  # what the stages graded are worth (for a row without a report: rejected, error)


class Gradebook:
    """A gradebook file, created on first use; refuses a file made for another course."""

    def __init__(self, path: Path, course_title: str) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(_SCHEMA)
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
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

    def close(self) -> None:
        self.db.close()

    def known(self) -> dict[str, str]:
        """Submission id -> content digest of what is recorded for good (a grader error is tried again)."""
        return dict(self.db.execute("SELECT id, digest FROM submissions WHERE state != 'error'").fetchall())

    def record(self, entry: Entry) -> None:
        """Write one submission, replacing any earlier rows for it, in a single transaction."""
        if entry.state not in STATES:
            raise ValueError(f"unknown state {entry.state!r}")
        report = entry.report
        with self.db:
            for table, key in (("cases", "submission"), ("stages", "submission"), ("submissions", "id")):
                self.db.execute(f"DELETE FROM {table} WHERE {key} = ?", (entry.id,))
            self.db.execute("INSERT INTO submissions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (entry.id, entry.digest, entry.state, report.points if report else 0.0,
                             report.max_points if report else entry.max_points, entry.message, entry.seconds,
                             entry.compute_seconds, time.strftime("%Y-%m-%dT%H:%M:%S%z")))
            for stage in report.stages if report else []:
                self.db.execute("INSERT INTO stages VALUES (?, ?, ?, ?, ?)",
                                (entry.id, stage.stage, stage.status.value, stage.points, stage.max_points))
                self.db.executemany("INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    [(entry.id, stage.stage, c.case, c.status.value, c.points, c.max_points,
                                      int(c.hidden), c.diagnosis, c.message) for c in stage.cases])

    def rows(self) -> list[Row]:
        """Every submission, by id, with its per-stage results."""
        rows = {r[0]: Row(*r) for r in self.db.execute(
            "SELECT id, state, points, max_points, message, seconds, compute_seconds FROM submissions ORDER BY id")}
        for sub, stage, status, points, max_points in self.db.execute(
                "SELECT submission, stage, status, points, max_points FROM stages ORDER BY rowid"):
            if sub in rows:
                rows[sub].stages[stage] = (status, points, max_points)
        return list(rows.values())

    def cases(self) -> list[CaseRow]:
        """Every case of every graded submission."""
        return [CaseRow(s, st, c, status, bool(h), d) for s, st, c, status, h, d in self.db.execute(
            "SELECT submission, stage, case_id, status, hidden, diagnosis FROM cases ORDER BY submission, rowid")]
