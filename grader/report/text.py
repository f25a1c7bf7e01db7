"""The terminal report: the verdict and the named mistake first, the first failing case in full, a line per other case.

Given a screen (`width`, `height`), the report fits it: lines wrap at spaces (a number is never split), identical
error messages, tracebacks and printed output are said once ("same as case X"), identical notes once for all the
cases that share them, and what does not fit is counted with the command that shows it all (`--verbose`). Without
a height (a file, a pipe) there is no row budget, but the other cases' detail is still left to `--verbose`, which
also shows all of what the code printed and never shortens a line. Colour only on a terminal, never with NO_COLOR
set. Every case is shown through `results.redacted` (the one hidden-case policy).
"""

from __future__ import annotations

import os
import shutil

from grader.records import Record, field
from grader.report.casetext import (
    MARK,
    PAD,
    Detail,
    Style,
    detail,
    label,
    printed,
    returned_note,
    safe,
    split_message,
    summary,
    upstream_short,
)
from grader.report.layout import ALWAYS, Block, fit, shorten, visible_len, wrap
from grader.results import CaseResult, Report, StageResult, Status, redacted, shown_report

__all__ = ["MARK", "Style", "case_report", "render", "terminal_size", "verdict", "wants_colour"]

MORE_COMMAND = "python -m grader --stage {stage} --verbose"
# Priorities under ALWAYS, what stays on a small screen first: the first failing case and its worst element, the
# known mistakes and the stage's notes, a line per other case, the rest of the detail, what the code printed.
KEY, NAMED, CASES, MORE, LOW, OTHERS = 1, 2, 3, 4, 5, 6
OTHER_STAGE = 10  # added to every priority of the stages after the first that does not pass
PRINTED_LINES = 10  # lines of each stream a case shows, short of --verbose


def wants_colour(stream: object) -> bool:
    """Colour only on a terminal, never with NO_COLOR set or TERM=dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def terminal_size(stream: object) -> tuple[int | None, int | None]:
    """(columns, rows) of the terminal `stream` writes to, for render(); (None, None) for a file or a pipe."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return None, None
    size = shutil.get_terminal_size()
    return size.columns, size.lines


def verdict(stage: StageResult) -> str:
    """One line: the stage's status, cases passed and points."""
    n = len(stage.cases)
    passed = sum(c.passed for c in stage.cases)
    status = stage.status
    if status is Status.TODO:
        what = "not started"
    elif status is Status.PASS:
        what = f"all {n} cases pass"
    else:
        what = f"{passed} of {n} cases pass"
    line = f"{stage.stage}: {what} · {stage.points:.4g}/{stage.max_points:.4g} points"
    named = [c.diagnosis for c in stage.cases if c.diagnosis]
    if named:  # the most common; of two as common, the first met
        line += f" · looks like {max(named, key=named.count)}"
    upstream = upstream_short(stage)
    return line + (f" · {upstream}" if upstream else "")


def render(report: Report, colour: bool = False, footer: list[str] | None = None, width: int | None = None,
           height: int | None = None, verbose: bool = False) -> str:
    """The whole report as text, fitted to `width` x `height` (the terminal's size; one row is left for the prompt).

    None for either: no wrapping, or no limit on rows. `verbose`: every case in full, whatever the height.
    """
    report = shown_report(report)
    style = Style(colour)
    focus = next((i for i, s in enumerate(report.stages) if not s.passed), 0)
    blocks: list[Block] = []
    for i, stage in enumerate(report.stages):
        blocks += _stage(stage, _Layout(style, width, verbose, group=i, bump=0 if i == focus else OTHER_STAGE))
    if len(report.stages) > 1:
        n = sum(s.passed for s in report.stages)
        blocks.append(Block([style(f"{n} of {len(report.stages)} stages pass · "
                                   f"{report.points:.4g}/{report.max_points:.4g} points", "bold")], group=-1))
    blocks += [Block([line], group=-1) for line in footer or []]
    passed = frozenset(i for i, s in enumerate(report.stages) if s.passed)  # no "+N more" for these
    more_rows = max((len(wrap(_more(s.stage, 99), width)) for s in report.stages), default=1)
    kept, left_out = fit(blocks, width, None if verbose or height is None else height - 1, passed, more_rows)
    rows: list[str] = []
    for n, block in enumerate(kept):
        rows += block.rows
        last_of_group = n + 1 == len(kept) or kept[n + 1].group != block.group
        if last_of_group and block.group in left_out:
            rows += wrap(style(_more(report.stages[block.group].stage, left_out[block.group]), "dim"), width)
    head = [style("note ", "bold") + safe(note) for note in report.notes]  # about the whole run (NOT jailed)
    return "\n".join(head + rows) + "\n"


def _more(stage: str, cases: int) -> str:
    """The line that says what was left out, and the command that shows it."""
    what = f"+{cases} more case{'s' if cases != 1 else ''}" if cases else "more detail"
    return f"  {what}: `{MORE_COMMAND.format(stage=stage)}`"


class _Layout(Record):
    """What a stage's blocks are made with: the screen, the mode, and what earlier cases have already said."""

    style: Style
    width: int | None
    verbose: bool
    group: int
    bump: int
    messages: dict[str, str] = field(default_factory=dict)  # error message -> the first case with it
    frames: dict[tuple[str, ...], str] = field(default_factory=dict)  # traceback -> the first case with it
    output: dict[tuple[str, str], str] = field(default_factory=dict)  # (stream, text) -> the first case with it
    said: set[str] = field(default_factory=set)  # detail lines not to repeat (the tolerance)

    def block(self, lines: list[str], priority: int, cases: int = 0, chain: str | None = None,
              indent: int | None = None, spare: bool = False) -> Block:
        return Block(lines, priority + self.bump if priority else ALWAYS, group=self.group, cases=cases, chain=chain,
                     indent=indent, spare=spare)

    def one_row(self, *candidates: str) -> str:
        """The first candidate that fits the width, else the last one cut at a space (short of --verbose)."""
        if self.verbose or self.width is None:
            return candidates[0]
        return next((c for c in candidates if visible_len(c) <= self.width), shorten(candidates[-1], self.width))


def _stage(stage: StageResult, at: _Layout) -> list[Block]:
    """A stage as blocks: verdict, known mistakes, stage notes, the cases, merged case notes, hidden checks."""
    style, block = at.style, at.block
    cases = [redacted(c) for c in stage.cases]
    cat = stage.status.category
    line = style(f"{MARK[cat]}  ", cat) + style(verdict(stage), "bold")
    plain = style(f"{MARK[cat]}  ", cat) + style(verdict(stage).split(" · looks like ")[0], "bold")
    out = [block([at.one_row(line + style(f"  ({stage.title})", "dim"), line, plain)], ALWAYS)]
    if stage.against:
        out.append(block([f"      graded against {stage.against}"], KEY))
    if stage.status is Status.TODO:
        fn = cases[0].function if cases else "the function"
        where = stage.student_file or "the stage's file under student/"
        raised = next((c.raised_in for c in cases if c.raised_in), None)  # "student/gelu.py:run_gelu"
        if raised and ":" in raised:
            where, fn = raised.rsplit(":", 1)
        out.append(block([f"      {fn}() still raises NotImplementedError: write it in {where}; the instructions "
                          f"are in `python -m grader show {stage.stage}`."], KEY))
        return out
    mistakes = {c.diagnosis: c.diagnosis_hint for c in cases if c.diagnosis}
    for name, hint in mistakes.items():
        named = "      " + style(f"Known mistake: {name}.", "bold")
        out.append(block([named + (f" {hint}" if hint else "")], NAMED))
        out[-1].fallback = block([named], NAMED)
    out += [block([style("  note ", "bold") + note], NAMED) for note in stage.notes]
    out += _cases(cases, at)
    shared: dict[str, list[str]] = {}
    for c in cases:
        for note in [returned_note(c)] + c.notes:
            if note:
                shared.setdefault(note, []).append(c.case)
    for note, ids in shared.items():
        who = ("every case" if len(ids) == len(cases) > 1 else ", ".join(ids) if at.verbose or len(ids) <= 3
               else f"{len(ids)} cases")
        out.append(block([style("  note ", "bold") + f"({who}): {note}"],
                         CASES if note.startswith("returned a") else MORE))
    if stage.hidden_not_run:
        line = (f"  All public checks passed; {stage.hidden_not_run} more are run at grading."
                if all(c.passed for c in cases) else f"  {stage.hidden_not_run} more hidden checks are run at grading.")
        out.append(block([line], MORE))
    return out


def _cases(cases: list[CaseResult], at: _Layout) -> list[Block]:
    """A line per case (one for a problem every case shares), the first failing case's detail under its line."""
    first = cases[0] if cases else None
    if first and first.status.category == "error" and not first.verdict_only and all(
            c.status is Status.SKIPPED or (c.status is first.status and (c.verdict_only or c.message == first.message))
            for c in cases):
        # One syntax error (or crash, or timeout) is one problem, however many cases it stopped.
        skipped = sum(c.status is Status.SKIPPED for c in cases[1:])  # the first is shown: "+8", not "+9" of 9
        name = f"{first.case} (+{skipped} not run)" if skipped else f"all {len(cases)} cases"
        return _case(first, name, len(name), at, focus=True, named=True)
    col = min(max((len(c.case) for c in cases), default=4), 24)
    # Each case's line names its mistake, unless every failing case has the same one: the verdict names it then.
    mistakes = {c.diagnosis for c in cases if not c.passed}
    named = at.verbose or len(mistakes) != 1 or None in mistakes
    focus = next((c for c in cases if not c.verdict_only and c.status not in (Status.PASS, Status.SKIPPED)), None)
    return [b for c in cases for b in _case(c, c.case, col, at, focus=c is focus, named=named)]


def _case(case: CaseResult, name: str, col: int, at: _Layout, focus: bool, named: bool) -> list[Block]:
    """The case's line, then its detail: blocks of falling priority for the focus case, one block for another.

    The other cases' details only fill the room a screen has left, in case order (chain "others"); without a
    screen (no height) they are left out, short of --verbose.
    """
    style, block = at.style, at.block
    same = None
    if case.status.category == "error" and case.message and not case.verdict_only:
        same = at.messages.setdefault(case.message, case.case)
        same = None if same == case.case else same
    tb = tuple(split_message(case.message).frames) if case.status.category == "error" else ()
    same_tb = at.frames.setdefault(tb, case.case) if tb else None
    info = detail(case, None if same_tb == case.case else same_tb) if same is None else Detail()
    cat = case.status.category
    start = style(f"  {MARK[cat]} ", cat) + f"{name:<{col}}  "
    full = summary(case, style, same, named)
    if at.width is not None and visible_len(start + full) > at.width and (focus or at.verbose or not case.passed):
        # Too long for a row: the whole of it opens the detail. The row keeps the status (the case in focus, or
        # every case with --verbose), or a shorter summary (a line among the others).
        error = case.status.category == "error"
        if focus or at.verbose:
            line = start + style(label(case), cat) if error else start.rstrip()
        else:
            line = at.one_row(start + summary(case, style, same, named, brief=True))
        info.key.insert(0, split_message(case.message).head if error and same is None else full)
    else:
        line = at.one_row(start + full, start + summary(case, style, same, named, brief=True))
    info.more = [x for x in info.more if not (x.startswith("tolerance:") and x in at.said)]  # said above
    at.said.update(x for x in info.more if x.startswith("tolerance:"))
    lines = [block([line], KEY if focus else CASES, cases=0 if focus else 1, indent=col + 9)]
    shown = printed(case, style, None if at.verbose else PRINTED_LINES, at.output)
    brief = printed(case, style, 3, at.output)
    if focus:
        chain = f"{at.group}:{case.case}"  # the detail in order: none of it once a part does not fit
        lines.append(block(_under(info.key), KEY, chain=chain))
        lines += [block(_under([item]), MORE, chain=chain) for item in info.more]
        if shown:  # what the code printed: ten lines a stream, or three if that is all there is room for
            lines.append(block(_under(shown), LOW, chain=chain))
            lines[-1].fallback = block(_under(brief), LOW)
    else:
        lines.append(block(_under(info.key + info.more + shown), OTHERS, chain="others", spare=not at.verbose))
    return [b for b in lines if b.lines]


def _under(items: list[str]) -> list[str]:
    """Detail items (one may hold several lines) as lines under the case's name."""
    return [PAD + line for item in items for line in item.split("\n")]


def case_report(case: CaseResult, style: Style | None = None) -> list[str]:
    """One case on its own and in full, for JUnit, Gradescope and pytest: its line, detail, mistake, notes, output."""
    case = redacted(case)
    style = style or Style(False)
    cat = case.status.category
    out = [style(MARK[cat].strip(), cat) + f" {case.case}  " + summary(case, style, mistake=False)]
    info = detail(case)
    out += _under(info.key + info.more)
    if case.diagnosis:
        out.append(PAD + style(f"Known mistake: {case.diagnosis}.", "bold") + f" {case.diagnosis_hint or ''}")
    out += [PAD + "note: " + n for n in [returned_note(case)] + case.notes if n]
    out += _under(printed(case, style, 40, {}))
    return [line.rstrip() for line in out]
