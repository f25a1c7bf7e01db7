"""The verdict on one case's outcome: compared with the expected output, judged by the stage's own checks, named.

Runs in the grader, never in the learner's process: the learner's returned arrays against the expected ones at the
case's tolerance (judge/compare.py), then the stage's `check` (reference.py: outputs with more than one right answer)
and `observe` check (checks.py: how the function worked, from its recorded calls), then, on a failure, the decoys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grader import fixtures
from grader.course import stagecode
from grader.course.model import Case, Stage
from grader.judge import compare
from grader.judge.decoys import CACHE, Lazy
from grader.judge.sources import CaseSource
from grader.results import CaseResult, Comparison, Status
from grader.run.protocol import Outcome
from grader.run.safetext import safe_text


def judge(stage: Stage, case: Case, inputs: dict[str, Any], outcome: Outcome, source: CaseSource,
          result: CaseResult, cancel: Callable[[], bool] | None = None,
          keep: Callable[[Case, dict[str, np.ndarray], dict[str, np.ndarray]], None] | None = None) -> None:
    """Set `result`'s comparisons, status, notes and named mistake from a call that returned a value."""
    assert outcome.value is not None
    value = outcome.value
    fn = stage.function(case.function)
    expected = source.expected(case)
    if keep is not None:
        keep(case, value, expected)
    elementwise_input = None
    if fn.elementwise:
        elementwise_input = next((v for v in inputs.values() if isinstance(v, np.ndarray)), None)
    try:
        result.comparisons = compare.compare_outputs(value, expected, case.tolerance, elementwise_input)
    except Exception as e:  # noqa: BLE001 - whatever the learner's value does to the comparison is the case's failure
        result.status, result.message = Status.FAIL, ("the grader could not compare this output with the expected "
                                                      f"one ({type(e).__name__}: {safe_text(e, 200)})")
        return
    checkable = fn.check is not None and (stage.dir / "reference.py").exists()  # a handout: compared with expected
    if checkable and fn.check is not None and not any(c.problem for c in result.comparisons):
        _check(stage, fn.check, inputs, value, result)
    if fn.observe_check is not None and all(c.ok for c in result.comparisons):
        _observed(stage, fn.observe_check, inputs, outcome.observed or [], result)
    result.status = Status.PASS if all(c.ok for c in result.comparisons) else Status.FAIL
    want = None if result.returned else source.dtype(case)  # a list or tuple became float64 on its way here
    for key, array in value.items():  # only the expected outputs' (a function may return 1,024 keys: round 26)
        if want and key in expected and array.dtype.kind == "f" and str(array.dtype) != want:
            where = f" for '{key}'" if key else ""
            result.notes.append(f"returned {array.dtype}{where} where the inputs are {want}; "
                                f"the stage computes in {want} (not failed, only noted)")
    if result.status is Status.FAIL and not any(c.problem and "key" in c.problem for c in result.comparisons):
        upcast = Lazy(lambda: {k: fixtures.upcast(v) for k, v in inputs.items()})  # once per case, if needed
        digest = source.input_digest(case)
        decoys = [(d, CACHE.producer(stage, case, d.function, upcast, digest)) for d in stage.decoys
                  if d.target == case.function]
        found = compare.fingerprint(value, decoys, case.tolerance, cancel)
        if found is not None:
            result.diagnosis, result.diagnosis_hint = found.id, found.hint


def _check(stage: Stage, name: str, inputs: dict[str, Any], value: dict[str, np.ndarray], result: CaseResult) -> None:
    """Judge by the stage's own check (reference.py) instead of closeness to the reference's output.

    For outputs with more than one right answer (greedy tokens at a near-tie): the check returns None when the
    output is acceptable, else the reason; an acceptable output that differs from the reference's own is noted.
    """
    check = stagecode.function(stage, "reference.py", name)
    output = value[""] if set(value) == {""} else value
    shown = str(output) if isinstance(output, np.ndarray) and output.dtype.kind == "U" else output
    try:
        with np.errstate(all="ignore"):
            reason = check(shown, **{k: fixtures.upcast(v) for k, v in inputs.items()})
    except Exception as e:  # the check could not read this output: a failure of the output, said as such
        reason = f"the stage's check could not read this output ({type(e).__name__}: {e})"
    if reason is None:
        if not all(c.ok for c in result.comparisons):
            result.notes.append("differs from the reference's own output, but every difference is an acceptable "
                                "answer (see the stage's instructions)")
        result.comparisons = [Comparison(ok=True, key=c.key, shape_actual=c.shape_actual,
                                         shape_expected=c.shape_expected, total=c.total, headroom=0.0)
                              for c in result.comparisons]
        return
    result.comparisons = [Comparison(ok=False, key=None, problem=str(reason)[:4000])]


def _observed(stage: Stage, name: str, inputs: dict[str, Any], calls: list[dict[str, Any]],
              result: CaseResult) -> None:
    """Judge how the function worked, from the learner's calls recorded while it ran (run/observe.py).

    The check (checks.py, which ships with every copy of the course) returns None when the calls are as the stage
    asks, else the reason. The record comes from the learner's process: a check reads it defensively.
    """
    check = stagecode.function(stage, "checks.py", name)
    try:
        reason = check(calls, **{k: fixtures.upcast(v) for k, v in inputs.items()})
    except Exception as e:  # noqa: BLE001 - a record the check could not read is the learner's, said as such
        reason = f"the grader could not read the record of your calls ({type(e).__name__}: {e})"
    if reason is not None:  # it may quote the record, which the learner's code can write: made safe text
        result.comparisons = [*result.comparisons, Comparison(ok=False, key=None, problem=safe_text(str(reason), 4000))]
