"""The command line: argparse, subcommands, exit codes. The one place a GraderError becomes a message.

Exit codes: 0 every graded stage passes, 1 some stage fails, 2 a usage, course or fixture error.
Imports are kept to what each command needs: a grade never imports jinja2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.course import layout
from grader.errors import GraderError, UsageError
from grader.report import FORMATS
from grader.results import Report

if TYPE_CHECKING:
    from grader.course import Course
    from grader.learner.grading import Settings

_TAKES_VALUE = ("--root", "--stage", "--checkpoint", "--format", "--output", "--save-outputs", "--next-after")


def _needs_subcommands(argv: list[str]) -> bool:
    """Whether the command line names a subcommand (or asks for help): only then are the subparsers built.

    Building the ten subparsers costs ~9 ms, a tenth of a cold grade; `--stage gelu` never needs them.
    """
    previous = ""
    for arg in argv:
        if arg in ("-h", "--help") or (not arg.startswith("-") and previous not in _TAKES_VALUE):
            return True
        previous = arg
    return False


def _parser(subcommands: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader",
        description="Grade your GPT-2 stages. With no arguments: your progress and the next step.",
        epilog="examples:\n  python -m grader --stage gelu --watch\n  python -m grader show gelu\n"
               "  python -m grader --all --format json --output results.json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", type=Path, help="the course folder (default: found upward from here)")
    p.add_argument("--stage", metavar="ID", help="grade one stage")
    p.add_argument("--all", action="store_true", help="grade every stage in order")
    p.add_argument("--watch", action="store_true", help="re-grade on every save")
    p.add_argument("--poll", action="store_true", help="with --watch: poll files instead of waiting for events")
    p.add_argument("--isolate", action="store_true",
                   help="put the reference implementations in place of the stages this one depends on")
    p.add_argument("--checkpoint", metavar="PATH", type=Path,
                   help="grade the checkpoint stage against this GPT-2 model.safetensors")
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--output", metavar="FILE", action="append", default=[],
                   help="write the report to FILE (FORMAT=FILE picks a format per file); repeatable")
    p.add_argument("--public-only", action="store_true", help="skip hidden cases even where they exist")
    p.add_argument("--save-outputs", metavar="DIR", type=Path,
                   help="write each public case's outputs as DIR/STAGE/CASE/yours.npy beside expected.npy")
    p.add_argument("--next-after", metavar="SECONDS", type=float,
                   help="with --watch: move on to the next stage this long after a pass (default: wait for n)")
    if not subcommands:
        p.set_defaults(command=None)
        return p
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, text in (("show", "print a stage's instructions"), ("hint", "print the next hint for a stage"),
                       ("reset", "restore a stage's stub (your file is backed up first)"),
                       ("restore", "bring back your file from its newest backup (made by reset)"),
                       ("inputs", "how to load a public case's inputs and expected output in a REPL or notebook")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("id", metavar="ID")
        if name == "restore":
            sp.add_argument("--from", dest="backup", metavar="NAME", help="this backup instead of the newest")
        if name == "inputs":
            sp.add_argument("case", metavar="CASE", help="a public case of the stage")
    fx = sub.add_parser("fixtures", help="build or verify fixtures (course authors)")
    fx.add_argument("action", choices=("build", "verify"))
    fx.add_argument("--stage", dest="fixture_stage", metavar="ID")
    ck = sub.add_parser("check", help="the course's self-test: references pass, decoys fail and are named")
    ck.add_argument("--stage", dest="check_stage", metavar="ID")
    _instructor_commands(sub)
    return p


def _instructor_commands(sub: Any) -> None:
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
    rp = sub.add_parser("report", help="the cohort report of a gradebook: pass rates, mistakes, each learner")
    rp.add_argument("--html", type=Path, metavar="FILE", help="also write it as one self-contained HTML page")
    fb = sub.add_parser("feedback", help="one learner's full report from the gradebook (hidden cases redacted)")
    fb.add_argument("names", metavar="NAME", nargs="*", help="a submission's name, as in the gradebook")
    for sp in (ba, rp, fb):
        sp.add_argument("--db", type=Path, default=Path("gradebook.sqlite"), metavar="FILE",
                        help="the SQLite gradebook (default gradebook.sqlite; a batch resumes where it stopped)")
        sp.add_argument("--deadline", metavar="WHEN", help="e.g. 2025-03-01T23:59 (+01:00): late submissions "
                        "lose points by course.yaml's `late:` policy; batch keeps it in the gradebook")
    for sp in (ba, rp):
        sp.add_argument("--csv", type=Path, metavar="FILE", help="also write the gradebook as CSV")
        sp.add_argument("--lms", type=Path, metavar="FILE", help="also write id,score for an LMS grade import")
        sp.add_argument("--feedback", type=Path, metavar="DIR", help="also write one feedback file per learner")
    gs = sub.add_parser("gradescope", help="build a Gradescope autograder bundle (.zip) with the hidden cases")
    gs.add_argument("out", metavar="OUT.zip", type=Path)
    ag = sub.add_parser("autograde", help="(inside a Gradescope bundle) grade a submission into results.json")
    ag.add_argument("--submission", type=Path, required=True, metavar="DIR")
    ag.add_argument("--results", type=Path, required=True, metavar="FILE")


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit code."""
    argv = sys.argv[1:] if argv is None else argv
    args = _parser(subcommands=_needs_subcommands(argv)).parse_args(argv)
    try:
        return _dispatch(args)
    except GraderError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - a bug of the grader's: exit 2 (not "some stage fails"), say so
        import traceback

        traceback.print_exc()
        print(f"error: the grader itself failed ({type(e).__name__}: {e}). This is a bug in the grader, not in "
              "your code; please report it with the lines above.", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    from grader.course import load_course

    root = (args.root or layout.find_root(Path.cwd())).resolve()
    course = load_course(root)
    if args.command == "fixtures":
        return _fixtures(course, args.action, args.fixture_stage)
    if args.command == "check":
        return _check(course, args.check_stage)
    if args.command in ("handout", "batch", "report", "feedback", "gradescope", "autograde"):
        return _instructor(course, args)
    if args.command is None and (args.watch or args.stage or args.all):
        return _grade(course, args)
    return _learner(course, args)


def _settings(args: argparse.Namespace) -> Settings:
    """The learner's choices, typed, for grader.learner (argparse's Namespace stays here)."""
    from grader.learner.grading import Settings

    if args.next_after is not None and not args.next_after >= 0:
        raise UsageError(f"--next-after {args.next_after:g}: give a number of seconds, 0 or more")
    return Settings(stage=args.stage, isolate=args.isolate, public_only=args.public_only, checkpoint=args.checkpoint,
                    save_outputs=args.save_outputs, format=args.format, outputs=tuple(args.output), poll=args.poll,
                    next_after=args.next_after)


def _grade(course: Course, args: argparse.Namespace) -> int:
    """--stage ID, --all, --watch: grade, record each verdict for its files, say what comes next."""
    from grader.learner import grading

    if args.watch:
        from grader.learner import watch

        return watch.main(course, _settings(args))
    stages = list(course.stages) if args.all else [course.stage(args.stage)]
    graded = grading.grade_stages(course, stages, _settings(args))
    for notice in graded.notices:
        print(notice, file=sys.stderr)
    emit(graded.report, args.format, args.output, footer=graded.footer)
    return 0 if graded.report.passed else 1


def emit(report: Report, fmt: str, specs: list[str], footer: list[str] | None = None) -> None:
    """Write each --output file in its format, then print the report (text to a terminal when files are written)."""
    from grader import report as reports
    from grader.report import text

    reports.write(report, reports.outputs(specs, fmt))
    if fmt == "text" or specs:
        sys.stdout.write(reports.render(report, "text", colour=text.wants_colour(sys.stdout), footer=footer))
    else:
        sys.stdout.write(reports.render(report, fmt))


def _learner(course: Course, args: argparse.Namespace) -> int:
    """The overview (no command), show, hint, reset, restore, inputs: grader.learner.commands and .cases."""
    from grader.learner import commands

    if args.command is None:
        lines, notice = commands.overview(course)
        if notice:
            print(notice, file=sys.stderr)
        print("\n".join(lines))
        return 0
    stage = course.stage(args.id)
    if args.command == "show":
        print(commands.show(course, stage), end="")
    elif args.command == "hint":
        print(commands.hint(course, stage))
    elif args.command == "reset":
        print(commands.reset_message(course, stage))
    elif args.command == "restore":
        print(commands.restore(course, stage, args.backup))
    else:
        from grader.learner import cases

        print(cases.snippet(course, stage, args.case), end="")
    return 0


def _fixtures(course: Any, action: str, stage_id: str | None) -> int:
    from grader import fixtures

    stages = [course.stage(stage_id)] if stage_id else list(course.stages)
    for stage in stages:
        if action == "build":
            path = fixtures.build(course, stage)
            n = len(stage.cases)
            print(f"built {path.relative_to(course.root)} ({n} case{'' if n == 1 else 's'})")
        else:
            fixtures.StageFixtures(course, stage).verify_all()
            print(f"{stage.id}: fixtures match {fixtures.MANIFEST}")
    return 0


def _check(course: Any, stage_id: str | None) -> int:
    from grader.instructor import check

    stages = [course.stage(stage_id)] if stage_id else list(course.stages)
    report = check.check(course, stages)
    for line in report.lines:
        mark = "skip" if line.skipped else "ok  " if line.ok else "FAIL"
        print(f"{mark} {line.stage}: {line.what}" + (f" ({line.detail})" if line.detail else ""))
    skipped = sum(line.skipped for line in report.lines)
    tail = f"; {skipped} need the instructor's copy and were skipped" if skipped else ""
    print(("check passed" if report.ok else "check FAILED") + tail)
    return 0 if report.ok else 1


def _instructor(course: Any, args: argparse.Namespace) -> int:
    """handout, batch, report, feedback, gradescope, autograde: grader.instructor.commands, with typed options."""
    from grader.instructor import commands

    get = vars(args).get
    typed = commands.Args(
        command=args.command, out=get("out"), submissions=get("submissions"), submission=get("submission"),
        results=get("results"), db=get("db") or Path("gradebook.sqlite"), jobs=get("jobs", 1),
        budget=get("budget", 120.0), stages=tuple(get("batch_stages") or ()), only=tuple(get("only") or ()),
        force=bool(get("force")), quiet=bool(get("quiet")), csv=get("csv"), html=get("html"), lms=get("lms"),
        feedback=get("feedback"), deadline=get("deadline"), names=tuple(get("names") or ()))
    if typed.command == "batch" and typed.jobs < 1:
        raise UsageError(f"--jobs {typed.jobs}: give 1 or more worker processes")
    return commands.run(course, typed, lambda line: print(line, flush=True))
