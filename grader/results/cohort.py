"""Records of a cohort: a submission as the gradebook holds it, and the cohort report's numbers.

Plain data, like the rest of grader.results: the gradebook and the cohort summary fill them in; the CSV, text and
HTML renderers read them.
"""

from __future__ import annotations

import statistics
import time
from typing import NamedTuple

from grader.records import Record, field

BINS = 10  # score histogram bins, as shares of the maximum


def moment(seconds: float | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A time as text in this machine's zone: "" for none, "?" for one no calendar here can show.

    A file time of a year past 2**31 came from a learner's tarball (red team round 8).
    """
    if seconds is None:
        return ""
    try:
        return time.strftime(fmt, time.localtime(seconds))
    except (OverflowError, OSError, ValueError):
        return "?"


OUTCOMES = ("timeout", "crashed", "syntax_error", "exception", "not_started", "skipped")  # counted per stage
OUTCOME_OF = {"memory": "crashed", "exited": "crashed", "import_error": "syntax_error", "bad_output": "exception"}


class StageStats(Record):
    """One stage across the cohort."""

    id: str
    title: str
    graded: int
    passed: int
    not_started: int
    mean_points: float
    max_points: float
    blamed: int = 0  # submissions whose stage fails (or was credited) only because of an earlier stage
    outcomes: dict[str, int] = field(default_factory=dict)  # OUTCOMES -> submissions with a case of that outcome

    @property
    def pass_rate(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


class CaseStats(Record):
    """One case across the cohort: a hidden case far below its stage's others is often a broken case."""

    stage: str
    case: str
    hidden: bool
    ran: int  # submissions in which it ran (not skipped)
    passed: int
    suspect: bool = False  # passed far less often than the other cases of its stage

    @property
    def pass_rate(self) -> float:
        return self.passed / self.ran if self.ran else 0.0


class Mistake(Record):
    """A known mistake and how many submissions made it."""

    stage: str
    id: str
    submissions: int
    cases: int
    who: list[str] = field(default_factory=list)  # the submissions that made it


class LearnerStage(Record):
    """One stage of one learner, for the per-learner table."""

    stage: str
    status: str
    points: float
    max_points: float
    upstream: str = ""  # the learner's earlier stages that fail
    blamed: bool = False


class Learner(Record):
    """One learner's line of the report: whom to help, and with what."""

    id: str
    state: str
    points: float
    max_points: float
    final: float  # after the late policy
    late_days: float
    submitted_at: str  # as text, "" when unknown
    course_state: str  # the short key of the course state it was graded with
    stale: str = ""  # what changed in the course since it was graded ("" when current)
    stages: list[LearnerStage] = field(default_factory=list)
    mistakes: list[str] = field(default_factory=list)  # "stage: mistake"
    upstream: list[str] = field(default_factory=list)  # "combine (because of double)"
    message: str = ""  # why it was not graded


class Similar(Record):
    """Two submissions that share more of their code than chance explains."""

    a: str
    b: str
    score: float  # shared fingerprints / the smaller submission's
    shared: int
    files: list[str] = field(default_factory=list)


class CohortReport(Record):
    """Everything the cohort report shows."""

    course: str
    submissions: int
    graded: int
    rejected: int
    errors: int
    max_points: float
    stages: list[StageStats] = field(default_factory=list)
    mistakes: list[Mistake] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # points of each graded submission
    histogram: list[int] = field(default_factory=list)  # BINS counts of score / max_points
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (submission, state, message)
    unjailed: int = 0  # graded submissions graded without the jail (--unsandboxed)
    learners: list[Learner] = field(default_factory=list)
    cases: list[CaseStats] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)  # OUTCOMES -> submissions with any case of it
    similar: list[Similar] = field(default_factory=list)
    batch_date: str = ""  # when the newest row was graded
    course_state: str = ""  # the short key of the course state the statistics are of
    course_version: str = ""  # in words: the grader's version, the upstream policy, the stages and points
    stale: int = 0  # rows graded with another course state, left out of the statistics
    regrade: str = ""  # the command that regrades them
    deadline: str = ""
    late: int = 0  # submissions past the deadline and its grace

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0


class StageCell(NamedTuple):
    """One stage of one submission, as the gradebook holds it."""

    status: str
    points: float
    max_points: float
    upstream: str = ""  # the learner's earlier stages that fail, space-separated
    blamed: bool = False  # fails (or, graded with the references, passes) only because of those


class Row(Record):
    """A submission as the gradebook holds it (what the CSV and the cohort report read)."""

    id: str
    state: str
    points: float
    max_points: float
    message: str
    seconds: float
    compute_seconds: float
    course_key: str = ""  # the course state it was graded with
    submitted_at: float | None = None  # seconds since the epoch
    graded_at: str = ""
    stages: dict[str, StageCell] = field(default_factory=dict)
    final_points: float | None = None  # after the late policy (None: not applied, the points stand)
    late_days: float = 0.0  # days past the deadline and its grace (0: on time, or no deadline)

    @property
    def final(self) -> float:
        return self.points if self.final_points is None else self.final_points


class CaseRow(Record):
    """One case of one graded submission."""

    submission: str
    stage: str
    case: str
    status: str
    hidden: bool
    diagnosis: str | None
