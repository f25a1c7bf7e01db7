"""Records of a cohort: a submission as the gradebook holds it, and the cohort report's numbers.

Plain data, like the rest of grader.results: the gradebook and the cohort summary fill them in; the CSV, text and
HTML renderers read them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

BINS = 10  # score histogram bins, as shares of the maximum


@dataclass
class StageStats:
    """One stage across the cohort."""

    id: str
    title: str
    graded: int
    passed: int
    not_started: int
    mean_points: float
    max_points: float

    @property
    def pass_rate(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


@dataclass
class Mistake:
    """A known mistake and how many submissions made it."""

    stage: str
    id: str
    submissions: int
    cases: int


@dataclass
class CohortReport:
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

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0


@dataclass
class Row:
    """A submission as the gradebook holds it (what the CSV and the cohort report read)."""

    id: str
    state: str
    points: float
    max_points: float
    message: str
    seconds: float
    compute_seconds: float
    stages: dict[str, tuple[str, float, float]] = field(default_factory=dict)  # id -> (status, points, max)


@dataclass
class CaseRow:
    """One case of one graded submission."""

    submission: str
    stage: str
    case: str
    status: str
    hidden: bool
    diagnosis: str | None
