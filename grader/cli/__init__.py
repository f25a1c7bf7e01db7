"""The command line: argparse, subcommands, exit codes. The one place a GraderError becomes a message.

Exit codes: 0 every graded stage passes, 1 some stage fails, 2 a usage, course or fixture error.
Imports are kept to what each command needs: a grade never imports jinja2. The instructors' commands (handout,
batch, report, gradescope, autograde) are in grader/cli/instructor.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from grader.cli import instructor
from grader.course import layout
from grader.errors import GraderError
from grader.report import FORMATS
from grader.results import Report

_TAKES_VALUE = ("--root", "--stage", "--checkpoint", "--format", "--output")


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
    if not subcommands:
        p.set_defaults(command=None)
        return p
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, text in (("show", "print a stage's instructions"), ("hint", "print the next hint for a stage"),
                       ("reset", "restore a stage's stub (your file is backed up first)")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("id", metavar="ID")
    fx = sub.add_parser("fixtures", help="build or verify fixtures (course authors)")
    fx.add_argument("action", choices=("build", "verify"))
    fx.add_argument("--stage", dest="fixture_stage", metavar="ID")
    ck = sub.add_parser("check", help="the course's self-test: references pass, decoys fail and are named")
    ck.add_argument("--stage", dest="check_stage", metavar="ID")
    instructor.add_commands(sub)
    return p


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
    if args.command == "show":
        from grader.course import render

        print(render.instructions(course, course.stage(args.id)), end="")
        return 0
    if args.command == "hint":
        return _hint(course, course.stage(args.id))
    if args.command == "reset":
        from grader.learner import commands

        path, saved = commands.reset(course, course.stage(args.id))
        print(f"restored the stub in {path.relative_to(root)}"
              + (f"; your previous file is saved as {saved.relative_to(root)}" if saved else ""))
        return 0
    if args.command == "fixtures":
        return _fixtures(course, args.action, args.fixture_stage)
    if args.command == "check":
        return _check(course, args.check_stage)
    if args.command in instructor.COMMANDS:
        return instructor.run(course, args)
    if args.watch:
        from grader.learner import watch

        return watch.main(course, args)
    if args.stage or args.all:
        stages = list(course.stages) if args.all else [course.stage(args.stage)]
        return _grade(course, stages, args)
    return _overview(course)


def _grade(course: Any, stages: list[Any], args: argparse.Namespace) -> int:
    from grader.judge import grade
    from grader.learner.progress import Progress
    from grader.results import Report

    progress = Progress(course.root)
    if progress.notice:
        print(progress.notice, file=sys.stderr)
    results = []
    for stage in stages:
        options = grade.Options(isolate=args.isolate, passed=progress.passed_map(), hidden=not args.public_only)
        if args.checkpoint is not None:
            from grader.judge import external

            options.source = external.source_for(course, stage, args.checkpoint)
        result = grade.grade_stage(course, stage, options)
        results.append(result)
        if args.checkpoint is None:
            progress.record(result)
    report = Report(course=course.title, stages=results)
    emit(report, args.format, args.output, footer=_next_step(course, progress, stages))
    return 0 if report.passed else 1


def emit(report: Report, fmt: str, specs: list[str], footer: list[str] | None = None) -> None:
    """Write each --output file in its format, then print the report (text to a terminal when files are written)."""
    from grader import report as reports
    from grader.report import text

    reports.write(report, reports.outputs(specs, fmt))
    if fmt == "text" or specs:
        sys.stdout.write(reports.render(report, "text", colour=text.wants_colour(sys.stdout), footer=footer))
    else:
        sys.stdout.write(reports.render(report, fmt))


def _next_step(course: Any, progress: Any, graded: list[Any]) -> list[str]:
    for stage in course.stages:
        if not progress.passed(stage.id):
            if stage in graded or progress.status(stage.id) not in (None, "not_started"):
                return [f"Next: fix {stage.student_file}, then `python -m grader --stage {stage.id} --watch` "
                        f"(hint: `python -m grader hint {stage.id}`)"]
            return [f"Next: `python -m grader show {stage.id}`, then `python -m grader --stage {stage.id} --watch`"]
    return ["Every stage passes. Well done."]


def _overview(course: Any) -> int:
    from grader.learner.progress import Progress

    progress = Progress(course.root)
    if progress.notice:
        print(progress.notice, file=sys.stderr)
    print(f"{course.title}")
    label = {"pass": "passed", None: "not started", "not_started": "not started"}
    done = 0
    for i, stage in enumerate(course.stages, 1):
        status = progress.status(stage.id)
        done += status == "pass"
        print(f"  {i}. {stage.id:<12} {label.get(status, 'failing'):<12} {stage.title}")
    print(f"{done} of {len(course.stages)} stages passed.")
    print("\n".join(_next_step(course, progress, [])))
    return 0


def _hint(course: Any, stage: Any) -> int:
    from grader.learner.progress import Progress

    progress = Progress(course.root)
    if not stage.hints:
        print(f"stage {stage.id} has no hints; `python -m grader show {stage.id}` has the full instructions")
        return 0
    index = progress.next_hint(stage.id, len(stage.hints))
    if index is None:
        print(f"All {len(stage.hints)} hints for {stage.id} were shown:")
        for i, h in enumerate(stage.hints, 1):
            print(f"  {i}. {h}")
        return 0
    print(f"Hint {index + 1} of {len(stage.hints)} for {stage.id}: {stage.hints[index]}")
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
