"""The instructors' commands: handout, batch, report, gradescope, autograde (their arguments and their output).

Graded commands (batch, autograde, and the bundle's run script) grade each submission in a jail; `--unsandboxed`
grades without it, for trusted submissions only, and every report, CSV row and results.json then says NOT jailed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from grader.errors import UsageError

COMMANDS = ("handout", "batch", "report", "gradescope", "autograde")
UNSANDBOXED = ("grade without the bubblewrap jail, in forked children (only for submissions you trust; every "
               "report says NOT jailed)")


def add_commands(sub: Any) -> None:
    """The instructors' subcommands and their arguments."""
    ho = sub.add_parser("handout", help="write the learners' copy: stubs, public cases, the grader, no solutions")
    ho.add_argument("out", metavar="OUT_DIR", type=Path, help="a new (or empty) folder")
    ba = sub.add_parser("batch", help="grade a folder of submissions (folders or .zip files) into a gradebook")
    ba.add_argument("submissions", metavar="SUBMISSIONS", type=Path, help="one sub-folder or .zip per learner")
    ba.add_argument("--jobs", type=int, default=1, metavar="N", help="submissions graded at once (default 1)")
    ba.add_argument("--db", type=Path, default=Path("gradebook.sqlite"), metavar="FILE",
                    help="the SQLite gradebook (default gradebook.sqlite; a run resumes where it stopped)")
    ba.add_argument("--csv", type=Path, metavar="FILE", help="also write the gradebook as CSV")
    ba.add_argument("--budget", type=float, default=120.0, metavar="SECONDS",
                    help="time one submission may take in all (default 120)")
    ba.add_argument("--stage", dest="batch_stages", action="append", default=[], metavar="ID",
                    help="grade only this stage; repeatable")
    ba.add_argument("--quiet", action="store_true", help="no line per submission")
    ba.add_argument("--unsandboxed", action="store_true", help=UNSANDBOXED)
    rp = sub.add_parser("report", help="the cohort report of a gradebook: pass rates, common mistakes, scores")
    rp.add_argument("--db", type=Path, default=Path("gradebook.sqlite"), metavar="FILE")
    rp.add_argument("--html", type=Path, metavar="FILE", help="also write it as one self-contained HTML page")
    rp.add_argument("--csv", type=Path, metavar="FILE", help="also write the gradebook as CSV")
    gs = sub.add_parser("gradescope", help="build a Gradescope autograder bundle (.zip) with the hidden cases")
    gs.add_argument("out", metavar="OUT.zip", type=Path)
    gs.add_argument("--unsandboxed", action="store_true", help="the bundle's run script grades with --unsandboxed")
    ag = sub.add_parser("autograde", help="(inside a Gradescope bundle) grade a submission into results.json")
    ag.add_argument("--submission", type=Path, required=True, metavar="DIR")
    ag.add_argument("--results", type=Path, required=True, metavar="FILE")
    ag.add_argument("--unsandboxed", action="store_true", help=UNSANDBOXED)


def run(course: Any, args: argparse.Namespace) -> int:
    """Run one of COMMANDS; return its exit code."""
    if args.command == "handout":
        from grader.instructor import handout

        done = handout.build_handout(course, args.out)
        hidden = sum(done.hidden_kept_back.values())
        print(f"wrote the handout to {done.path}: {len(done.public)} stages, {sum(done.public.values())} public "
              f"cases; {hidden} hidden cases kept back (only their number is in the handout)")
        print(f"try it: cd {done.path} && python -m grader")
        return 0
    if args.command in ("gradescope", "autograde"):
        return _gradescope(course, args)
    from grader.instructor.gradebook import Gradebook

    if args.command == "report" and not args.db.exists():
        raise UsageError(f"{args.db}: no gradebook here; grade first with `python -m grader batch SUBMISSIONS "
                         f"--db {args.db}`")
    book = Gradebook(args.db, course.title)
    try:
        if args.command == "batch":
            _batch(course, book, args)
        _cohort(course, book, args)
    finally:
        book.close()
    return 0


def _gradescope(course: Any, args: argparse.Namespace) -> int:
    from grader.instructor import gradescope

    if args.command == "gradescope":
        names = gradescope.build_bundle(course, args.out.resolve(), unsandboxed=args.unsandboxed)
        print(f"wrote {args.out} ({len(names)} files): upload it as the autograder of a Gradescope programming "
              "assignment" + (" (it grades with --unsandboxed: NOT jailed)" if args.unsandboxed else ""))
        return 0
    report = gradescope.autograde(course, args.submission, args.results, unsandboxed=args.unsandboxed)
    print(f"wrote {args.results}" + (f": {report.points:.4g}/{report.max_points:.4g} points" if report else
                                      ": the submission could not be graded (see its output)"))
    for note in report.notes if report else []:
        print(f"note: {note}")
    return 0


def _batch(course: Any, book: Any, args: argparse.Namespace) -> None:
    if args.jobs > 1 and "numpy" not in sys.modules:  # one BLAS thread per worker: the workers share the cores
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    from grader.instructor import batch

    options = batch.BatchOptions(jobs=args.jobs, budget=args.budget, stages=tuple(args.batch_stages),
                                 unsandboxed=args.unsandboxed)
    if args.budget <= 0:
        raise UsageError(f"--budget {args.budget:g}: give a number of seconds greater than 0")
    count = [0]

    def progress(entry: Any) -> None:
        count[0] += 1
        if args.quiet:
            return
        what = (f"{entry.report.points:.4g}/{entry.report.max_points:.4g} points" if entry.report
                else entry.message.splitlines()[0])
        jailed = ", NOT jailed" if args.unsandboxed else ""
        print(f"[{count[0]}] {entry.id}: {entry.state}{jailed}, {what} ({entry.seconds:.1f} s)", flush=True)

    s = batch.run(course, args.submissions, book, options, progress)
    print(f"{s.total} submissions: {s.graded} graded, {s.rejected} rejected, {s.errors} grader errors, "
          f"{s.skipped} already in {args.db} ({s.seconds:.1f} s)")
    if args.unsandboxed:
        from grader.results import UNJAILED

        print(f"note: {UNJAILED}")


def _cohort(course: Any, book: Any, args: argparse.Namespace) -> None:
    from grader import report as reports
    from grader.instructor import cohort

    if args.csv is not None:
        from grader.report import csv as csv_report

        reports.write_file(args.csv, csv_report.render_cohort([s.id for s in course.stages], book.rows()))
        print(f"wrote {args.csv}")
    if args.command == "report":
        data = cohort.build(course, book)
        sys.stdout.write(cohort.render_text(data))
        if args.html is not None:
            from grader.report import html

            reports.write_file(args.html, html.render(data))
            print(f"wrote {args.html}")
