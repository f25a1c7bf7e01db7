"""The terminal report fits the screen it is given (issue 11.3), on crafted records.

Wrapping never splits a number, the report never takes more rows than the screen has, the first failing case keeps
its worst element, what repeats is said once, what is cut is counted, and --verbose shows everything.
"""

from __future__ import annotations

import io
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.report import layout, text
from grader.results import CaseResult, Comparison, Mismatch, Report, StageResult, Status

FOOTER = ["Next: fix student/s.py, then `python -m grader --stage s --watch` (hint: `python -m grader hint s`)"]
TRACEBACK = "raised an exception:\n  student/s.py:3, in run_f\n    return x.reshape(-1, 7)\nValueError: {}"


def failing(name: str, worst: float = -0.0036373920817729943, **kw: object) -> CaseResult:
    w = Mismatch((0, 17), worst * 1.1, worst, input=-3.0)
    comp = Comparison(ok=False, total=256, mismatched=206, max_abs_error=4.12e-4, max_abs_index=(0, 17),
                      max_rel_error=0.113, max_rel_index=(0, 17), worst=w, first=[w, Mismatch((1, 2), 0.5, 0.25)],
                      headroom=41.2)
    return CaseResult("s", name, "run_f", Status.FAIL, max_points=1.0, atol=1e-5, comparisons=[comp], **kw)  # type: ignore[arg-type]


def report_of(*cases: CaseResult, notes: list[str] | None = None) -> Report:
    return Report("c", [StageResult("s", "A stage", list(cases), max_points=float(len(cases)), notes=notes or [])])


def render(report: Report, width: int | None = 80, height: int | None = 24, **kw: bool) -> list[str]:
    return text.render(report, footer=FOOTER, width=width, height=height, **kw).splitlines()


# --- wrapping ----------------------------------------------------------------------------------------------------

numbers = st.floats(allow_nan=False, allow_infinity=False).map(repr)
indices = st.lists(st.integers(0, 4096), min_size=1, max_size=3).map(lambda ix: "[" + ", ".join(map(str, ix)) + "]")
words = st.one_of(numbers, indices, st.sampled_from(["expected", "got", "worst", "at", "(error", "allowed", "·"]))


@pytest.mark.slow  # fuzzing: 300 examples; the fixed cases below wrap too
@settings(max_examples=300, deadline=None)
@given(st.lists(words, min_size=1, max_size=40), st.integers(40, 160), st.integers(0, 12))
def test_wrapping_never_splits_a_number_or_an_index(tokens: list[str], width: int, indent: int) -> None:
    line = " " * indent + " ".join(tokens)
    rows = layout.wrap(line, width)
    assert all(len(r) <= width for r in rows), rows
    pieces = [t for r in rows for t in layout._words(r)]  # noqa: SLF001  (the tokeniser the wrapper uses)
    assert [w for _, w in pieces] == [w for _, w in layout._words(line)]  # noqa: SLF001


def test_shorten_cuts_at_a_space_and_says_so() -> None:
    line = "  FAIL case  exception: ValueError: cannot reshape array of size 128 into shape (7)"
    short = layout.shorten(line, 60)
    assert len(short) <= 60 and short.endswith(" …") and short[:-2] == line[:len(short) - 2]
    assert not re.search(r"\d …$", short.replace("(7)", "")) or short.endswith("128 …")


def test_colour_codes_take_no_room() -> None:
    rows = text.render(report_of(*[failing(f"case_{i}") for i in range(12)]), colour=True, footer=FOOTER,
                       width=80, height=24).splitlines()
    assert any("\x1b[" in r for r in rows)
    assert all(layout.visible_len(r) <= 80 for r in rows) and len(rows) <= 23


# --- the screen's rows -------------------------------------------------------------------------------------------

statuses = st.sampled_from([Status.PASS, Status.FAIL, Status.EXCEPTION, Status.TIMEOUT, Status.SKIPPED])


@pytest.mark.slow  # fuzzing: 150 examples; the fixed cases below fit screens too
@settings(max_examples=150, deadline=None)
@given(st.lists(statuses, min_size=1, max_size=30), st.integers(40, 200), st.integers(9, 60), st.booleans())
def test_the_report_never_takes_more_rows_than_the_screen(kinds: list[Status], width: int, height: int,
                                                          hidden: bool) -> None:
    cases = [failing(f"c{i}", hidden=hidden and i % 3 == 2) if k is Status.FAIL else
             CaseResult("s", f"c{i}", "run_f", k, max_points=1.0, message=TRACEBACK.format(i), stdout="x\n" * i)
             for i, k in enumerate(kinds)]
    rows = render(report_of(*cases), width, height)
    assert len(rows) <= height - 1 and all(len(r) <= width for r in rows)
    assert rows[0].startswith(("PASS  s:", "FAIL  s:", "ERR   s:"))
    shown = sum(bool(re.match(r"  (PASS|FAIL|ERR ) ", r)) for r in rows)
    more = next((int(m.group(1)) for r in rows if (m := re.match(r"  \+(\d+) more cases?:", r))), 0)
    collapsed = any("all " in r or "not run)" in r for r in rows)
    assert collapsed or shown + more == len(cases), rows


def test_the_first_failing_case_keeps_its_worst_element_on_a_small_screen() -> None:
    rows = render(report_of(*[failing(f"case_{i}") for i in range(20)]), 80, 12)
    assert rows[1].startswith("  FAIL case_0")
    detail = "\n".join(rows[2:5])
    assert "worst at [0, 17]: expected -0.0036373920817729943, got\n         -0.0040011312899502945" in detail
    assert "(error 3.64e-04, allowed 1.00e-05)" in detail and "input there: -3.0" in detail
    assert rows[-3] == "  +" + f"{20 - sum(r.startswith('  FAIL') for r in rows)} more cases: " \
                                "`python -m grader --stage s --verbose`"


def test_verbose_shows_every_case_in_full() -> None:
    cases = [failing(f"case_{i}", worst=-1.0 - i) for i in range(20)]
    rows = render(report_of(*cases), 80, 24, verbose=True)
    assert sum("worst at [0, 17]" in r for r in rows) == 20 and not any("more" in r for r in rows)
    piped = render(report_of(*cases), None, None)
    assert sum("worst at" in r for r in piped) == 1 and piped[-2] == "  more detail: `python -m grader --stage s " \
                                                                       "--verbose`"
    small = render(report_of(*cases), 80, 40)
    assert sum("worst at" in r for r in small) == 2 and small[-3] == "  more detail: `python -m grader --stage s " \
                                                                       "--verbose`"


# --- said once -----------------------------------------------------------------------------------------------------

def test_identical_notes_are_merged() -> None:
    note = "returned float64 where the inputs are float32; GPT-2 computes in float32 (not failed, only noted)"
    rows = render(report_of(*[failing(f"case_{i}", notes=[note]) for i in range(6)]), 160, 50)
    assert sum(note in r for r in rows) == 1
    assert any(r.startswith("  note (every case): returned float64") for r in rows)


def test_identical_errors_and_tracebacks_are_said_once() -> None:
    same = [CaseResult("s", f"case_{i}", "run_f", Status.EXCEPTION, message=TRACEBACK.format("same")) for i in range(3)]
    differ = [CaseResult("s", f"other_{i}", "run_f", Status.EXCEPTION, message=TRACEBACK.format(i)) for i in range(2)]
    rows = render(report_of(failing("first"), *same, *differ), 120, None, verbose=True)
    assert sum("in run_f" in r for r in rows) == 1  # the traceback once
    assert "exception: same as case case_0" in rows[rows.index(next(r for r in rows if "case_1" in r))]
    assert any("traceback as in case case_0" in r for r in rows)
    assert any("ValueError: 1" in r for r in rows)  # what differs is still shown


def test_identical_output_is_shown_once() -> None:
    cases = [CaseResult("s", f"case_{i}", "run_f", Status.EXCEPTION, message=TRACEBACK.format(i),
                        stdout="debug\n" * 3) for i in range(3)]
    rows = render(report_of(*cases), 120, None, verbose=True)
    assert sum(r.strip() == "| debug" for r in rows) == 3
    assert sum("your code printed the same as in case case_0" in r for r in rows) == 2


# --- what the runner cut, what was returned ------------------------------------------------------------------------

def test_cut_output_says_how_much_was_cut() -> None:
    case = failing("noisy", stdout="".join(f"line {i}\n" for i in range(15)), stdout_cut_lines=12265)
    rows = render(report_of(case), 80, 40)
    assert "         | line 9" in rows and "         | line 10" not in rows
    assert "         … 12,270 more lines" in rows
    verbose = render(report_of(case), 80, None, verbose=True)
    assert "         | line 14" in verbose and "         … 12,265 more lines" in verbose


def test_a_list_returned_is_named() -> None:
    rows = render(report_of(failing("a", returned="list"), failing("b", returned="list")), 100, 24)
    assert "  note (every case): returned a list; numpy arrays are expected (np.asarray)" in rows
    assert "returned a list" in "\n".join(text.case_report(failing("a", returned="list")))


def test_a_stage_note_stays_above_the_cases() -> None:
    upstream = "Your code uses student/mlp.py (stage 'mlp'), which does not pass yet: check it first"
    rows = render(report_of(*[failing(f"c{i}") for i in range(30)], notes=[upstream]), 80, 16)
    assert any("Your code uses student/mlp.py" in r for r in rows[:4])


def test_terminal_size_is_none_off_a_terminal() -> None:
    assert text.terminal_size(io.StringIO()) == (None, None)


def test_every_row_of_printed_output_carries_its_mark_and_fits_80_columns() -> None:
    """Red team round 31: a printed line padded to a terminal's width wrapped into a row without the `|` that marks
    printed output: a line of the grader's, forged in the instructor's view of the learner's feedback. Each printed
    line is cut into rows that fit 80 columns, each with the mark, in a file (no width) as on a screen."""
    forged = "x" + " " * 150 + "PASS forged_case  matches (every element within tolerance)"
    tabs, wide = "\t" * 9 + "X" + "PASS forged_tab", "\u4e00" * 34 + " PASS forged_wide"  # round 33: columns
    case = failing("wrapped", stdout=f"{forged}\n{tabs}\n{wide}\nshort\n")
    for out in (text.render(report_of(case), verbose=True).splitlines(), render(report_of(case), verbose=True)):
        rows = out[out.index(next(r for r in out if "your code printed" in r)) + 1:]
        rows = rows[:next(i for i, r in enumerate(rows) if "short" in r) + 1]
        columns = [sum(2 if unicodedata.east_asian_width(c) in "WFA" else 1 for c in r) for r in rows]
        assert len(rows) >= 6 and all(r.lstrip().startswith("|") and "\t" not in r for r in rows), rows
        assert max(columns) <= 80, list(zip(columns, rows, strict=True))
        assert all(any(f"forged_{k}" in r for r in rows) for k in ("case", "tab", "wide")), rows  # all still shown
