"""The command line's arguments: argparse, built lazily (a grade never builds the subcommands' parsers)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

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
    fx.add_argument("--stage", dest="fixture_stage", metavar="ID")
    ck = sub.add_parser("check", help="the course's self-test: references pass, decoys fail and are named")
    ck.add_argument("--stage", dest="check_stage", metavar="ID")
    _instructor(sub)
    return p


def _instructor(sub: Any) -> None:
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
    rp = sub.add_parser("report", help="the cohort report of a gradebook: pass rates, common mistakes, scores")
    rp.add_argument("--db", type=Path, default=Path("gradebook.sqlite"), metavar="FILE")
    rp.add_argument("--html", type=Path, metavar="FILE", help="also write it as one self-contained HTML page")
    rp.add_argument("--csv", type=Path, metavar="FILE", help="also write the gradebook as CSV")
    gs = sub.add_parser("gradescope", help="build a Gradescope autograder bundle (.zip) with the hidden cases")
    gs.add_argument("out", metavar="OUT.zip", type=Path)
    ag = sub.add_parser("autograde", help="(inside a Gradescope bundle) grade a submission into results.json")
    ag.add_argument("--submission", type=Path, required=True, metavar="DIR")
    ag.add_argument("--results", type=Path, required=True, metavar="FILE")
