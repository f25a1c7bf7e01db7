"""Plain result records: what happened, never how it is shown.

The runner and comparator fill these in; every renderer (text, JSON, JUnit, Gradescope, CSV, HTML) reads them.
Stdlib only.
"""

from __future__ import annotations

import enum
import weakref
from typing import Any

from grader.records import Record, asdict, field, replace

# What every report of a graded run says when its submissions ran without the jail (--unsandboxed).
UNJAILED = "NOT jailed (graded with --unsandboxed: for trusted submissions only; see SECURITY.md)"

# Every live record that may quote expected values, so a forked sandbox child can blank them in its copy of the
# grader's memory without scanning the whole heap (gc.get_objects() cost ~18 ms a child in a batch worker).
LIVE: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()  # id -> record (unhashable)


class Status(str, enum.Enum):
    """One status per outcome, so a learner never reads a traceback for what is really "not started"."""

    PASS = "pass"
    FAIL = "fail"  # ran, returned an array, the values (or shape) are wrong
    TODO = "not_started"  # NotImplementedError: the stub is untouched
    SYNTAX_ERROR = "syntax_error"
    IMPORT_ERROR = "import_error"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    CRASHED = "crashed"  # killed by a signal (segfault, abort)
    EXITED = "exited"  # sys.exit / os._exit inside the learner's function
    BAD_OUTPUT = "bad_output"  # None, a string, object dtype, an unreadable value
    SKIPPED = "skipped"  # not run, e.g. because an earlier case timed out

    @property
    def category(self) -> str:
        """Coarse outcome in exercism's terms: pass, fail, error, or not_started."""
        if self is Status.PASS:
            return "pass"
        if self is Status.FAIL:
            return "fail"
        if self is Status.TODO:
            return "not_started"
        return "error"


class Mismatch(Record):
    """One element that is out of tolerance."""

    index: tuple[int, ...]
    actual: float
    expected: float
    input: float | None = None


class Comparison(Record):
    """What the comparator found for one output array."""

    ok: bool
    key: str | None = None  # the output's name when a function returns a dict
    shape_actual: tuple[int, ...] | None = None
    shape_expected: tuple[int, ...] | None = None
    total: int = 0
    mismatched: int = 0
    nonfinite: int = 0
    max_abs_error: float | None = None
    max_abs_index: tuple[int, ...] | None = None
    max_rel_error: float | None = None
    max_rel_index: tuple[int, ...] | None = None
    worst: Mismatch | None = None  # the element that uses the most of its tolerance
    first: list[Mismatch] = field(default_factory=list)
    headroom: float | None = None  # largest error / allowed error; < 1 passes
    problem: str | None = None  # shape, key or dtype problem, in words

    def __post_init__(self) -> None:
        LIVE[id(self)] = self


class CaseResult(Record):
    """One case of one stage."""

    stage: str
    case: str
    function: str
    status: Status
    weight: float = 1.0
    points: float = 0.0
    max_points: float = 0.0
    hidden: bool = False
    hidden_number: int = 0  # a hidden case's place among its stage's hidden cases in stage.yaml, from 1 (`shown_name`)
    sealed: bool = False  # a case graded with references after the hidden cases: shown as its verdict only
    atol: float = 0.0
    rtol: float = 0.0
    comparisons: list[Comparison] = field(default_factory=list)
    message: str = ""  # what went wrong, in a sentence or a trimmed traceback
    diagnosis: str | None = None  # id of the known mistake the output matches
    diagnosis_hint: str | None = None
    notes: list[str] = field(default_factory=list)
    stdout: str = ""  # what the call printed, stdout and stderr interleaved as written
    stderr: str = ""  # kept for records made before output was captured as one stream
    stdout_cut_lines: int = 0  # lines of printed output the runner dropped beyond what `stdout` holds
    stderr_cut_lines: int = 0  # the same for stderr (0 since output is one stream)
    seconds: float = 0.0
    raised_in: str | None = None  # "student/gelu.py:run_gelu": the learner's function that raised
    returned: str | None = None  # the Python type returned when it was not an array ("list", "tuple")
    where: str | None = None  # a timed-out call: the learner's line it was on ("student/gelu.py:11  while ...")
    isolation: str | None = None  # graded: what kept the learner's code apart from the grader

    def __post_init__(self) -> None:
        LIVE[id(self)] = self

    @property
    def verdict_only(self) -> bool:
        """Whether a learner sees only this case's verdict and named mistake (`redacted`): hidden, or sealed."""
        return self.hidden or self.sealed

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    @property
    def max_abs_error(self) -> float | None:
        errs = [c.max_abs_error for c in self.comparisons if c.max_abs_error is not None]
        return max(errs) if errs else None

    @property
    def max_rel_error(self) -> float | None:
        errs = [c.max_rel_error for c in self.comparisons if c.max_rel_error is not None]
        return max(errs) if errs else None

    @property
    def mismatched(self) -> int | None:
        return sum(c.mismatched for c in self.comparisons) if self.comparisons else None

    @property
    def headroom(self) -> float | None:
        used = [c.headroom for c in self.comparisons if c.headroom is not None]
        return max(used) if used else None


class Upstream(Record):
    """A graded stage's earlier stages: how they took part (course.yaml `upstream:`) and which of the learner's fail.

    policy "reference": graded with the references of the stages it depends on; "own": with the learner's own.
    """

    policy: str
    failing: list[str] = field(default_factory=list)  # earlier stages the learner's own code does not pass
    not_graded: list[str] = field(default_factory=list)  # earlier stages this run did not grade
    with_references: bool | None = None  # the stage passes with the references in place (None: not tried)

    @property
    def blamed(self) -> bool:
        """The stage fails only because of an earlier stage: that one fails, and this one passes with references."""
        return bool(self.failing) and self.with_references is True


class StageResult(Record):
    """Every case of one stage, plus what the grader noticed about the stage as a whole."""

    stage: str
    title: str
    cases: list[CaseResult]
    max_points: float = 0.0
    notes: list[str] = field(default_factory=list)
    hidden_not_run: int = 0  # hidden cases that exist but are only run at grading time
    against: str | None = None  # what the expected values came from, when not the shipped fixtures
    student_file: str = ""  # the learner's file for this stage, e.g. student/gelu.py
    upstream: Upstream | None = None  # graded runs of a stage that depends on others

    @property
    def status(self) -> Status:
        statuses = [c.status for c in self.cases]
        if statuses and all(s is Status.PASS for s in statuses):
            return Status.PASS
        if statuses and all(s is Status.TODO for s in statuses):
            return Status.TODO
        for s in statuses:
            if s not in (Status.PASS, Status.TODO):
                return s
        return Status.FAIL if statuses else Status.SKIPPED

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    @property
    def points(self) -> float:
        return sum(c.points for c in self.cases)


class Report(Record):
    """One grading run: the stages graded, in course order."""

    course: str
    stages: list[StageResult]
    notes: list[str] = field(default_factory=list)  # about the whole run (UNJAILED), shown by every renderer

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.stages)

    @property
    def points(self) -> float:
        return sum(s.points for s in self.stages)

    @property
    def max_points(self) -> float:
        return sum(s.max_points for s in self.stages)


def to_dict(obj: Any) -> Any:
    """A JSON-ready view of any record above (enums as their values, tuples as lists)."""
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Record):
        return {k: to_dict(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: to_dict(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_dict(v) for v in obj]
    return obj


def summary_of(comparisons: list[Comparison]) -> Comparison | None:
    """The comparison a one-line summary should speak of: the first failing one, else the tightest."""
    failing = [c for c in comparisons if not c.ok]
    if failing:
        return failing[0]
    return max(comparisons, key=lambda c: c.headroom or 0.0, default=None)


def shown_name(case: CaseResult) -> str:
    """What a learner sees a case called: its id, or "hidden N" for the stage's Nth hidden case (stage.yaml order).

    A hidden case's id is the course author's and may describe its inputs (an invented one: `hidden_all_negative`),
    so no learner-facing output shows it; the number stays the same across regrades as long as
    the stage's hidden cases keep their order.
    """
    if not case.hidden:
        return case.case
    return f"hidden {case.hidden_number}" if case.hidden_number else "hidden"


SEALED = "graded with the references after your hidden cases: its verdict only"  # a sealed case, in words


def redacted(case: CaseResult, for_instructor: bool = False) -> CaseResult:
    """What may be known of a hidden case: pass or fail, points and named mistake; nothing derived from its values.

    The one hidden-case policy: the judge strips graded hidden cases with it, and every renderer shows a hidden
    case through it (no id, inputs, expected or actual values, errors, messages, notes, printed output or how much
    of it was cut, what type was returned, or time taken). A field added to CaseResult is dropped here unless it is
    named below. The case is called by `shown_name` ("hidden 2"), never by its id. Every way of failing shows as
    FAIL: the status (exception, timeout, exited...) is the submission's to choose, so showing it would tell a
    learner bits of a hidden input, and so would "not run" (a later case of a function that timed out: red team
    round 7 read a hidden input's sign bit from it). Only pass, fail and not started (a stub must say so) remain.
    A `sealed` public case (graded with references after the submission's hidden cases, whose inputs its output
    could carry) is shown as its verdict alone, under its own name, without a named mistake (one of a stage's
    mistakes, chosen on purpose, is several bits); the instructor's records keep it whole.
    `for_instructor` keeps the status and the id, for the instructor's own records (the gradebook's counts of
    timeouts and crashes, its pass rate per case); learners never see those.
    """
    if not case.hidden and (not case.sealed or for_instructor):
        return case
    keep = for_instructor or case.status in (Status.PASS, Status.TODO)
    named = not case.sealed  # a sealed case names no mistake: red team round 28 chose one of 8 on a hidden input's
    # bits, round 30 one on a reference's in a hidden case graded with references
    return CaseResult(stage=case.stage, case=case.case if for_instructor else shown_name(case),
                      function=case.function, status=case.status if keep else Status.FAIL, weight=case.weight,
                      points=case.points, max_points=case.max_points, hidden=case.hidden,
                      hidden_number=case.hidden_number, sealed=case.sealed, atol=case.atol, rtol=case.rtol,
                      diagnosis=case.diagnosis if named else None,
                      diagnosis_hint=case.diagnosis_hint if named else None)


def without_hidden_values(result: StageResult) -> StageResult:
    """The stage's result with its hidden cases redacted for the instructor's records (in place; returned for chaining).

    What the judge keeps of a graded stage: the ids and statuses stay, for the gradebook; every renderer then shows
    the result through `shown_report`, which calls hidden cases "hidden N".
    """
    result.cases = [redacted(c, for_instructor=True) for c in result.cases]
    return result


def shown(stage: StageResult) -> StageResult:
    """A stage as a learner may read it: its hidden cases redacted (so its own status comes from what they show).

    Records made without their hidden cases' numbers (a gradebook row from before they were numbered) number them
    by their place among the stage's hidden cases, which the judge keeps in the stage's order.
    """
    cases = stage.cases
    if any(c.hidden and not c.hidden_number for c in cases):
        numbers = iter(range(1, len(cases) + 1))
        cases = [replace(c, hidden_number=next(numbers)) if c.hidden else c for c in cases]
    return replace(stage, cases=[redacted(c) for c in cases])


def shown_report(report: Report) -> Report:
    """A report as a learner may read it (every renderer starts here)."""
    return replace(report, stages=[shown(s) for s in report.stages])


ID_SHOWN = 48  # characters of a submission's id a one-line summary shows (round 28 padded one to wrap as a line)


def headline(text: str, cap: int = 100) -> str:
    """The first line of a message, cut to `cap` characters: what a one-line summary shows of it.

    Whole, a learner's long line wraps on the instructor's terminal into lines of its own choosing (red team round
    26 showed a forged "graded, 120/120" under its rejection).
    """
    line = (text.splitlines() or [""])[0]
    return line if len(line) <= cap else line[:cap - 3] + "..."


def listed(names: list[str], most: int = 8) -> str:
    """Names (ids, entries, files) in a one-line summary: at most `most`, each cut to ID_SHOWN ("a, b and 3 more").

    Red team round 31 padded an entry's name, printed whole in a batch note, to wrap into a line of its own.
    """
    more = len(names) - most
    return ", ".join(headline(n, ID_SHOWN) for n in names[:most]) + (f" and {more} more" if more > 0 else "")
