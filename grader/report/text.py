"""The terminal report: the verdict line first, then each case, then what to do next.

Numbers at full precision (repr of the float64 value: a 1-ULP float32 miss never prints as `1.` vs `1.`).
Colour only on a terminal, and never with NO_COLOR set. Hidden cases show pass/fail and the mistake's name only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from grader.results import CaseResult, Comparison, Mismatch, Report, StageResult, Status, summary_of

MARK = {"pass": "PASS", "fail": "FAIL", "not_started": "TODO", "error": "ERR "}
COLOURS = {"pass": "32", "fail": "31", "not_started": "33", "error": "35", "dim": "2", "bold": "1"}


class Style:
    """ANSI colours, or none."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, what: str) -> str:
        if not self.colour:
            return text
        return f"\033[{COLOURS[what]}m{text}\033[0m"


def wants_colour(stream: object) -> bool:
    """Colour only on a terminal, never with NO_COLOR set or TERM=dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _safe(text: str) -> str:
    """The learner's text with terminal controls shown, not obeyed: an escape code cannot redraw the verdict."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return "\n".join(line if len(line) <= 400 else line[:400] + f" [... {len(line) - 400} more characters]"
                     for line in text.split("\n"))


def _num(x: float | None) -> str:
    return "n/a" if x is None else repr(float(x))


def _short(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2e}"


def _idx(index: tuple[int, ...] | None) -> str:
    return "[" + ", ".join(map(str, index or ())) + "]"


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
    if named:
        line += f" · looks like {max(set(named), key=named.count)}"
    return line


def render_stage(stage: StageResult, style: Style) -> list[str]:
    """The verdict line, then each case, then the stage's notes."""
    cat = stage.status.category
    lines = [style(f"{MARK[cat]}  ", cat) + style(verdict(stage), "bold") + style(f"  ({stage.title})", "dim")]
    if stage.against:
        lines.append(f"      graded against {stage.against}")
    if stage.status is Status.TODO:
        fn = stage.cases[0].function if stage.cases else "the function"
        where = stage.student_file or "the stage's file under student/"
        lines.append(f"      {fn}() still raises NotImplementedError: write it in {where}; the instructions are in "
                     f"`python -m grader show {stage.stage}`.")
        return lines
    first = stage.cases[0] if stage.cases else None
    if first and first.status.category == "error" and all(
            (c.status, c.message) == (first.status, first.message) or c.status is Status.SKIPPED for c in stage.cases):
        # One syntax error (or crash, or timeout) is one problem, however many cases it stopped.
        skipped = sum(c.status is Status.SKIPPED for c in stage.cases)
        label = f"{first.case} (+{skipped} not run)" if skipped else f"all {len(stage.cases)} cases"
        lines.extend(render_case(first, style, label=label))
        return lines
    detailed, hinted = 0, set[str]()
    for case in stage.cases:
        # Full detail for the first two failing cases; after that one line each, so the screen stays readable.
        brief = case.status is Status.FAIL and detailed >= 2
        lines.extend(render_case(case, style, brief=brief, hinted=hinted))
        detailed += case.status is Status.FAIL
    for note in stage.notes:
        lines.append(style("  note ", "bold") + note)
    if stage.hidden_not_run:
        if all(c.passed for c in stage.cases):
            lines.append(f"  All public checks passed; {stage.hidden_not_run} more are run at grading.")
        else:
            lines.append(f"  {stage.hidden_not_run} more hidden checks are run at grading.")
    return lines


def render_case(case: CaseResult, style: Style, brief: bool = False, hinted: set[str] | None = None,
                label: str | None = None) -> list[str]:
    """One case: a line, and for a failure the worst element, its input and the known mistake."""
    cat = case.status.category
    head = style(f"  {MARK[cat]} ", cat) + f"{label or case.case:<22} "
    pad = " " * 7
    if case.hidden and case.passed:
        return [head + style("passes (hidden case)", "dim")]
    if case.hidden:
        # Hidden inputs must not leak: not through values, shapes, messages or what the learner's code printed.
        what = "does not match" if case.status is Status.FAIL else case.status.value.replace("_", " ")
        out = [head + style(what, cat) + style(" (hidden case: only the verdict and a known mistake are shown)",
                                                "dim")]
        if case.diagnosis:
            out.append(pad + style(f"Known mistake: {case.diagnosis}.", "bold") + f" {case.diagnosis_hint or ''}")
        return out
    if case.status is Status.PASS:
        c = summary_of(case.comparisons)
        used = f"uses {100 * (c.headroom or 0):.2g}% of the tolerance" if c and c.headroom is not None else ""
        err = f"max abs error {_short(case.max_abs_error)}" if case.max_abs_error is not None else ""
        out = [head + style(", ".join(x for x in (used, err) if x), "dim")]
    elif case.status is Status.FAIL:
        out = [head + _fail_summary(case)]
        if not case.hidden and not brief:
            for comp in case.comparisons:
                if not comp.ok:
                    out.extend(pad + line for line in _comparison_detail(comp, case))
    else:
        label = {Status.TODO: "not started", Status.SKIPPED: "not run"}.get(case.status, case.status.value)
        first, *rest = _safe(case.message or label).splitlines() or [label]
        said = first == label or first.startswith(label.split()[0])
        out = [head + style(label, cat) + ("" if said and first == label else f": {first}")]
        if said and first != label:
            out[0] = head + style(first, cat)
        out.extend(pad + line for line in rest)
    if case.diagnosis:
        seen = hinted is not None and case.diagnosis in hinted
        out.append(pad + style(f"Known mistake: {case.diagnosis}.", "bold")
                   + ("" if seen else f" {case.diagnosis_hint or ''}"))
        if hinted is not None:
            hinted.add(case.diagnosis)
    out.extend(pad + "note: " + n for n in case.notes)
    for name, text in (("stdout", case.stdout), ("stderr", case.stderr)):
        if text.strip() and not case.passed:
            out.append(pad + style(f"your code printed ({name}):", "dim"))
            out.extend(pad + "  | " + _safe(line) for line in text.rstrip().splitlines()[:40])
    return out


def _fail_summary(case: CaseResult) -> str:
    comp = summary_of(case.comparisons)
    if comp is None:
        return "failed"
    where = f"'{comp.key}': " if comp.key else ""
    if comp.problem:
        return where + comp.problem
    pct = 100 * comp.mismatched / comp.total if comp.total else 0
    extra = f", {comp.nonfinite} not finite" if comp.nonfinite else ""
    return f"{where}{comp.mismatched} of {comp.total} elements ({pct:.3g}%) out of tolerance{extra}"


def _point(m: Mismatch) -> str:
    return f"{_idx(m.index)} expected {_num(m.expected)}, got {_num(m.actual)}"


def _comparison_detail(comp: Comparison, case: CaseResult) -> Iterable[str]:
    if comp.problem or comp.worst is None:
        return
    if comp.key:  # a function that returns a dict: say which entry each block is about
        yield f"'{comp.key}':"
    w = comp.worst
    allowed = case.atol + case.rtol * abs(w.expected)
    yield (f"worst at {_idx(w.index)}: expected {_num(w.expected)}, got {_num(w.actual)} "
           f"(error {_short(abs(w.actual - w.expected))}, allowed {_short(allowed)})")
    if w.input is not None:
        yield f"input there: {_num(w.input)}"
    if comp.max_abs_index is not None and comp.max_abs_index != w.index:
        yield f"largest absolute error {_short(comp.max_abs_error)} at {_idx(comp.max_abs_index)}"
    yield f"largest relative error {_short(comp.max_rel_error)} at {_idx(comp.max_rel_index)}"
    others = [m for m in comp.first if m.index != w.index][:3]
    if others:
        yield "first mismatches: " + "; ".join(_point(m) for m in others)
    yield f"tolerance: |actual - expected| <= atol + rtol * |expected|, atol {case.atol:g}, rtol {case.rtol:g}"


def render(report: Report, colour: bool = False, footer: list[str] | None = None) -> str:
    """The whole report as text."""
    style = Style(colour)
    lines = [style("note ", "bold") + _safe(note) for note in report.notes]
    for stage in report.stages:
        lines.extend(render_stage(stage, style))
    if len(report.stages) > 1:
        passed = sum(s.passed for s in report.stages)
        lines.append(style(f"{passed} of {len(report.stages)} stages pass · "
                           f"{report.points:.4g}/{report.max_points:.4g} points", "bold"))
    lines.extend(footer or [])
    return "\n".join(lines) + "\n"
