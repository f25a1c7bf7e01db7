"""One case in words: its one-line summary and its detail, for the terminal report and per-case feedback.

Every function here takes a case that has been through `results.redacted`: a hidden case arrives with its verdict,
points and named mistake only, so nothing below can show more of it. Numbers at full precision (repr of the float64
value: a 1-ULP float32 miss never prints as `1.` vs `1.`); learner text with terminal controls shown, not obeyed.
"""

from __future__ import annotations

import re
import unicodedata

from grader.records import Record, field
from grader.results import SEALED, CaseResult, Comparison, Mismatch, StageResult, Status, summary_of

MARK = {"pass": "PASS", "fail": "FAIL", "not_started": "TODO", "error": "ERR "}
COLOURS = {"pass": "32", "fail": "31", "not_started": "33", "error": "35", "dim": "2", "bold": "1"}
PAD = " " * 7  # detail lines sit under the case's name
PRINTED_WIDTH = 69  # characters of printed output a row holds: PAD, "  | " and 69 fill 80 columns, so no row wraps
# on a terminal into one without the mark (red team round 31 padded a printed line to wrap into a forged line)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MODULE = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=\w+:)")


class Style:
    """ANSI colours, or none."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, what: str) -> str:
        if not self.colour:
            return text
        return f"\033[{COLOURS[what]}m{text}\033[0m"


def safe(text: str) -> str:
    """The learner's text with terminal controls shown, not obeyed: an escape code cannot redraw the verdict."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return "\n".join(line if len(line) <= 400 else line[:400] + f" [... {len(line) - 400} more characters]"
                     for line in text.split("\n"))


def num(x: float | None) -> str:
    """A value at full precision."""
    return "n/a" if x is None else repr(float(x))


def short(x: float | None) -> str:
    """An error or a tolerance, to three figures."""
    return "n/a" if x is None else f"{x:.2e}"


def idx(index: tuple[int, ...] | None) -> str:
    """An element's index as [i, j]."""
    return "[" + ", ".join(map(str, index or ())) + "]"


def returned_note(case: CaseResult) -> str | None:
    """What to say when the function returned something other than a numpy array (a list, a tensor)."""
    if not case.returned:
        return None
    article = "an" if case.returned[:1].lower() in "aeiou" else "a"
    return f"returned {article} {case.returned}; numpy arrays are expected (np.asarray)"


class Message(Record):
    """An error message taken apart: the line that says what went wrong, the traceback, anything after."""

    head: str
    frames: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)


def split_message(text: str) -> Message:
    """'raised an exception:' + indented frames + 'ValueError: ...' -> head 'ValueError: ...' and the frames."""
    lines = safe(text).rstrip("\n").splitlines()
    if not lines:
        return Message("")
    first, *more = lines
    if first.endswith(":") and more:
        n = next((i for i, line in enumerate(more) if not line.startswith(" ")), len(more))
        if n < len(more):
            return Message(more[n], more[:n], more[n + 1:])
    return Message(first, [], more)


def label(case: CaseResult) -> str:
    """The case's status in words."""
    return {Status.TODO: "not started", Status.SKIPPED: "not run"}.get(case.status, case.status.value)


def summary(case: CaseResult, style: Style, same_as: str | None = None, mistake: bool = True,
            brief: bool = False) -> str:
    """What follows the case's name on its line; `same_as` names an earlier case with the same error message.

    `brief`: shorter, for a row that the full line would overflow (an exception's type without its module).
    """
    cat = case.status.category
    named = f" · {case.diagnosis}" if case.diagnosis and mistake else ""
    if case.verdict_only:
        what = {Status.PASS: "passes", Status.FAIL: "does not match"}.get(case.status, label(case))
        why = " (hidden case)" if case.hidden else f" ({SEALED})"
        return style(what, "dim" if case.passed else cat) + named + style(why, "dim")
    if case.status is Status.PASS:
        c = summary_of(case.comparisons)
        used = f"uses {100 * (c.headroom or 0):.2g}% of the tolerance" if c and c.headroom is not None else ""
        err = f"max abs error {short(case.max_abs_error)}" if case.max_abs_error is not None and not brief else ""
        return style(", ".join(x for x in (used, err) if x) or "passes", "dim")
    if case.status is Status.FAIL:
        comp = summary_of(case.comparisons)
        if brief and comp is not None:
            where = f"'{comp.key}': " if comp.key else ""
            return where + (comp.problem.split(". ")[0] if comp.problem else f"{comp.mismatched} of {comp.total} "
                            "wrong") + named
        return fail_summary(case) + named
    if same_as is not None:
        return style(label(case), cat) + f": same as case {same_as}" + named
    what = label(case)
    head = split_message(case.message).head or what
    head = _MODULE.sub("", head) if brief else head
    if head == what or head.startswith(what.split()[0]):
        return style(head, cat) + named
    return style(what, cat) + f": {head}" + named


def fail_summary(case: CaseResult) -> str:
    """A failing case's one line: how many elements miss, or what is wrong with the shape or keys."""
    comp = summary_of(case.comparisons)
    return "failed" if comp is None else _comparison_summary(comp)


def _comparison_summary(comp: Comparison) -> str:
    where = f"'{comp.key}': " if comp.key else ""
    if comp.problem:
        return where + comp.problem
    pct = 100 * comp.mismatched / comp.total if comp.total else 0
    extra = f", {comp.nonfinite} not finite" if comp.nonfinite else ""
    return f"{where}{comp.mismatched} of {comp.total} elements ({pct:.3g}%) out of tolerance{extra}"


class Detail(Record):
    """A case's detail under its line: what must stay on screen with it, and the rest (an item may hold lines)."""

    key: list[str] = field(default_factory=list)
    more: list[str] = field(default_factory=list)


def detail(case: CaseResult, same_frames: str | None = None) -> Detail:
    """Worst element, its index and input, expected vs got, error vs allowed (key); other numbers (more).

    For an error: its traceback (key), or `same_frames`: the earlier case whose traceback this one repeats.
    """
    out = Detail()
    if case.verdict_only or case.status is Status.PASS:
        return out
    if case.status is Status.FAIL:
        failing = [c for c in case.comparisons if not c.ok]
        first = summary_of(case.comparisons)
        for comp in failing:
            key, more = _comparison_detail(comp, case, named=comp is not first)
            out.key += key if comp is first else []
            out.more += more if comp is first else key + more
        if any(c.worst is not None and not c.problem for c in failing):
            out.more.append(f"tolerance: |actual - expected| <= atol + rtol * |expected|, atol {case.atol:g}, "
                            f"rtol {case.rtol:g}")
        return out
    message = split_message(case.message)
    if same_frames is not None and message.frames:
        out.key.append(f"traceback as in case {same_frames}")
    else:
        out.key += message.frames
    out.more += message.rest
    return out


def _comparison_detail(comp: Comparison, case: CaseResult, named: bool) -> tuple[list[str], list[str]]:
    """The worst element and its input (what stays with the case's line), then the other numbers.

    `named`: not the comparison the case's line speaks of, so its own line first (its output's key), the rest
    indented under it.
    """
    if comp.problem or comp.worst is None:
        return ([_comparison_summary(comp)] if named else []), []
    w = comp.worst
    allowed = case.atol + case.rtol * abs(w.expected)
    pad = "  " if named else ""
    key = [_comparison_summary(comp)] if named else []
    key.append(f"{pad}worst at {idx(w.index)}: expected {num(w.expected)}, got {num(w.actual)} "
               f"(error {short(abs(w.actual - w.expected))}, allowed {short(allowed)})")
    if w.input is not None:
        key.append(f"{pad}input there: {num(w.input)}")
    more = []
    if comp.max_abs_index is not None and comp.max_abs_index != w.index:
        more.append(f"{pad}largest absolute error {short(comp.max_abs_error)} at {idx(comp.max_abs_index)}")
    more.append(f"{pad}largest relative error {short(comp.max_rel_error)} at {idx(comp.max_rel_index)}")
    others = [m for m in comp.first if m.index != w.index][:3]
    if others:  # one item of several lines: shown whole or not at all
        more.append("\n".join([f"{pad}first mismatches:"] + [f"{pad}  " + _point(m) for m in others]))
    return key, more


def _point(m: Mismatch) -> str:
    return f"{idx(m.index)} expected {num(m.expected)}, got {num(m.actual)}"


def printed(case: CaseResult, style: Style, limit: int | None, same_as: dict[tuple[str, str], str]) -> list[str]:
    """What the code printed, up to `limit` lines a stream, and how much more there was (`… 12,280 more lines`).

    `same_as` maps (stream, text) already shown to the case that showed it; this case's streams are added.
    """
    out: list[str] = []
    if case.passed:
        return out
    for name, text, cut in (("stdout", case.stdout, case.stdout_cut_lines), ("stderr", case.stderr,
                                                                            case.stderr_cut_lines)):
        if not text.strip() and not cut:
            continue
        earlier = same_as.setdefault((name, text), case.case)
        label = "" if name == "stdout" and not case.stderr else f" ({name})"  # one stream: stdout and stderr as written
        if earlier != case.case:
            out.append(style(f"your code printed{label} the same as in case {earlier}", "dim"))
            continue
        lines = text.rstrip().splitlines()
        shown = lines if limit is None else lines[:limit]
        out.append(style(f"your code printed{label}:", "dim"))
        rows = [row for said in map(safe, shown) for row in _rows(said.expandtabs(8), PRINTED_WIDTH)]
        out += [("  | " + row).rstrip() for row in rows]
        more = min(len(lines) - len(shown) + cut, 10**9)  # a count a stored record may hold, shown as it can be
        if more:
            out.append(style(f"  … {more:,} more line{'s' if more != 1 else ''}", "dim"))
    return out


def _rows(text: str, columns: int) -> list[str]:
    """A printed line as rows of at most `columns` terminal columns, broken at a space where one is (numbers whole).

    A column count, not a character count: a wide or ambiguous character (CJK, in a CJK locale some symbols) takes
    two, so a row never wraps on a terminal into one without its mark (red team round 33 wrapped rows of CJK
    characters and tabs, which the caller expands first). textwrap counts characters, so the count is done here.
    """
    def width(part: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WFA" else 1 for c in part)

    rows: list[str] = []
    start, used, space = 0, 0, -1  # the row's first character, its columns so far, its last space
    for i, ch in enumerate(text):
        if used + width(ch) > columns:
            cut = space + 1 if space > start else i
            rows.append(text[start:cut])
            start, used, space = cut, width(text[cut:i]), -1
        if ch == " ":
            space = i
        used += width(ch)
    return [*rows, text[start:]]


def _names(ids: list[str]) -> str:
    return ", ".join(ids[:-1]) + " and " + ids[-1] if len(ids) > 1 else "".join(ids)


def upstream_short(stage: StageResult) -> str | None:
    """A few words on the stage's earlier stages for its verdict line, when one of the learner's does not pass."""
    up = stage.upstream
    if up is None or not up.failing or (up.policy == "own" and stage.passed):
        return None
    if up.blamed:
        return (f"graded with the reference {_names(up.failing)} (yours fails)" if up.policy == "reference"
                else f"fails only because of {_names(up.failing)}")
    return f"your {_names(up.failing)} fails too"


def upstream_sentence(stage: StageResult) -> str | None:
    """The stage's earlier stages in a sentence: which of the learner's fail and what that did to this stage."""
    up = stage.upstream
    if up is None:
        return None
    said = []
    failing = _names(up.failing)
    if up.failing and up.policy == "reference":
        see = "its stage" if len(up.failing) == 1 else "those stages"
        said.append(f"This stage was graded with the reference {failing} in place of yours (the course grades each "
                    f"stage on its own); your {failing} does not pass: see {see}.")
    elif up.failing and up.blamed:
        said.append(f"This stage fails only because of {failing}: with the reference {failing} in place of yours "
                    f"it passes. Fix {failing} first.")
    elif up.failing and not stage.passed:
        said.append(f"Your {failing}, which this stage may call, does not pass either"
                    + ("; this stage fails with the reference in its place too." if up.with_references is False
                       else "."))
    if up.not_graded:
        whose = "the reference" if up.policy == "reference" else "your"
        said.append(f"Graded with {whose} {_names(up.not_graded)}, which this run did not grade.")
    return " ".join(said) or None
