"""The instructors' commands: handout, batch, report, feedback, gradescope, autograde (their arguments).

What each command does is grader/instructor/commands.py, with typed options (`commands.Args`). Graded commands
(batch, autograde, and the bundle's run script) grade each submission in a jail; `--unsandboxed` grades without it,
for trusted submissions only, and every report, CSV row and results.json then says NOT jailed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from grader.errors import UsageError

COMMANDS = ("handout", "batch", "report", "feedback", "gradescope", "autograde")
UNSANDBOXED = ("grade without the bubblewrap jail, in forked children (only for submissions you trust; every "
               "report says NOT jailed)")


def add_commands(sub: Any) -> None:
    """The instructors' subcommands and their arguments."""
    ho = sub.add_parser("handout", help="write the learners' copy: stubs, public cases, the grader, no solutions")
    ho.add_argument("out", metavar="OUT_DIR", type=Path, help="a new (or empty) folder")
    ba = sub.add_parser("batch", help="grade a folder of submissions (folders or .zip files) into a gradebook")
    ba.add_argument("submissions", metavar="SUBMISSIONS", type=Path,
                    help="one sub-folder or .zip per learner (or one learner's: regrades that learner)")
    ba.add_argument("--jobs", type=int, default=1, metavar="N", help="submissions graded at once (default 1)")
    ba.add_argument("--budget", type=float, default=120.0, metavar="SECONDS",
                    help="time each stage of a submission may take in all (default 120)")
    ba.add_argument("--stage", dest="batch_stages", action="append", default=[], metavar="ID",
                    help="grade only this stage; repeatable")
    ba.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="grade (again) only this learner's submission; repeatable")
    ba.add_argument("--force", action="store_true", help="regrade even what is graded with this course state")
    ba.add_argument("--quiet", action="store_true", help="no line per submission")
    ba.add_argument("--unsandboxed", action="store_true", help=UNSANDBOXED)
    rp = sub.add_parser("report", help="the cohort report of a gradebook: pass rates, mistakes, each learner")
    rp.add_argument("--html", type=Path, metavar="FILE", help="also write it as one self-contained HTML page")
    fb = sub.add_parser("feedback", help="one learner's full report from the gradebook (hidden cases redacted)")
    fb.add_argument("names", metavar="NAME", nargs="*", help="a submission's name, as in the gradebook")
    for sp in (ba, rp, fb):
        sp.add_argument("--db", type=Path, default=Path("gradebook.sqlite"), metavar="FILE",
                        help="the SQLite gradebook (default gradebook.sqlite; a batch resumes where it stopped)")
        sp.add_argument("--deadline", metavar="WHEN", help="e.g. 2025-03-01T23:59 (+01:00): late submissions "
                        "lose points by course.yaml's `late:` policy; batch keeps it in the gradebook")
        sp.add_argument("--times", type=Path, metavar="FILE", help="the LMS's submission times: a CSV of "
                        "submission,submitted_at; they count instead of the files' own times (kept in the gradebook)")
    for sp in (ba, rp):
        sp.add_argument("--csv", type=Path, metavar="FILE", help="also write the gradebook as CSV")
        sp.add_argument("--lms", type=Path, metavar="FILE", help="also write id,score for an LMS grade import")
        sp.add_argument("--feedback", type=Path, metavar="DIR", help="also write one feedback file per learner")
    gs = sub.add_parser("gradescope", help="build a Gradescope autograder bundle (.zip) with the hidden cases")
    gs.add_argument("out", metavar="OUT.zip", type=Path)
    gs.add_argument("--unsandboxed", action="store_true", help="the bundle's run script grades with --unsandboxed")
    ag = sub.add_parser("autograde", help="(inside a Gradescope bundle) grade a submission into results.json")
    ag.add_argument("--submission", type=Path, required=True, metavar="DIR")
    ag.add_argument("--results", type=Path, required=True, metavar="FILE")
    ag.add_argument("--unsandboxed", action="store_true", help=UNSANDBOXED)


def run(course: Any, args: argparse.Namespace) -> int:
    """Run one of COMMANDS (grader.instructor.commands, with typed options); return its exit code."""
    from grader.instructor import commands

    get = vars(args).get
    typed = commands.Args(
        command=args.command, out=get("out"), submissions=get("submissions"), submission=get("submission"),
        results=get("results"), db=get("db") or Path("gradebook.sqlite"), jobs=get("jobs", 1),
        budget=get("budget", 120.0), stages=tuple(get("batch_stages") or ()), only=tuple(get("only") or ()),
        force=bool(get("force")), quiet=bool(get("quiet")), csv=get("csv"), html=get("html"), lms=get("lms"),
        feedback=get("feedback"), deadline=get("deadline"), times=get("times"), names=tuple(get("names") or ()),
        unsandboxed=bool(get("unsandboxed")))
    if typed.command == "batch" and typed.jobs < 1:
        raise UsageError(f"--jobs {typed.jobs}: give 1 or more worker processes")
    for stage_id in typed.stages:  # an unknown id is named here, with the course's stages, before any grading
        course.stage(stage_id)
    return commands.run(course, typed, lambda line: print(line, flush=True))
