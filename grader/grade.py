"""Grades one stage: verified fixtures -> the learner's code in a child -> comparisons -> a StageResult.

Expected outputs are compared here, in the grader's process, never in the learner's. Self-paced, they are read
after the learner's child is forked. Graded, a stage with hidden cases is graded in a short-lived process forked
for it: the process that forks the next submission's (or the next stage's) children never held a hidden expected
value, a hidden decoy output or another submission's hidden answers, only the results that come back, with hidden
cases' values stripped. (Public inputs and expected values are no secret: they ship in the learners' handout.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader import compare, fixtures, sandbox, stagecode
from grader.course import Case, Course, Stage
from grader.errors import GraderError, UsageError
from grader.results import CaseResult, Comparison, StageResult, Status


@dataclass
class Options:
    """How to grade: whose code, which cases, with what stand-ins."""

    root: Path | None = None  # the folder holding student/; the course root by default
    hidden: bool = True  # run hidden cases when the fixtures have them
    isolate: bool = False  # reference implementations stand in for the stages this one depends on
    passed: dict[str, bool] = field(default_factory=dict)  # what the learner's progress says of other stages
    cancel: Callable[[], bool] | None = None
    source: Any = None  # an alternative source of case data (e.g. a real checkpoint); fixtures by default
    extra_substitutes: dict[str, dict[str, Callable[..., Any]]] = field(default_factory=dict)  # for `check`
    graded: bool = False  # untrusted submission: the sandbox's stricter setting (see SECURITY.md)


def cases_to_run(stage: Stage, options: Options) -> tuple[Case, ...]:
    """The stage's cases this grade runs (hidden ones only where they are wanted)."""
    return tuple(c for c in stage.cases if options.hidden or not c.hidden)


def stand_ins(course: Course, stage: Stage) -> dict[str, dict[str, Callable[..., Any]]]:
    """For --isolate: every stage this one depends on (transitively), as its reference functions."""
    out: dict[str, dict[str, Callable[..., Any]]] = {}
    todo = list(stage.depends_on)
    while todo:
        dep = course.stage(todo.pop())
        if not (dep.dir / "reference.py").exists():
            raise UsageError(f"--isolate needs the reference solution of stage '{dep.id}', which this copy of the "
                             "course does not ship (a learners' handout); grade without --isolate: the report "
                             "still says which earlier stage does not pass")
        out[dep.module] = {f.name: stagecode.reference(dep, f.name) for f in dep.functions}
        todo.extend(dep.depends_on)
    return out


def grade_stage(course: Course, stage: Stage, options: Options | None = None) -> StageResult:
    """Run every case of a stage and compare; FixtureError propagates (a damaged fixture is never graded)."""
    options = options or Options()
    # Graded with hidden cases: in a process of its own (see _in_own_process). A stage run without hidden cases
    # holds nothing a learner lacks (public inputs and expected values ship in the handout): graded in place.
    if options.graded and any(c.hidden for c in cases_to_run(stage, options)):
        global _DECOY_DISK
        _DECOY_DISK = course.root / ".grader" / "decoys"
        return _in_own_process(lambda: _without_hidden_values(_grade(course, stage, options)))
    return _grade(course, stage, options)


def _without_hidden_values(result: StageResult) -> StageResult:
    """A hidden case keeps its verdict and diagnosis; its values (expected, actual, errors) stay behind."""
    for case in result.cases:
        if case.hidden:
            case.comparisons = []
    return result


def _in_own_process(work: Callable[[], StageResult]) -> StageResult:
    """Run `work` in a forked process and return its result: whatever it read dies with it.

    The result comes back pickled over a pipe; the process is the grader's own (the learner's code runs in its
    children), so what it sends is trusted.
    """
    import gc
    import os
    import pickle

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # never returns into the caller
        code = 0
        try:
            gc.disable()  # short-lived: a collection would only copy-on-write pages shared with the parent
            os.close(read_end)
            try:
                known = set(_DECOY_CACHE)
                result = work()
                public = {k: v for k, v in _DECOY_CACHE.items() if k in _PUBLIC_DECOYS and k not in known}
                payload = pickle.dumps(("ok", (result, public)))
            except BaseException as e:  # noqa: BLE001 - carried to the caller, raised there
                payload = pickle.dumps(("error", e if isinstance(e, GraderError) else
                                        GraderError(f"grading failed: {type(e).__name__}: {e}")))
            with os.fdopen(write_end, "wb") as f:
                f.write(payload)
        except BaseException:  # noqa: BLE001
            code = 70
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        payload = f.read()
    os.waitpid(pid, 0)
    try:
        kind, value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - the grading process died before it could answer
        raise GraderError("the process grading this stage ended without a result (killed, or out of memory)")
    if kind == "error":
        raise value
    result, public = value
    # Decoy outputs on public cases come back to be kept (their inputs and expected values ship in the handout
    # anyway): the next stage process inherits them instead of recomputing an MLP's seven known mistakes.
    _DECOY_CACHE.update(public)
    _PUBLIC_DECOYS.update(public)
    return result


def _grade(course: Course, stage: Stage, options: Options) -> StageResult:
    cases = cases_to_run(stage, options)
    source = options.source or fixtures.StageFixtures(course, stage, cases)
    inputs = {c.id: source.inputs(c) for c in cases}
    calls = [sandbox.Call(case=c.id, module=stage.module, function=c.function, inputs=inputs[c.id],
                          returns=stage.function(c.function).returns) for c in cases]
    limits = sandbox.Limits(timeout=stage.timeout, memory_mb=stage.memory_mb)
    substitutes = {**(stand_ins(course, stage) if options.isolate else {}), **options.extra_substitutes}
    total_weight = sum(c.weight for c in stage.cases) or 1.0
    results: list[CaseResult] = []
    imported: set[str] = set()
    outcomes = sandbox.run(options.root or course.root, calls, limits, substitutes, options.cancel,
                           graded=options.graded)
    try:
        _collect(stage, options, source, inputs, outcomes, results, imported, total_weight)
    finally:
        outcomes.close()  # ends any child still running, whatever happened here
    done = {r.case for r in results}
    why_not_run = next((f"not run: case '{r.case}' timed out; fix that first" for r in results
                        if r.status is Status.TIMEOUT and not options.graded), "not run")
    for case in cases:  # a timed-out or cancelled run: what did not run says so
        if case.id not in done:
            results.append(CaseResult(stage=stage.id, case=case.id, function=case.function, status=Status.SKIPPED,
                                      max_points=stage.points * case.weight / total_weight, hidden=case.hidden,
                                      message=why_not_run))
    not_run = stage.hidden_count + sum(c.hidden and c not in cases for c in stage.cases)
    out = StageResult(stage=stage.id, title=stage.title, cases=results, max_points=stage.points,
                      hidden_not_run=not_run,
                      against=getattr(source, "against", None), student_file=stage.student_file)
    out.notes.extend(getattr(source, "notices", []))
    out.notes.extend(_upstream_notes(course, stage, imported, out, options))
    out.notes.extend([sandbox.isolation()] if options.graded else [])  # which isolation held (SECURITY.md)
    return out


def _collect(stage: Stage, options: Options, source: Any, inputs: dict[str, dict[str, Any]],
             outcomes: Iterator[sandbox.Outcome], results: list[CaseResult], imported: set[str],
             total_weight: float) -> None:
    """Judge each outcome as it arrives; stop at a cancel (a newer save) or, self-paced, at a first timeout."""
    # Self-paced, a cancel means a newer save: nothing here will be shown. Graded, it means the submission's time
    # budget ran out: cases not yet run are skipped, but the ones that ran keep their verdicts.
    cancel = None if options.graded else options.cancel
    for outcome in outcomes:
        if cancel is not None and cancel():
            return
        case = stage.case(outcome.case)
        result = CaseResult(stage=stage.id, case=case.id, function=case.function, status=Status.FAIL,
                            weight=case.weight, max_points=stage.points * case.weight / total_weight,
                            hidden=case.hidden, atol=case.tolerance.atol, rtol=case.tolerance.rtol,
                            message=outcome.message, stdout=outcome.stdout, stderr=outcome.stderr,
                            seconds=outcome.seconds)
        imported.update(outcome.modules)
        if outcome.status is not None:
            result.status = outcome.status
        else:
            assert outcome.value is not None
            _judge(stage, case, inputs[case.id], outcome.value, source, result, cancel)
        result.points = result.max_points if result.passed else 0.0
        results.append(result)
        if result.status is Status.TIMEOUT and not options.graded:
            # An endless loop would cost every case its full timeout; the learner needs the first one only.
            # A graded run goes on, for partial credit on the cases that finish.
            return


def _judge(stage: Stage, case: Case, inputs: dict[str, Any], value: dict[str, np.ndarray], source: Any,
           result: CaseResult, cancel: Callable[[], bool] | None = None) -> None:
    fn = stage.function(case.function)
    expected = source.expected(case)
    elementwise_input = None
    if fn.elementwise:
        elementwise_input = next((v for v in inputs.values() if isinstance(v, np.ndarray)), None)
    result.comparisons = compare.compare_outputs(value, expected, case.tolerance, elementwise_input)
    result.status = Status.PASS if all(c.ok for c in result.comparisons) else Status.FAIL
    want = source.dtype(case)
    for key, array in value.items():
        if want and array.dtype.kind == "f" and str(array.dtype) != want:
            where = f" for '{key}'" if key else ""
            result.notes.append(f"returned {array.dtype}{where} where the inputs are {want}; "
                                f"GPT-2 computes in {want} (not failed, only noted)")
    if result.status is Status.FAIL and not any(c.problem and "key" in c.problem for c in result.comparisons):
        upcast = _Lazy(lambda: {k: fixtures.upcast(v) for k, v in inputs.items()})  # once per case, if needed
        digest = source.input_digest(case) if hasattr(source, "input_digest") else None
        decoys = [(d, _decoy_output(stage, case, d.function, upcast, digest)) for d in stage.decoys
                  if d.target == case.function]
        found = compare.fingerprint(value, decoys, case.tolerance, cancel)
        if found is not None:
            result.diagnosis, result.diagnosis_hint = found.id, found.hint


class _Lazy:
    """A value computed on first use."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make, self.done, self.value = make, False, None

    def get(self) -> Any:
        if not self.done:
            self.value, self.done = self.make(), True
        return self.value


# Decoy outputs depend only on the case's inputs: kept per process (a watch session, a batch worker), keyed by
# the inputs' digests, so a cohort of wrong MLPs costs the decoys' float64 matmuls once, not once per submission.
_DECOY_CACHE: dict[tuple[str, str, str, str], dict[str, np.ndarray]] = {}
_PUBLIC_DECOYS: set[tuple[str, str, str, str]] = set()  # keys of public cases' decoy outputs


# Graded, hidden cases' decoy outputs are kept on disk under the course's .grader/ (a folder graded children
# cannot see: the mount namespace covers it), never in a worker's memory: see _in_own_process.
_DECOY_DISK: Path | None = None


def _decoy_output(stage: Stage, case: Case, name: str, inputs: _Lazy,
                  digest: str | None) -> Callable[[], dict[str, Any]]:
    key = (str(stage.dir), case.id, name, digest or "")
    disk = _DECOY_DISK if digest and case.hidden else None

    def produce() -> dict[str, Any]:
        if digest and key in _DECOY_CACHE:
            return _DECOY_CACHE[key]
        out = _load_decoy(disk, key) if disk is not None else None
        if out is None:
            fn = stagecode.function(stage, "decoys.py", name)
            with np.errstate(all="ignore"):  # decoys overflow where the real thing does not; that is their job
                raw = fn(**{k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.get().items()})
            out = fixtures.outputs_of(stage, case, raw)
            if disk is not None:
                _save_decoy(disk, key, out)
        if digest:
            _DECOY_CACHE[key] = out
            if not case.hidden:
                _PUBLIC_DECOYS.add(key)
        return out
    return produce


def _decoy_file(disk: Path, key: tuple[str, str, str, str]) -> Path:
    import hashlib

    return disk / (hashlib.sha256("\0".join(key).encode()).hexdigest()[:32] + ".npz")


def _load_decoy(disk: Path, key: tuple[str, str, str, str]) -> dict[str, np.ndarray] | None:
    try:
        with np.load(_decoy_file(disk, key), allow_pickle=False) as data:
            return {("" if k == "_" else k): data[k] for k in data.files}
    except (OSError, ValueError, KeyError):
        return None


def _save_decoy(disk: Path, key: tuple[str, str, str, str], out: dict[str, np.ndarray]) -> None:
    import io

    from grader import atomic

    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **{(k or "_"): v for k, v in out.items()})
    try:
        disk.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic.write_bytes(_decoy_file(disk, key), buf.getvalue())
    except OSError:
        pass  # a read-only course folder: recomputed next time, same verdicts


def _upstream_notes(course: Course, stage: Stage, imported: set[str], result: StageResult,
                    options: Options) -> list[str]:
    """When the learner's code calls their own earlier stages, and one of those does not pass yet, say so."""
    if result.passed or options.isolate:
        return []
    notes = []
    for module in sorted(imported):
        upstream = course.stage_of_module(module)
        if upstream is None or upstream.id == stage.id or options.passed.get(upstream.id, False):
            continue
        state = "does not pass yet" if upstream.id in options.passed else "has not been graded yet"
        notes.append(f"Your code uses {upstream.student_file} (stage '{upstream.id}'), which {state}: "
                     f"check it first with `python -m grader --stage {upstream.id}`, or grade this stage with "
                     f"`--isolate` to put the reference {upstream.id} in its place.")
    return notes


def summary_of(comparisons: list[Comparison]) -> Comparison | None:
    """The comparison a one-line summary should speak of: the first failing one, else the tightest."""
    failing = [c for c in comparisons if not c.ok]
    if failing:
        return failing[0]
    return max(comparisons, key=lambda c: c.headroom or 0.0, default=None)
