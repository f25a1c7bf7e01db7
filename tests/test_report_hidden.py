"""The one hidden-case policy (results.redacted), held for every output format by a property test.

Hidden cases are crafted with distinctive strings and numbers in their ids (an id may describe the case's inputs) and
in every field that comes from their values (message, printed output, notes, comparisons, the type returned, cut
counts, time); whatever else the report holds, none of them may appear in any format: text at any size, verbose or
not, in colour or not, JSON, JUnit, Gradescope, CSV.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import records
from grader.report import csv as csv_report
from grader.report import gradescope, junit, text
from grader.report import json as json_report
from grader.results import CaseResult, Comparison, Mismatch, Report, StageResult, Status, redacted

SECRETS = ("SECRETMSG", "SECRETOUT", "SECRETERR", "SECRETNOTE", "SECRETKEY", "SECRETPROBLEM", "SecretType",
           "SECRETFRAME", "SECRETID")
VALUES = (271828.1828459045, -314159.26535, 0.000161803398875, 141421.3562373)
CUT = 424242
SECONDS = 777.125
SCREENS = [(80, 24, False), (160, 50, False), (None, None, False), (80, None, True), (None, None, True),
           (40, 8, False)]


def _forms(x: float) -> list[str]:
    """The ways a renderer could print a value."""
    return [repr(x), f"{x:.2e}", f"{x:g}", f"{x:.4g}", f"{abs(x):.2e}"]


FORBIDDEN = [*SECRETS, *(f for v in VALUES for f in _forms(v)), str(CUT), f"{CUT:,}", "777.125", "777.12"]

messages = st.sampled_from([
    "SECRETMSG", "raised an exception:\n  SECRETFRAME.py:3, in f\n    x = 1\nValueError: SECRETMSG",
    "took SECRETMSG s", "importing your module failed:\n  SECRETFRAME\nModuleNotFoundError: SECRETMSG", ""])
mismatches = st.builds(Mismatch, index=st.tuples(st.integers(0, 3)), actual=st.sampled_from(VALUES),
                       expected=st.sampled_from(VALUES), input=st.sampled_from([None, *VALUES]))
comparisons = st.builds(
    Comparison, ok=st.booleans(), key=st.sampled_from([None, "SECRETKEY"]),
    shape_actual=st.just((4,)), shape_expected=st.just((4,)), total=st.just(4), mismatched=st.integers(0, 4),
    nonfinite=st.integers(0, 1), max_abs_error=st.sampled_from(VALUES), max_abs_index=st.just((2,)),
    max_rel_error=st.sampled_from(VALUES), max_rel_index=st.just((3,)), worst=st.one_of(st.none(), mismatches),
    first=st.lists(mismatches, max_size=3), headroom=st.sampled_from([None, *VALUES]),
    problem=st.sampled_from([None, "SECRETPROBLEM"]))


@st.composite
def hidden_cases(draw: st.DrawFn, n: int) -> CaseResult:
    status = draw(st.sampled_from(list(Status)))
    return CaseResult(
        stage="s", case=f"SECRETID_{n}", hidden_number=draw(st.sampled_from([0, n + 1])), function="run_f",
        status=status, points=1.0 if status is Status.PASS else 0,
        max_points=1.0, hidden=True, atol=1e-5, rtol=0.0, comparisons=draw(st.lists(comparisons, max_size=3)),
        message=draw(messages), diagnosis=draw(st.sampled_from([None, "named_mistake"])),
        diagnosis_hint="the hint is the course's, not the case's", notes=draw(st.lists(st.just("SECRETNOTE"),
                                                                                         max_size=2)),
        stdout=draw(st.sampled_from(["", "SECRETOUT\n" * 30])), stderr=draw(st.sampled_from(["", "SECRETERR"])),
        stdout_cut_lines=draw(st.sampled_from([0, CUT])), stderr_cut_lines=draw(st.sampled_from([0, CUT])),
        returned=draw(st.sampled_from([None, "SecretType"])), seconds=SECONDS)


@st.composite
def reports(draw: st.DrawFn) -> Report:
    public = [CaseResult("s", f"public_{i}", "run_f", draw(st.sampled_from([Status.PASS, Status.FAIL,
                                                                           Status.EXCEPTION])),
                         max_points=1.0, message="raised an exception:\n  student/f.py:1, in f\nValueError: x",
                         comparisons=[Comparison(ok=False, total=4, mismatched=1,
                                                 worst=Mismatch((0,), 1.5, 2.5))]) for i in range(draw(
                                                     st.integers(0, 3)))]
    hidden = [draw(hidden_cases(i)) for i in range(draw(st.integers(1, 4)))]
    order = draw(st.permutations(public + hidden))
    return Report(course="c", stages=[StageResult("s", "Stage", list(order), max_points=float(len(order)))])


def _every_format(report: Report) -> dict[str, str]:
    out = {f"text {w}x{h}{' verbose' if v else ''}{' colour' if c else ''}":
           text.render(report, colour=c, footer=["Next: x"], width=w, height=h, verbose=v)
           for w, h, v in SCREENS for c in (False, True)}
    out |= {"json": json_report.render(report), "junit": junit.render(report), "gradescope":
            gradescope.render(report), "csv": csv_report.render(report)}
    for case in report.stages[0].cases:
        out[f"feedback {case.case}"] = gradescope.case_feedback(case)
        out[f"case_report {case.case}"] = "\n".join(text.case_report(case))
    return out


@pytest.mark.slow  # fuzzing: 150 examples; the tests below are its fixed cases
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reports())
def test_no_format_shows_what_a_hidden_case_holds(report: Report) -> None:
    for fmt, rendered in _every_format(report).items():
        found = [s for s in FORBIDDEN if s in rendered]
        assert not found, f"{fmt} shows {found} of a hidden case:\n{rendered}"


def test_hidden_cases_still_show_their_verdict_and_named_mistake() -> None:
    case = CaseResult("s", "secret", "run_f", Status.FAIL, max_points=1.0, hidden=True, message="SECRETMSG",
                      diagnosis="plus_two", diagnosis_hint="Adding 2 is not doubling.")
    report = Report("c", [StageResult("s", "S", [case], max_points=1.0)])
    assert "hidden 1  does not match (hidden case)" in text.render(report) and "secret" not in text.render(report)
    assert "Known mistake: plus_two. Adding 2 is not doubling." in text.render(report)
    data = json.loads(json_report.render(report))["stages"][0]["cases"][0]
    assert (data["diagnosis"], data["message"], data["status"]) == ("plus_two", "fail (hidden case)", "fail")
    assert "Known mistake: plus_two" in gradescope.case_feedback(case) and "hidden" in junit.render(report)


def test_redacted_keeps_only_what_the_policy_names() -> None:
    """A field added to CaseResult later is dropped from hidden cases unless the policy is changed to keep it."""
    keep = {"stage", "function", "status", "weight", "points", "max_points", "hidden", "hidden_number", "sealed",
            "atol", "rtol", "diagnosis", "diagnosis_hint"}
    default = CaseResult("s", "c", "f", Status.FAIL)
    filled = CaseResult("s", "c", "f", Status.FAIL, hidden=True, hidden_number=3, sealed=True,
                        comparisons=[Comparison(ok=False)],
                        message="m", notes=["n"], stdout="o", stderr="e", stdout_cut_lines=1, stderr_cut_lines=1,
                        returned="list", seconds=1.0, weight=2.0, points=1.0, diagnosis="d", diagnosis_hint="h",
                        raised_in="student/x.py:f", where="student/x.py:1  loop", isolation="jail")
    assert all(getattr(filled, f) != getattr(default, f) or f in ("stage", "case", "function",
                                                                                 "status", "max_points", "atol",
                                                                                 "rtol")
               for f in records.fields(CaseResult)), "fill every field above so the check below means something"
    shown = redacted(filled)
    for f in records.fields(CaseResult):
        expected = getattr(filled, f) if f in keep else getattr(default, f)
        expected = "hidden 3" if f == "case" else expected  # called by its number, never its id
        expected = None if f.startswith("diagnosis") else expected  # sealed: graded with references (round 30)
        assert getattr(shown, f) == expected, f
    unsealed = redacted(records.replace(filled, sealed=False))
    assert (unsealed.diagnosis, unsealed.diagnosis_hint) == ("d", "h")  # a hidden case names its mistake
    record = redacted(records.replace(filled, status=Status.TIMEOUT), for_instructor=True)
    assert (record.case, record.status, record.message) == ("c", Status.TIMEOUT, "")  # the gradebook's: id, status
    public = records.replace(filled, hidden=False, sealed=False)
    assert redacted(public) is public
    # red team round 26: a public case graded with references after the hidden cases is shown as its verdict only,
    # under its own name; the instructor's records keep it whole
    sealed = records.replace(filled, hidden=False, status=Status.EXCEPTION)
    assert redacted(sealed, for_instructor=True) is sealed
    shown = redacted(sealed)
    assert (shown.case, shown.status, shown.message, shown.stdout, shown.comparisons, shown.sealed) == (
        "c", Status.FAIL, "", "", [], True)
    assert (shown.diagnosis, shown.diagnosis_hint) == (None, None)  # round 28: a mistake chosen on purpose is bits


def test_no_case_of_a_run_with_references_names_a_mistake_hidden_ones_included() -> None:
    """Red team round 30: a run with references sealed its public cases only, and its hidden cases named the mistake
    the learner's code chose by the reference's bits (2.8 bits a case for mlp's 7 mistakes): every case of such a run
    is sealed, and a sealed case, hidden or not, is shown as its verdict alone in every format."""
    from grader.instructor.upstream import _sealed

    cases = [CaseResult("mlp", "hidden_one", "run_mlp", Status.FAIL, hidden=True, hidden_number=1,
                        diagnosis="erf_gelu", diagnosis_hint="ERFHINT"),
             CaseResult("mlp", "small", "run_mlp", Status.FAIL, diagnosis="relu", diagnosis_hint="RELUHINT")]
    stage = _sealed(StageResult("mlp", "MLP", cases=cases))
    assert all(c.sealed for c in stage.cases)
    report = Report(course="c", stages=[stage])
    outputs = [text.render(report), text.render(report, verbose=True), json_report.render(report), junit.render(report),
               json.dumps(gradescope.results(report))]
    for out in outputs:
        assert not any(word in out for word in ("erf_gelu", "ERFHINT", "relu", "RELUHINT")), out
