"""Renderers over result records: text for a terminal, JSON, JUnit XML, Gradescope's results.json, CSV, HTML.

This package is the one owner of the formats: `FORMATS`, `render` (a report in one format) and `outputs`
(`--output FORMAT=FILE` parsed and checked once, for a grade and for watch mode alike). Renderers import only
the result records; a hidden case is shown through `results.redacted`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from grader import fsutil
from grader.errors import UsageError
from grader.records import Record
from grader.results import Report

FORMATS = ("text", "json", "junit", "gradescope", "csv")


class Output(Record, frozen=True):
    """One --output file and the format it is written in."""

    format: str
    path: Path


def outputs(specs: list[str], default: str) -> list[Output]:
    """`--output FILE` (in `default`'s format) or `--output FORMAT=FILE`, each checked; UsageError names a bad one.

    Only the first '=' separates a format from a path, and only when what stands before it is a known format
    (`junit=dir/c=d.xml` is JUnit into `dir/c=d.xml`); `a=b.xml` with an unknown 'a' is refused, not a file name.
    """
    out = []
    for spec in specs:
        kind, sep, path = spec.partition("=")
        if not sep:
            kind, path = default, spec
        if kind not in FORMATS:
            raise UsageError(f"--output {spec}: unknown format '{kind}' (formats: {', '.join(FORMATS)}); write "
                             "--output FORMAT=FILE, or --output FILE for the --format in use")
        if not path:
            raise UsageError(f"--output {spec}: no file name after '='")
        out.append(Output(kind, Path(path)))
    return out


def render(report: Report, fmt: str, colour: bool = False, footer: list[str] | None = None,
           width: int | None = None, height: int | None = None, verbose: bool = False) -> str:
    """The report in one format, by that format's module in this package (the screen options are text's only)."""
    if fmt == "text":
        from grader.report import text

        return text.render(report, colour=colour, footer=footer, width=width, height=height, verbose=verbose)
    return str(importlib.import_module(f"grader.report.{fmt}").render(report))


def write(report: Report, targets: list[Output]) -> None:
    """Write each --output file whole or not at all; a file that cannot be written is a UsageError."""
    for target in targets:
        write_file(target.path, render(report, target.format))


def write_file(path: Path, data: str) -> None:
    """Write a report file atomically, with a message that says what to do when it cannot be written."""
    path = path.resolve()
    try:
        fsutil.write_text(path, data)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}; check the folder exists and is writable")
