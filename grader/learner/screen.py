"""What the watch loop draws: one screen that fits the terminal, verdict line first, the keys on the last line.

Output goes through a Writer passed in (a terminal's streams, or a test's list). The report comes from
grader.report.text; this module only fits it to the terminal, adds the footer and draws the other views (the
stage's instructions a page at a time, and the list of keys).
"""

from __future__ import annotations

import enum
import re
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import Protocol, TextIO

from grader.errors import GraderError
from grader.records import Record, field, replace
from grader.report import layout, text
from grader.report.text import Style
from grader.results import Report, StageResult

CLEAR = "\033[H\033[2J\033[3J"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NOTES_SHOWN = 4  # hints and notices kept under the report (the newest)

# (key, label on the keys line, what it does in the list of keys)
KEYS = (("r", "re-run", "grade again now"),
        ("h", "hint", "the next hint for this stage (the same count as `python -m grader hint`)"),
        ("s", "instructions", "the stage's instructions, a page at a time (s again: the next page)"),
        ("p", "previous", "the previous stage"),
        ("n", "next", "the next stage not passed yet (offered once this one passes)"),
        ("?", "keys", "this list"),
        ("q", "quit", "quit (Ctrl-C too)"))


class Writer(Protocol):
    """Where the watch loop's output goes."""

    def write(self, text: str) -> None:
        """A screen (or a JSON line), written and flushed."""

    def notice(self, line: str) -> None:
        """A line outside the screen (stderr), e.g. in JSON mode."""

    def size(self) -> tuple[int, int]:
        """The terminal's columns and rows."""


class StreamWriter:
    """A Writer over the process's stdout and stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out, self.err = out or sys.stdout, err or sys.stderr

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def notice(self, line: str) -> None:
        print(line, file=self.err, flush=True)

    def size(self) -> tuple[int, int]:
        columns, rows = shutil.get_terminal_size((80, 24))
        return max(columns, 20), max(rows, 8)


class View(enum.Enum):
    """What the screen shows above the footer."""

    REPORT = "report"
    INSTRUCTIONS = "instructions"
    KEYS = "keys"


class Frame(Record):
    """Everything one screen shows, computed by the watch loop from one reading of the learner's progress."""

    body: list[str]  # the report, the instructions (whole: paged here) or the list of keys
    stage: str
    view: View = View.REPORT
    page: int = 0
    notes: list[str] = field(default_factory=list)  # hints and notices, newest last
    feedback: list[str] = field(default_factory=list)  # the stage's notes, who raised, the last grade
    banner: str | None = None  # a pass, a move to another stage
    status: str = ""  # the course's progress, what is watched, the grade count
    keys: tuple[str, ...] = ()  # the keys offered now, in KEYS order
    # The report fitted to (width, rows) by the text renderer (numbers never split, the verdict first), when the
    # body is a report: compose calls it with the room the footer leaves.
    fit: Callable[[int, int], list[str]] | None = None


def rows_of(line: str, width: int) -> int:
    """How many terminal rows a line takes (colour codes take none)."""
    return max(1, -(-len(ANSI.sub("", line)) // width))


_ITEM = re.compile(r"\s*([-*+]|\d+\.) ")


def wrap(lines: list[str], width: int) -> list[str]:
    """Markdown cut to the terminal's width: paragraphs and list items flowed again; code, headings, tables kept."""
    out: list[str] = []
    block: list[str] = []  # the paragraph or list item being flowed
    indent = ""  # its continuation lines' indent
    fenced, after_blank = False, True

    def flush() -> None:
        if block:
            out.extend(textwrap.wrap(" ".join(block), width, subsequent_indent=indent, break_on_hyphens=False))
            block.clear()

    for line in lines:
        text = line.strip()
        code = fenced or text.startswith("```") or (line.startswith(("    ", "\t")) and after_blank and not block)
        if text.startswith("```"):
            fenced = not fenced
        if code or not text or text.startswith(("#", "|", ">")):
            flush()
            out.extend(textwrap.wrap(line, width, drop_whitespace=False, replace_whitespace=False) or [""])
        elif _ITEM.match(line):
            flush()
            marker = _ITEM.match(line)
            indent = " " * (marker.end() if marker else 0)
            block.append(line.rstrip())
        else:
            if not block:
                indent = ""
            block.append(text if block else line.rstrip())
        after_blank = not text
    flush()
    return out


def pages(frame: Frame, width: int, room: int) -> list[list[str]]:
    """The body cut into pages of `room` rows."""
    rows = wrap(frame.body, width)
    return [rows[i:i + room] for i in range(0, len(rows), room)] or [[]]


def footer(frame: Frame, style: Style, page_count: int, width: int | None = None) -> list[str]:
    """Under the body: notes, feedback and the banner (under the report only), the status line, then the keys.

    With a width, each line is wrapped at spaces: a number or a time is never split by the terminal.
    """
    lines = [""]
    if frame.view is View.REPORT:
        lines += frame.notes[-NOTES_SHOWN:] + frame.feedback + ([style(frame.banner, "bold")] if frame.banner else [])
    elif frame.view is View.INSTRUCTIONS:
        more = "s: next page" if frame.page + 1 < page_count else "s: the report"
        lines.append(style(f"{frame.stage}'s instructions, page {frame.page + 1} of {page_count} · {more} · "
                           "space: the report", "bold"))
    else:
        lines.append(style("? or space: back to the report", "bold"))
    lines.append(style(frame.status, "dim"))
    if frame.keys:
        lines.append(" · ".join(style(k, "bold") + f" {label}" for k, label, _ in KEYS if k in frame.keys))
    return lines if width is None else [row for line in lines for row in layout.wrap(line, width)]


def compose(frame: Frame, style: Style, size: tuple[int, int] | None) -> str:
    """The whole screen. With a size (a terminal), the body is cut to fit, so the verdict line stays on screen."""
    if size is None:  # not a terminal: everything, one screen after another
        return "\n" + "\n".join(frame.body + footer(frame, style, 1)) + "\n"
    width, height = size
    tail_rows = sum(rows_of(line, width) for line in footer(frame, style, 1, width))
    room = max(height - tail_rows - 1, 3)
    if frame.view is View.INSTRUCTIONS:
        cut = pages(frame, width, room)
        body = cut[min(frame.page, len(cut) - 1)]
        return CLEAR + "\n".join(body + footer(frame, style, len(cut), width)) + "\n"
    body = frame.fit(width, room + 1) if frame.fit is not None and frame.view is View.REPORT else frame.body
    if sum(rows_of(line, width) for line in body) > room:
        kept, used = [], 0
        for line in body:
            used += rows_of(line, width)
            if used > room - 1:
                break
            kept.append(line)
        more = len(body) - len(kept)
        where = (f": `python -m grader --stage {frame.stage}` prints the whole report" if frame.view is View.REPORT
                 else " (a taller terminal shows them)")
        body = kept + [style(f"  ... {more} more lines{where}", "dim")]
    return CLEAR + "\n".join(body + footer(frame, style, 1, width)) + "\n"


def page_count(frame: Frame, size: tuple[int, int] | None) -> int:
    """How many pages the frame's body takes on this terminal."""
    if size is None:
        return 1
    width, height = size
    room = max(height - sum(rows_of(line, width) for line in footer(frame, Style(False), 1, width)) - 1, 3)
    return len(pages(frame, width, room))


def keys_body() -> list[str]:
    """The list of keys, and how to make the watch move on by itself after a pass."""
    return (["Keys"] + [f"  {k}   {text}" for k, _, text in KEYS]
            + ["", "After a pass the watch waits for n. To move on by itself a few seconds after a",
               "pass: `python -m grader --watch --next-after 5`."])


def report_body(title: str, stage: str, last: StageResult | GraderError | None, colour: bool,
                size: tuple[int, int] | None = None) -> list[str]:
    """The verdict on screen as lines: the text report, an error, or "grading..." before the first verdict.

    With a size (columns, rows) the report is fitted to it. The stage's notes are left to the footer
    (Frame.feedback), where a report cut to fit cannot hide them.
    """
    style = Style(colour)
    if isinstance(last, StageResult):
        report = Report(course=title, stages=[replace(last, notes=[])])
        width, height = size if size is not None else (None, None)
        return text.render(report, colour=colour, width=width, height=height).rstrip("\n").split("\n")
    if last is not None:
        return [style("ERR   ", "error") + style(f"{stage}: {last}", "bold")]
    return [style(f"grading {stage}...", "dim")]


def pass_banner(stage: str, done: int, total: int, following: str | None, seconds_left: float | None) -> str:
    """The line after a pass: what comes next, and how to get there."""
    if following is None:
        return f"All {total} stages pass. Well done."
    passes = f"{stage} passes ({done} of {total} stages)"
    if seconds_left is not None:
        return f"{passes}. On to {following} in {seconds_left:.0f} s (n: now; any other key: stay)"
    return f"{passes}: press n for the next stage, {following}"


def status_line(done: int, total: int, stage: str, mode: str, count: int, graded_at: str, took: float,
                stale: bool = False) -> str:
    """The course's progress, what is watched, and which grade this is (or that the one shown is out of date)."""
    when = f" · grade {count}, {graded_at}, {took * 1000:.0f} ms" if count else ""
    if stale:
        when = f" · grading your last save... (grade {count} above is for the files before it)"
    return f"{done} of {total} stages pass [{'#' * done}{'.' * (total - done)}] · watching {stage} ({mode}){when}"
