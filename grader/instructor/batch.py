"""Grades a folder of submissions into a gradebook, in parallel worker processes, resumably.

Each submission is unpacked (grader/instructor/submissions.py) into its own scratch folder and every stage of the
course is graded there (grader/instructor/upstream.py grades the stages), hidden cases included, all in one jail of
the submission's own (grader/run/jail/; or, with --unsandboxed, forked graded children, and every record says NOT
jailed). A machine that cannot jail is refused before the first submission. Workers are forked processes (the
course and numpy are already loaded in them) that die with the batch (PR_SET_PDEATHSIG), and their jails with
them; the parent alone writes the gradebook, one transaction per submission, as results arrive. A submission whose
id and content digest are already in the gradebook is skipped, so a batch killed halfway and run again grades only
what is missing. A time budget per stage bounds what an endless loop costs: the cases left when it runs out are
recorded as not run.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.util import Finalize
from pathlib import Path

from grader import fixtures
from grader.course import Course, Stage
from grader.errors import FixtureError, GraderError
from grader.instructor import intake, late, paths, regrade, similarity, submissions, upstream
from grader.instructor.gradebook import Entry, Gradebook
from grader.instructor.phases import Phases
from grader.records import Record, field
from grader.results import UNJAILED
from grader.run.jail import Jail, discard_spare, require, staging

_PR_SET_PDEATHSIG = 1
SCRATCH = "grader-submission-"  # + the worker's pid: a killed batch's are swept by the next


class BatchOptions(Record):
    """How a batch runs."""

    jobs: int = 1
    budget: float = 120.0  # seconds each stage of a submission may take in all; the rest of its cases are not run
    stages: tuple[str, ...] = ()  # grade only these stages (all by default)
    unsandboxed: bool = False  # forked graded children instead of the jail: trusted submissions only
    only: tuple[str, ...] = ()  # regrade only these learners (submission ids)
    force: bool = False  # regrade even the submissions graded with this content and course state


class Summary(Record):
    """What a batch did."""

    total: int = 0
    skipped: int = 0  # already in the gradebook with the same content and course state
    stale: int = 0  # regraded because the course changed since they were graded
    not_submissions: list[str] = field(default_factory=list)  # entries of the folder that are not submissions
    shared: dict[str, list[str]] = field(default_factory=dict)  # regrade.Plan's: names two entries share
    left: list[str] = field(default_factory=list)  # ... that the gradebook has a row for from an earlier batch
    graded: int = 0
    rejected: int = 0
    errors: int = 0
    seconds: float = 0.0


def grade_submission(course: Course, sub: submissions.Submission, digest: str, options: BatchOptions,
                     phases: Phases | None = None) -> Entry:
    """Unpack one submission into scratch and grade it; never raises for a problem with the submission.

    `phases`: a batch's workers share one, so that no public case runs beside another submission's hidden one.
    """
    started = time.monotonic()
    scratch = staging.locked_folder(SCRATCH)
    try:
        try:
            written = submissions.unpack(sub, scratch, flat_ok=True, declared=[s.student_file for s in course.stages])
        except submissions.SubmissionError as e:
            return Entry(sub.id, digest, "rejected", message=paths.scrub(str(e), _places(course, sub, scratch)),
                         seconds=time.monotonic() - started, max_points=upstream.max_points(course, options.stages))
        # One jail for all the submission's stages; the next submission's starts meanwhile (a warm spare)
        with Jail(scratch, unsandboxed=options.unsandboxed, warm=True) as box:
            settings = upstream.Settings(options.stages, options.budget, source=lambda stage: _source(course, stage),
                                         unsandboxed=options.unsandboxed, jail=box, phases=phases)
            report = paths.scrub_report(upstream.grade_stages(course, scratch, settings),
                                        _places(course, sub, scratch))
        compute = sum(c.seconds for s in report.stages for c in s.cases)
        prints = similarity.of_files(scratch, written, [s.student_file for s in course.stages])  # in the time below
        return Entry(sub.id, digest, "graded", report=report, seconds=time.monotonic() - started,
                     compute_seconds=compute, submitted_at=late.submitted_at(scratch, written), fingerprints=prints,
                     message=UNJAILED if options.unsandboxed else "")
    except FixtureError:
        raise  # the course's problem, not this submission's: the batch stops with the message
    except Exception as e:  # noqa: BLE001 - one submission's grader failure must not stop the cohort
        return Entry(sub.id, digest, "error", message=intake.printable(paths.scrub(
            f"the grader failed on this submission: {type(e).__name__}: {e}", _places(course, sub, scratch))),
            seconds=time.monotonic() - started, max_points=upstream.max_points(course, options.stages))
    finally:
        staging.remove(scratch)


def _places(course: Course, sub: submissions.Submission, scratch: Path | None = None) -> list[str]:
    """The grading machine's folders, cut from every message a learner may read (grader/instructor/paths.py)."""
    roots = [r for r in (scratch, sub.path.parent.absolute(), course.root) if r is not None]
    return paths.places(*roots) + [str(sub.path.parent)]


# A stage's fixtures for a whole batch: verified once per process, each case's inputs read once (StageFixtures
# keeps them). Expected outputs are read per grade inside the process grade.py forks for each graded stage.
_SOURCES: dict[str, fixtures.StageFixtures] = {}


def _source(course: Course, stage: Stage) -> fixtures.StageFixtures:
    key = f"{course.root}:{stage.id}"
    if key not in _SOURCES:
        _SOURCES[key] = fixtures.StageFixtures(course, stage)
    return _SOURCES[key]


def _warm(course: Course, options: BatchOptions) -> None:
    """Read every stage's inputs once, then freeze the heap.

    The processes forked for each stage and submission then share these pages instead of copying them as garbage
    collection walks the objects.
    """
    import gc

    for stage in [course.stage(s) for s in options.stages] if options.stages else course.stages:
        source = _source(course, stage)
        for case in stage.cases:
            source.inputs(case)
    gc.collect()
    gc.freeze()


_WORKER: dict[str, object] = {}  # the course and options, inherited by forked workers


def _die_with_the_batch(batch: int) -> None:
    """In each worker: killed (SIGKILL) when the batch's process ends, however it ends; its jail goes with it."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != batch:  # the batch ended before the line above: nobody would kill us
        os._exit(1)
    Finalize(None, discard_spare, exitpriority=10)  # a worker's warm spare jail ends with it


def _work(sub: submissions.Submission, digest: str) -> Entry:
    course, options = _WORKER["course"], _WORKER["options"]
    phases = _WORKER.get("phases")
    assert isinstance(course, Course) and isinstance(options, BatchOptions) and isinstance(phases, Phases)
    return grade_submission(course, sub, digest, options, phases)


def run(course: Course, folder: Path, book: Gradebook, options: BatchOptions,
        progress: Callable[[Entry, int, int], None] | None = None) -> Summary:
    """Grade every submission the gradebook lacks or holds stale (regrade.plan); report each as it is recorded.

    progress(entry, done, to_do) follows each recorded submission.
    """
    if options.jobs < 1:
        raise GraderError(f"--jobs {options.jobs}: give 1 or more worker processes")
    for s in options.stages:
        course.stage(s)
    require(options.unsandboxed)  # a machine that cannot jail is refused now, not on every submission
    staging.sweep(SCRATCH)  # what a batch killed earlier left
    started = time.monotonic()
    plan = regrade.plan(course, folder, book, options.stages, options.only, options.force,
                        {"budget": options.budget, "jailed": not options.unsandboxed})
    book.remember_state(plan.state.key, plan.state.parts)
    book.set_setting("last_state", plan.state.key)  # what the cohort report is of
    if not plan.single:
        book.set_setting("submissions", str(folder.resolve()))  # the cohort's folder, wherever later commands run
    summary = Summary(total=plan.total, skipped=plan.current, stale=plan.stale, not_submissions=plan.skipped,
                      shared=plan.shared, left=plan.left)
    refused = [Entry(sub.id, "", "rejected", message=paths.scrub(why, _places(course, sub)))
               for sub, why in plan.refused]  # refused while planning: scrubbed as a grade's are (round 24)
    for done, entry in enumerate(itertools.chain(refused, _results(course, plan.todo, options)), 1):  # as graded
        entry.course_key = plan.state.key
        entry = _record(book, entry)
        kind = {"graded": "graded", "rejected": "rejected", "error": "errors"}[entry.state]
        setattr(summary, kind, getattr(summary, kind) + 1)
        if progress:
            progress(entry, done, len(plan.todo) + len(refused))
    summary.seconds = time.monotonic() - started
    return summary


def _record(book: Gradebook, entry: Entry) -> Entry:
    """Write one submission; a record the gradebook cannot hold is that learner's error row, never the batch's end.

    Text from a submission is made safe where it enters (intake.printable), so this is the last guard, not
    the policy. A gradebook that cannot be written at all (a full disk, a lock) still stops the batch.
    """
    try:
        book.record(entry)
        return entry
    except (ValueError, OverflowError, sqlite3.InterfaceError, sqlite3.DataError, sqlite3.IntegrityError) as e:
        failed = Entry(intake.printable(entry.id), entry.digest, "error", message=intake.printable(
            f"the gradebook could not hold this submission's record: {type(e).__name__}: {e}")[:500],
            seconds=entry.seconds, max_points=entry.report.max_points if entry.report else entry.max_points)
        failed.course_key = entry.course_key
        book.record(failed)
        return failed


def _results(course: Course, todo: list[tuple[submissions.Submission, str]],
             options: BatchOptions) -> Iterator[Entry]:
    _warm(course, options)
    if options.jobs == 1 or len(todo) <= 1:
        try:
            for sub, digest in todo:
                yield grade_submission(course, sub, digest, options)
        finally:
            discard_spare()
        return
    phases = Phases()
    try:
        _WORKER.update(course=course, options=options, phases=phases)
        yield from _in_parallel(todo, options)
    finally:
        phases.close()


def _in_parallel(todo: list[tuple[submissions.Submission, str]], options: BatchOptions) -> Iterator[Entry]:
    pending, suspects = list(todo), []
    while pending:
        with _pool(options.jobs) as pool:
            futures: dict[Future[Entry], tuple[submissions.Submission, str]] = {}
            broken = False
            while (pending or futures) and not broken:
                while pending and len(futures) < 2 * options.jobs:
                    sub, digest = pending.pop(0)
                    futures[pool.submit(_work, sub, digest)] = (sub, digest)
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    sub, digest = futures.pop(future)
                    try:
                        yield future.result()
                    except BrokenProcessPool:  # a worker died: every submission in flight fails with it, so each
                        broken = True  # is graded again alone below, and only one that kills its worker again
                        suspects.append((sub, digest))  # is an error row (red team round 10: a bomb in one zip
            pending = [*futures.values(), *pending] if broken else pending  # cost 3 learners their rows)
    for sub, digest in suspects:
        with _pool(1) as pool:
            try:
                yield pool.submit(_work, sub, digest).result()
            except BrokenProcessPool:
                yield Entry(sub.id, digest, "error", message="the worker grading this submission died, twice, "
                            "graded alone the second time; run the batch again to retry it")


def _pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=_die_with_the_batch, initargs=(os.getpid(),))
