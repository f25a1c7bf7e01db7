"""Fitting a report to a terminal: lines wrapped at spaces, and the blocks that matter most kept within its rows.

A renderer hands over blocks of logical lines in display order, each with a priority (0: always shown). `fit`
wraps every line to the width (at spaces, so a number is never split across rows), then keeps blocks by priority,
earlier before later, while they fit in the rows there are, and says per group what it left out. Pure functions
over strings; colour codes (SGR escapes) take no room.
"""

from __future__ import annotations

import math
import re

from grader.records import Record, field

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MIN_WIDTH = 40  # narrower terminals are wrapped by the terminal itself
ALWAYS = 0
_WORD = re.compile(r"( *)([^ ]+)")
_CUT_AFTER = re.compile(r"[^\w.+\-]")  # a long word is cut after punctuation, never inside a number like 1.5e-07


def visible_len(text: str) -> int:
    """Characters a terminal shows: colour codes take no room."""
    return len(ANSI.sub("", text))


class Block(Record):
    """Lines that are shown or left out together."""

    lines: list[str]
    priority: int = ALWAYS
    chain: str | None = None  # blocks of one chain are shown in order: after one that does not fit, none
    spare: bool = False  # only for a screen's spare room: left out when there is no row budget
    group: int = 0  # the stage it belongs to: each group says what it left out
    cases: int = 0  # cases whose only line this is, counted in "+N more cases"
    indent: int | None = None  # where wrapped rows start (default: the line's own indent plus two)
    fallback: Block | None = None  # a shorter stand-in, shown when this block does not fit
    rows: list[str] = field(default_factory=list)  # the lines wrapped to the width, filled by fit()


def wrap(line: str, width: int | None, indent: int | None = None) -> list[str]:
    """One line as rows of at most `width` characters, broken at spaces.

    Rows after the first start at column `indent` (default: the line's own indent plus two). A word wider than a
    row (printed output, a path; never one of the grader's numbers) is cut after punctuation where it can be.
    """
    if width is None or visible_len(line) <= width:
        return [line]
    width = max(width, MIN_WIDTH)
    plain = ANSI.sub("", line)
    lead = len(plain) - len(plain.lstrip(" "))
    indent = min(lead + 2 if indent is None else indent, width // 2)
    rows: list[str] = []
    row, used = "", 0
    for gap, word in _words(line):
        size = visible_len(word)
        if used and used + len(gap) + size > width and used > indent:
            rows.append(row)
            row, used, gap = " " * indent, indent, ""
        while used + len(gap) + size > width and "\x1b" not in word:
            room = width - used - len(gap)
            cut = _cut_point(word, room)
            if cut <= 0:
                break
            rows.append(row + gap + word[:cut])
            row, used, gap, word = " " * indent, indent, "", word[cut:]
            size = len(word)
        row += gap + word
        used += len(gap) + size
    rows.append(row)
    return rows


def shorten(line: str, width: int) -> str:
    """The line cut at its last space that leaves room for ' …' (a number is dropped whole, never split)."""
    if visible_len(line) <= width:
        return line
    cut = ""
    for gap, word in _words(line):
        if visible_len(cut + gap + word) > width - 2:
            break
        cut += gap + word
    return (cut or line[: width - 2]) + " …" + ("\x1b[0m" if "\x1b" in line else "")


def _words(line: str) -> list[tuple[str, str]]:
    """(spaces before, word) pairs; an index like [0, 3] stays one word, so it is never split across rows."""
    out: list[tuple[str, str]] = []
    for gap, word in _WORD.findall(line):
        if out and out[-1][1].count("[") > out[-1][1].count("]") and len(out[-1][1]) < 40:
            out[-1] = (out[-1][0], out[-1][1] + gap + word)
        else:
            out.append((gap, word))
    return out


def _cut_point(word: str, room: int) -> int:
    """Where to cut a word too long for its row: after the last punctuation that fits, else at the row's end."""
    if room <= 0:
        return 0
    marks = [m.end() for m in _CUT_AFTER.finditer(word, 0, room)]
    return marks[-1] if marks and marks[-1] >= room // 2 else room


def rows_of(lines: list[str], width: int | None, indent: int | None = None) -> list[str]:
    """Every line wrapped."""
    return [row for line in lines for row in wrap(line, width, indent)]


def _height(block: Block, width: int | None) -> int:
    if width is None:
        return len(block.rows)
    return sum(max(1, math.ceil(visible_len(r) / max(width, 1))) for r in block.rows)


def fit(blocks: list[Block], width: int | None, rows: int | None, quiet: frozenset[int] = frozenset(),
        more_rows: int = 1) -> tuple[list[Block], dict[int, int]]:
    """The blocks to show, in display order, and per group that left something out, the cases it left out.

    `rows` None: no row budget, every block is shown but the `spare` ones.
    `more_rows` per group with omissions (except `quiet` groups) are kept free for the caller's "+N more" line. A
    shown block's `rows` hold its lines wrapped (or its fallback's).
    """
    for block in blocks:
        block.rows = rows_of(block.lines, width, block.indent)
        if block.fallback is not None:
            block.fallback.rows = rows_of(block.fallback.lines, width, block.fallback.indent)
    reserve = 0
    while True:
        keep = _choose(blocks, width, None if rows is None else rows - reserve * more_rows)
        left_out: dict[int, int] = {}
        for i, block in enumerate(blocks):
            if (i not in keep or keep[i] is not block) and block.group not in quiet:
                left_out[block.group] = left_out.get(block.group, 0) + (block.cases if i not in keep else 0)
        if rows is None or len(left_out) <= reserve:
            return [keep[i] for i in sorted(keep)], left_out
        reserve = len(left_out)


def _choose(blocks: list[Block], width: int | None, rows: int | None) -> dict[int, Block]:
    """Index -> the block shown there (itself or its fallback): by priority, then order, while rows remain."""
    keep = {i: b for i, b in enumerate(blocks) if b.priority == ALWAYS}
    room = None if rows is None else rows - sum(_height(b, width) for b in keep.values())
    broken: set[str] = set()
    for i in sorted(set(range(len(blocks))) - set(keep), key=lambda i: (blocks[i].priority, i)):
        block = blocks[i]
        if block.chain in broken or (block.spare and rows is None):
            continue
        for choice in (block, block.fallback):
            if choice is not None and (room is None or _height(choice, width) <= room):
                keep[i] = choice
                room = None if room is None else room - _height(choice, width)
                break
        else:
            if block.chain is not None:
                broken.add(block.chain)
    return keep
