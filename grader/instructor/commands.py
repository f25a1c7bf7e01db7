"""The instructor's commands behind the CLI: handout, gradescope, autograde, batch, report, feedback.

grader/cli/instructor.py parses the command line into `Args` and hands over a writer for the lines to show; nothing
here prints. Graded commands (batch, autograde, and the bundle's run script) grade each submission in a jail;
`unsandboxed` (--unsandboxed) grades without it, for trusted submissions only, and every report, CSV row and
results.json then says NOT jailed.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from grader.course import Course
from grader.errors import UsageError
from grader.records import Record, field
from grader.results import ID_SHOWN, headline, listed

Say = Callable[[str], None]


class Args(Record):
    """An instructor command's options, typed (argparse's Namespace stays in cli.py)."""

    command: str
    out: Path | None = None  # handout OUT_DIR, gradescope OUT.zip
    submissions: Path | None = None  # batch
    submission: Path | None = None  # autograde
    results: Path | None = None  # autograde
    db: Path = Path("gradebook.sqlite")
    jobs: int = 1
    budget: float = 120.0
    stages: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    force: bool = False
    quiet: bool = False
    csv: Path | None = None
    html: Path | None = None
    lms: Path | None = None
    feedback: Path | None = None
    deadline: str | None = None
    times: Path | None = None  # batch, report, feedback: the LMS's submission times (late.read_times)
    names: tuple[str, ...] = field(default_factory=tuple)  # feedback NAME...
    unsandboxed: bool = False  # batch, gradescope, autograde: forked children instead of the jail (trusted only)


def run(course: Course, args: Args, say: Say) -> int:
    """Run one instructor command; its exit code."""
    if args.command == "handout":
        from grader.instructor import handout

        assert args.out is not None
        done = handout.build_handout(course, args.out)
        hidden = sum(done.hidden_kept_back.values())
        say(f"wrote the handout to {done.path}: {len(done.public)} stages, {sum(done.public.values())} public "
            f"cases; {hidden} hidden cases kept back (only their number is in the handout)")
        say(f"try it: cd {done.path} && python -m grader")
        return 0
    if args.command == "gradescope":
        from grader.instructor import gradescope

        assert args.out is not None
        names = gradescope.build_bundle(course, args.out.resolve(), unsandboxed=args.unsandboxed)
        say(f"wrote {args.out} ({len(names)} files): upload it as the autograder of a Gradescope programming "
            "assignment" + (" (it grades with --unsandboxed: NOT jailed)" if args.unsandboxed else ""))
        return 0
    if args.command == "autograde":
        from grader.instructor import gradescope

        assert args.submission is not None and args.results is not None
        _file_table(course, 1, (), args.unsandboxed, say)
        report = gradescope.autograde(course, args.submission, args.results, unsandboxed=args.unsandboxed)
        say(f"wrote {args.results}" + (f": {report.points:.4g}/{report.max_points:.4g} points" if report else
                                       ": the submission could not be graded (see its output)"))
        for note in report.notes if report else []:
            say(f"note: {note}")
        return 0
    return _with_gradebook(course, args, say)


def _with_gradebook(course: Course, args: Args, say: Say) -> int:
    from grader.instructor import late
    from grader.instructor.gradebook import Gradebook

    deadline = late.parse_deadline(args.deadline) if args.deadline else None
    if args.command in ("report", "feedback") and not args.db.exists():
        raise UsageError(f"{args.db}: no gradebook here; grade first with `python -m grader batch SUBMISSIONS "
                         f"--db {args.db}`")
    book = Gradebook(args.db, course.title)
    try:
        if deadline is not None and args.command == "batch":
            book.set_setting("deadline", repr(deadline))  # kept: report, feedback and --lms apply it later
        if args.times is not None and args.command != "batch":
            _times(book, args.times, say)
        if args.command == "feedback":
            from grader.instructor import feedback

            if not args.names:
                raise UsageError("feedback: name a learner (a submission's name), or write every learner's "
                                 "feedback with `python -m grader report --feedback DIR`")
            for name in args.names:
                say(feedback.for_learner(course, book, name, deadline).rstrip("\n"))
            return 0
        if args.command == "batch":
            times = late.read_times(args.times) if args.times is not None else None  # refused before grading
            _batch(course, book, args, say)
            if args.times is not None:  # after the batch: names are checked against the submissions graded
                _times(book, args.times, say, times)
        _outputs(course, book, args, deadline, say)
    finally:
        book.close()
    return 0


def _times(book: object, path: Path, say: Say, times: dict[str, float] | None = None) -> None:
    """Add the LMS's submission times to the gradebook's; say which names match no submission.

    Added, not replacing: several sections batched into one gradebook each bring their own file (red team round 33:
    section B's dropped section A's, whose learners' own file times counted again); a name given again is updated.
    """
    import json

    from grader.instructor import late
    from grader.instructor.gradebook import Gradebook

    assert isinstance(book, Gradebook)
    times = late.read_times(path) if times is None else times
    kept = {**json.loads(book.setting("times") or "{}"), **times}
    book.set_setting("times", json.dumps(kept))
    said = f", {len(kept)} in all" if len(kept) > len(times) else ""
    say(f"submission times from {path}: {len(times)} learners{said} (they count instead of their files' own times)")
    graded = {r.id for r in book.rows()}
    unknown = sorted(set(times) - graded)
    if graded and unknown:  # names made printable by read_times, each cut (round 33: raw escapes cleared the screen)
        say(f"note: {len(unknown)} names in {path} match no submission in the gradebook: {listed(unknown, 5)}"
            " (a name must be the submission's, as in the gradebook)")


def _batch(course: Course, book: object, args: Args, say: Say) -> None:
    if args.jobs > 1 and "numpy" not in sys.modules:  # one BLAS thread per worker: the workers share the cores
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    from grader.instructor import batch, regrade
    from grader.instructor.gradebook import Entry, Gradebook

    assert isinstance(book, Gradebook) and args.submissions is not None
    if not 0 < args.budget < math.inf:  # nan too: a deadline of nan would never be reached
        raise UsageError(f"--budget {args.budget:g}: give a number of seconds greater than 0")
    options = batch.BatchOptions(jobs=args.jobs, budget=args.budget, stages=args.stages, only=args.only,
                                 force=args.force, unsandboxed=args.unsandboxed)
    _file_table(course, args.jobs, args.stages, args.unsandboxed, say)
    started = time.monotonic()

    def progress(entry: Entry, done: int, total: int) -> None:
        if args.quiet:
            return
        what = (f"{entry.report.points:.4g}/{entry.report.max_points:.4g} points" if entry.report
                else headline(entry.message))
        left = regrade.time_left(done, total, time.monotonic() - started)
        jailed = ", NOT jailed" if args.unsandboxed else ""
        say(f"[{done}/{total}] {headline(entry.id, ID_SHOWN)}: {entry.state}{jailed}, {what} ({entry.seconds:.1f} s)"
            f" · {left}")

    s = batch.run(course, args.submissions, book, options, progress)
    say(f"{s.total} submissions: {s.graded} graded, {s.rejected} rejected, {s.errors} grader errors, "
        f"{s.skipped} already in {args.db} with this course state ({s.seconds:.1f} s)")
    if s.stale:
        say(f"{s.stale} of them were regraded because the course changed since they were graded")
    if s.not_submissions:
        say(f"not submissions, skipped: {listed(s.not_submissions)} (each learner's submission is a folder "
            "or a .zip)")
    for name, entries in s.shared.items():
        say(f"note: {listed(entries)} share the name {headline(name, ID_SHOWN)}, so no row has that name and an LMS "
            "import has no score under it: rename the entries that are not that learner's, and run the batch again.")
    if s.left:
        rows = (f"row {headline(s.left[0], ID_SHOWN)}, from an earlier batch, is" if len(s.left) == 1
                else f"rows {listed(s.left)}, from earlier batches, are")
        say(f"note: the gradebook's {rows} not regraded now (see above): their scores stay as they were, in "
            "reports and --lms, until the entries are renamed.")
    if args.unsandboxed:
        from grader.results import UNJAILED

        say(f"note: {UNJAILED}")


def _file_table(course: Course, jobs: int, stages: tuple[str, ...], unsandboxed: bool, say: Say) -> None:
    """Room in the machine's table of open files for all the jails could hold (grader/run/jail/filetable.py)."""
    if unsandboxed:
        return
    from grader.run import jail

    memory_mb = max(s.memory_mb for s in course.stages if not stages or s.id in stages)
    note = jail.make_room(jobs, memory_mb)
    if note:
        say(note)
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20  # MiB of memory, as MemTotal says
    except (OSError, ValueError):
        return
    if jobs * memory_mb > total > 0:  # red team round 34: past the machine's memory, its OOM
        say(f"warning: --jobs {jobs} jails of {memory_mb} MiB each could use {jobs * memory_mb:,} MiB together, more "
            f"than this machine's {total:,} MiB: the kernel's OOM killer could end an honest learner's call (graded "
            f"as out of memory); use --jobs {max(1, total // memory_mb)} or less")  # killer picks by RSS, not cgroup


def _outputs(course: Course, book: object, args: Args, deadline: float | None, say: Say) -> None:
    from grader import report as reports
    from grader.instructor import cohort, feedback, late
    from grader.instructor.gradebook import Gradebook
    from grader.report import csv as csv_report

    assert isinstance(book, Gradebook)
    if args.csv is not None:
        stored = float(book.setting("deadline") or 0) or None
        rows = late.apply(book.rows(), course.late, deadline or stored)
        reports.write_file(args.csv, csv_report.render_cohort(course.title, [s.id for s in course.stages], rows))
        say(f"wrote {args.csv}")
    if args.lms is not None:
        scores = feedback.lms_scores(course, book, deadline)
        reports.write_file(args.lms, csv_report.render_lms(scores))
        blank = sum(score is None for _, score in scores)
        say(f"wrote {args.lms} (id,score for an LMS grade import" + (f"; {blank} left blank: the grader failed "
                                                                    "on them, run the batch again)" if blank else ")"))
        key = cohort.current_state(course, book).key  # red team round 31: scores of an older course state, unsaid
        stale = [r.id for r in book.rows() if r.course_key != key]
        if stale:
            say(f"note: {len(stale)} of its scores ({listed(stale)}) were graded with another course state than the "
                "last batch's: regrade them (run the batch again) before the import, or they go in as they were.")
    if args.feedback is not None:
        written = feedback.write_all(course, book, args.feedback, deadline)
        say(f"wrote {len(written)} feedback files to {args.feedback}")
    if args.command == "report":
        data = cohort.build(course, book, deadline=deadline)
        say(cohort.render_text(data).rstrip("\n"))
        if args.html is not None:
            from grader.report import html

            reports.write_file(args.html, html.render(data))
            say(f"wrote {args.html}")
