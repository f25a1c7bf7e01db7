"""The command line: subcommands, exit codes, and the one place a GraderError becomes a message.

Its arguments are in grader/cli/args.py; the instructors' commands (handout, batch, report, feedback, gradescope,
autograde) in grader/cli/instructor.py (what they do: grader/instructor/commands.py).

Exit codes: 0 every graded stage passes, 1 some stage fails, 2 a usage, course or fixture error.
Imports are kept to what each command needs: a grade never imports jinja2.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.cli import args as cliargs
from grader.cli import instructor
from grader.course import layout
from grader.errors import GraderError, UsageError
from grader.results import Report

if TYPE_CHECKING:
    from grader.course import Course
    from grader.learner.grading import Settings

def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit code."""
    argv = sys.argv[1:] if argv is None else argv
    for stream in (sys.stdout, sys.stderr):  # a terminal that is not UTF-8 (a Latin-1 locale) shows what it cannot
        if isinstance(stream, io.TextIOWrapper):  # encode (a Cyrillic id) as escapes, never stops the batch on it
            stream.reconfigure(errors="backslashreplace")
    args = cliargs.parser(subcommands=cliargs.needs_subcommands(argv)).parse_args(argv)
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
    if args.command in instructor.COMMANDS:
        return instructor.run(course, args)
    if args.command is None and (args.watch or args.stage or args.all):
        return _grade(course, args)
    if args.command == "generate":
        return _generate(course, args)
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
    emit(graded.report, args.format, args.output, footer=graded.footer, verbose=args.verbose)
    return 0 if graded.report.passed else 1


def emit(report: Report, fmt: str, specs: list[str], footer: list[str] | None = None, verbose: bool = False) -> None:
    """Write each --output file, then print the report: text fits a terminal's screen unless --verbose."""
    from grader import report as reports
    from grader.report import text

    reports.write(report, reports.outputs(specs, fmt))
    if fmt == "text" or specs:
        width, height = text.terminal_size(sys.stdout)
        sys.stdout.write(reports.render(report, "text", colour=text.wants_colour(sys.stdout), footer=footer,
                                        width=width, height=height, verbose=verbose))
    else:
        sys.stdout.write(reports.render(report, fmt))


def _generate(course: Course, args: argparse.Namespace) -> int:
    """The course's demo on the learner's own code (GPT-2 writing text): grader.learner.demo."""
    from grader.learner import demo

    if args.tokens < 1 or args.temperature < 0 or args.top_k < 0:
        raise UsageError("--tokens must be 1 or more, --temperature and --top-k 0 or more")
    demo.run(course, demo.DemoOptions(prompt=args.prompt, tokens=args.tokens, temperature=args.temperature,
                                      top_k=args.top_k, seed=args.seed, compare=args.compare,
                                      checkpoint=args.checkpoint))
    return 0


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


def _fixtures(course: Any, action: str, stage_ids: list[str] | None) -> int:
    from grader import fixtures

    stages = [course.stage(s) for s in stage_ids] if stage_ids else list(course.stages)
    for stage in stages:
        if action == "build":
            path = fixtures.build(course, stage)
            n = len(stage.cases)
            print(f"built {path.relative_to(course.root)} ({n} case{'' if n == 1 else 's'})")
        else:
            fixtures.StageFixtures(course, stage).verify_all()
            print(f"{stage.id}: fixtures match {fixtures.MANIFEST}")
    return 0


def _check(course: Any, stage_ids: list[str] | None) -> int:
    from grader.instructor import check

    stages = [course.stage(s) for s in stage_ids] if stage_ids else list(course.stages)
    report = check.check(course, stages)
    for line in report.lines:
        mark = "skip" if line.skipped else "ok  " if line.ok else "FAIL"
        print(f"{mark} {line.stage}: {line.what}" + (f" ({line.detail})" if line.detail else ""))
    skipped = sum(line.skipped for line in report.lines)
    tail = f"; {skipped} skipped (each line says why)" if skipped else ""
    print(("check passed" if report.ok else "check FAILED") + tail)
    return 0 if report.ok else 1
