"""Grading for the learner: the options a grade takes from their progress, and what a verdict is recorded for.

`grade_stages` is `python -m grader --stage ID` (and `--all`); `FixtureGrader` is the watch loop's grader, which
keeps a stage's verified fixtures between grades. Both take the other stages' standings from the progress file as it
is now, and record a verdict with the digest of the files it was given for, unless it is not a verdict on the
learner's own files (`--isolate`, `--checkpoint`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from grader import fixtures
from grader.course.model import Case, Course, Stage
from grader.judge import grade, portable
from grader.learner import commands
from grader.learner.cases import OutputSaver
from grader.learner.filewatch import Targets
from grader.learner.progress import Progress, Standings, digest, standings
from grader.records import Record, field
from grader.results import Report, StageResult


class Settings(Record, frozen=True):
    """What the learner asked for on the command line (cli.py fills it in from argparse)."""

    stage: str | None = None
    isolate: bool = False
    public_only: bool = False
    checkpoint: Path | None = None
    save_outputs: Path | None = None
    format: str = "text"
    outputs: tuple[str, ...] = ()
    poll: bool = False  # watch: poll files instead of waiting for events
    next_after: float | None = None  # watch: move on this many seconds after a new pass (None: wait for n)


def records(settings: Settings) -> bool:
    """Whether a grade is a verdict on the learner's own files, to keep in the progress file.

    `--isolate` grades with the references in place of the stages this one uses, and `--checkpoint` against
    another model: neither says what the learner's files do, so neither is ever recorded.
    """
    return not settings.isolate and settings.checkpoint is None


def options(settings: Settings, now: Standings, cancel: Callable[[], bool] | None = None) -> grade.Options:
    """A grade's options: the learner's choices, and the other stages' standings now (for the upstream notes)."""
    return grade.Options(isolate=settings.isolate, passed=now.passed_map(), changed=now.changed(),
                         hidden=not settings.public_only, cancel=cancel)


class Graded(Record):
    """A grade from the command line: the report, the lines under it, and notices for stderr."""

    report: Report
    footer: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


class Feedback(Record, frozen=True):
    """What a verdict says beyond the report: lines to show, and the stage a "not started" waits for."""

    lines: list[str]
    waits_for: str | None = None


def feedback(course: Course, stage: Stage, result: StageResult, progress: Progress) -> Feedback:
    """Who raised NotImplementedError (when not the function graded), and the last grade's score beside this one."""
    who = commands.raiser(course, stage, result)
    lines = [line for line in (commands.raised_by(course, stage, result),
                               commands.history(progress.last_grade(stage.id), result)) if line]
    return Feedback(lines, who.stage if who else None)


def grade_stages(course: Course, stages: list[Stage], settings: Settings) -> Graded:
    """Grade stages in order, record each verdict for its files, and say what comes next."""
    progress = Progress(course.root)
    out = Graded(report=Report(course=course.title, stages=[]))
    if progress.notice:
        out.notices.append(progress.notice)
    saver = OutputSaver(settings.save_outputs) if settings.save_outputs is not None else None
    for stage in stages:
        opts = options(settings, standings(course, progress))  # an earlier stage's verdict counts at once
        if settings.checkpoint is not None:
            from grader.judge import external

            opts.source = external.source_for(course, stage, settings.checkpoint)
        if saver is not None:
            opts.keep = saver.keep(stage)
        before = digest(course, stage)
        result = grade.grade_stage(course, stage, opts)
        out.report.stages.append(result)
        said = feedback(course, stage, result, progress)
        out.footer.extend(f"{stage.id}: {line}" if len(stages) > 1 else line for line in said.lines)
        if records(settings) and digest(course, stage) == before:  # a file saved during the grade: not recorded
            progress.record(result, before, said.waits_for)
    if saver is not None:
        out.footer.append(saver.summary())
    out.footer.append(commands.next_step(course, standings(course, progress)))
    return out


class Superseded(Exception):
    """A newer event came while the grader compared outputs: the rest of the grade is not wanted."""


class StageGrader(Protocol):
    """What the watch loop grades with (tests give it a fake)."""

    def grade(self, course: Course, stage: Stage, options: grade.Options) -> StageResult:
        """Grade one stage; may raise Superseded when options.cancel says a newer event came."""

    def forget(self) -> None:
        """The stage's own files changed: drop what was kept about it."""

    def prepare(self, course: Course, stage: Stage) -> None:
        """Verify and read the stage's fixtures ahead of its first grade (called while the learner reads a pass)."""


class FixtureGrader:
    """Grades with a stage's verified fixtures, kept until a fixture or stage file's stat changes.

    The next stage's are prepared while the learner reads a pass, so its first grade does not pay for them.
    """

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.kept: fixtures.StageFixtures | None = None
        self.ready: dict[tuple[Any, ...], fixtures.StageFixtures] = {}  # prepared ahead, by the same key
        self.lock = threading.Lock()

    def forget(self) -> None:
        with self.lock:
            self.key, self.kept = None, None
            self.ready.clear()

    def prepare(self, course: Course, stage: Stage) -> None:
        def work() -> None:
            cases = grade.cases_to_run(stage, grade.Options())
            key = (stage, cases, _stats(course, stage))
            try:
                verified = fixtures.StageFixtures(course, stage, cases)
                for case in cases:
                    verified.inputs(case)
            except Exception:  # noqa: BLE001 - a problem shows when the stage is graded, with its message
                return
            with self.lock:
                self.ready[key] = verified
        threading.Thread(target=work, name="prepare-next-stage", daemon=True).start()

    def grade(self, course: Course, stage: Stage, options: grade.Options) -> StageResult:
        cases = grade.cases_to_run(stage, options)
        key = (stage, cases, _stats(course, stage))
        if key != self.key or self.kept is None:
            with self.lock:
                ready = self.ready.pop(key, None)
            self.kept = ready or fixtures.StageFixtures(course, stage, cases)
            self.key = key
        options.source = _Source(self.kept, options.cancel)
        portable.preload(options.root or course.root, stage)  # the children forked from here find them loaded
        return grade.grade_stage(course, stage, options)


def _stats(course: Course, stage: Stage) -> tuple[tuple[str, int, int, int], ...]:
    """(path, mtime_ns, size, inode) of the stage's own and fixture files: a change to either shows in it."""
    targets = Targets(course.root, stage.id)
    student = str(targets.student)
    return tuple(sorted((p, s.st_mtime_ns, s.st_size, s.st_ino) for p, s in targets.files()
                        if not p.startswith(student)))


class _Source:
    """Verified fixtures (inputs kept by StageFixtures); expected outputs are read on each call (after the fork).

    Asked for a case's expected output after a newer event, it ends the grade: the sandbox stops the child when
    cancelled, but comparing (and matching known mistakes) happens here, case by case, and can take longer.
    """

    def __init__(self, verified: fixtures.StageFixtures, cancelled: Callable[[], bool] | None) -> None:
        self.verified, self.cancelled = verified, cancelled
        self.notices, self.against, self.timeout = verified.notices, verified.against, verified.timeout

    def inputs(self, case: Case) -> dict[str, Any]:
        return self.verified.inputs(case)

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        if self.cancelled is not None and self.cancelled():
            raise Superseded
        return self.verified.expected(case)

    def dtype(self, case: Case) -> str | None:
        return self.verified.dtype(case)

    def input_digest(self, case: Case) -> str | None:
        return self.verified.input_digest(case)

    def output_size(self, case: Case) -> int | None:
        return self.verified.output_size(case)

    def input_files(self, case: Case) -> dict[str, Path]:
        return self.verified.input_files(case)
