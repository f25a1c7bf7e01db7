"""The command line's arguments: argparse, built lazily (a grade never builds the subcommands' parsers)."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.cli import instructor
from grader.report import FORMATS

_TAKES_VALUE = ("--root", "--stage", "--checkpoint", "--format", "--output", "--save-outputs", "--next-after")


def needs_subcommands(argv: list[str]) -> bool:
    """Whether the command line names a subcommand (or asks for help): only then are the subparsers built.

    Building the ten subparsers costs ~9 ms, a tenth of a cold grade; `--stage gelu` never needs them.
    """
    previous = ""
    for arg in argv:
        if arg in ("-h", "--help") or (not arg.startswith("-") and previous not in _TAKES_VALUE):
            return True
        previous = arg
    return False


def parser(subcommands: bool = True) -> argparse.ArgumentParser:
    """The arguments of `python -m grader`; with `subcommands`, every subcommand's too."""
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
    p.add_argument("--verbose", action="store_true", help="every case in full (the report otherwise fits the screen)")
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
    gen = sub.add_parser("generate", help="your own code at work: the course's demo (GPT-2 writes text from PROMPT)")
    gen.add_argument("prompt", metavar="PROMPT")
    gen.add_argument("--tokens", type=int, default=32, metavar="N", help="how many new tokens (default 32)")
    gen.add_argument("--temperature", type=float, default=0.0, help="0 (default): greedy; above 0: sampling")
    gen.add_argument("--top-k", type=int, default=0, metavar="K", help="sample among the K likeliest (0: all)")
    gen.add_argument("--seed", type=int, default=0, help="the sampling's seed (default 0)")
    gen.add_argument("--compare", action="store_true", help="print the reference's continuation beside yours")
    fx = sub.add_parser("fixtures", help="build or verify fixtures (course authors)")
    fx.add_argument("action", choices=("build", "verify"))
    fx.add_argument("--stage", dest="fixture_stage", metavar="ID", action="append",
                    help="these stages only (repeatable; all by default)")
    ck = sub.add_parser("check", help="the course's self-test: references pass, decoys fail and are named")
    ck.add_argument("--stage", dest="check_stage", metavar="ID", action="append",
                    help="these stages only (repeatable; all by default)")
    instructor.add_commands(sub)
    return p
