"""Grades one stage: verified fixtures -> the learner's code in a child or a jail -> comparisons -> a StageResult.

Expected outputs are compared here, never in the learner's process. Self-paced, the learner's code runs in a fork of
this process (run/sandbox.py), made before any expected output is read. Graded, it runs in the submission's jail
(run/jail/), a fresh interpreter that sees the calls' inputs and nothing else; hidden cases' values are stripped from
the result (results.without_hidden_values). With --unsandboxed (trusted submissions only) graded code runs in a
forked child, each stage graded in a short-lived process of its own (judge/graded.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from grader import fixtures
from grader.course import layout, stagecode
from grader.course.model import Case, Course, Stage
from grader.errors import UsageError
from grader.judge import graded, loops, portable, verdict
from grader.judge.decoys import CACHE
from grader.judge.sources import CaseSource
from grader.records import Record, field, replace
from grader.results import CaseResult, StageResult, Status, without_hidden_values
from grader.run import sandbox
from grader.run.protocol import FRAME_CAP, Call, Limits, NpyFile, Outcome

if TYPE_CHECKING:
    from grader.run.jail import Jail


class Options(Record):
    """How to grade: whose code, which cases, with what stand-ins."""

    root: Path | None = None  # the folder holding student/; the course root by default
    hidden: bool = True  # run hidden cases when the fixtures have them
    public: bool = True  # run public cases (graded_stages runs them apart from the hidden ones)
    isolate: bool = False  # reference implementations stand in for the stages this one depends on
    isolate_only: frozenset[str] | None = None  # with isolate: only these stages' (graded runs: the failing ones)
    passed: dict[str, bool] = field(default_factory=dict)  # what the learner's progress says of other stages
    changed: frozenset[str] = frozenset()  # stages whose files changed since their last verdict
    cancel: Callable[[], bool] | None = None
    source: CaseSource | None = None  # another source of case data (a learner's checkpoint); fixtures by default
    extra_substitutes: dict[str, dict[str, Callable[..., Any]]] = field(default_factory=dict)  # for `check`
    graded: bool = False  # untrusted submission: run in a jail (see SECURITY.md)
    unsandboxed: bool = False  # graded, without the jail: the forked graded child (trusted submissions only)
    jail: Jail | None = None  # graded: the submission's jail, shared by its stages (else one for this stage)
    looping: dict[str, str] = field(default_factory=dict)  # graded: learner modules an earlier stage timed out in
    # Public cases only: called with (case, the learner's outputs, the expected ones), e.g. for --save-outputs.
    keep: Callable[[Case, dict[str, np.ndarray], dict[str, np.ndarray]], None] | None = None
    later_drift: bool = False  # leave the drift locator to `drift_notes`, called once the verdict is on screen


def cases_to_run(stage: Stage, options: Options) -> tuple[Case, ...]:
    """The stage's cases this grade runs (hidden ones only where they are wanted)."""
    return tuple(c for c in stage.cases if (options.hidden if c.hidden else options.public))


def stand_ins(course: Course, stage: Stage, only: frozenset[str] | None = None
              ) -> dict[str, dict[str, Callable[..., Any]]]:
    """For --isolate: every stage this one depends on (transitively), or only those in `only`, as their references."""
    out: dict[str, dict[str, Callable[..., Any]]] = {}
    todo = list(stage.depends_on)
    while todo:
        dep = course.stage(todo.pop())
        todo.extend(dep.depends_on)
        if only is not None and dep.id not in only:
            continue
        if not (dep.dir / "reference.py").exists():
            raise UsageError(f"--isolate needs the reference solution of stage '{dep.id}', which this copy of the "
                             "course does not ship (a learners' handout); grade without --isolate: the report "
                             "still says which earlier stage does not pass")
        out[dep.module] = {f.name: stagecode.reference(dep, f.name) for f in dep.functions}
    return out


def grade_stage(course: Course, stage: Stage, options: Options | None = None) -> StageResult:
    """Run every case of a stage and compare; FixtureError propagates (a damaged fixture is never graded)."""
    options = options or Options()
    if not options.graded:
        return _grade(course, stage, options)
    if (options.isolate or options.extra_substitutes) and not (options.unsandboxed or (options.jail and
                                                                          options.jail.unsandboxed)):  # trusted only
        raise UsageError("--isolate puts the course's reference code in place of earlier stages, and graded mode "
                         "never runs reference code beside a submission (the jail refuses it): grade without "
                         "--isolate")
    if options.jail is None:
        from grader.run.jail import Jail

        with Jail(options.root or course.root, unsandboxed=options.unsandboxed) as box:
            return graded_stages(course, [stage], replace(options, jail=box))[0]
    cases = cases_to_run(stage, options)
    if any(c.hidden for c in cases) and not all(c.hidden for c in cases):  # never in one job: two passes
        return graded_stages(course, [stage], options)[0]
    CACHE.disk = layout.decoy_cache(course.root)  # hidden cases' decoy outputs: on disk, not in memory
    # Unsandboxed, a forked child is a copy of this process: each pass is graded in a process of its own
    # (judge.graded), so the process forking the next submission's children never held another's expected values.
    result = (graded.in_own_process(lambda: without_hidden_values(_grade(course, stage, options)))
              if options.jail.unsandboxed else without_hidden_values(_grade(course, stage, options)))
    for case in result.cases:  # a function that timed out is not called again by the stage's other pass (`once`)
        if case.status is Status.TIMEOUT:
            options.jail.stuck.setdefault((stage.module, case.function), case.case)
    return result


def graded_stages(course: Course, stages: list[Stage], options: Options,
                  sources: Callable[[Course, Stage], CaseSource] | None = None) -> list[StageResult]:
    """A graded submission: every stage's public cases, then every stage's hidden cases, in `options.jail`.

    No public case runs after a hidden one in the submission's jail, and a job's folder holds only that job's
    inputs: nothing a hidden case's call saw (its inputs) can reach what is shown of a public case (its printed
    output, its message). Hidden cases show only their verdict and named mistake. `sources` gives each stage's
    case data (a batch keeps one verified StageFixtures per stage); `options.source` otherwise.
    """
    def opts(stage: Stage, **change: Any) -> Options:
        return replace(options, source=sources(course, stage) if sources else options.source, **change)

    first: dict[str, StageResult] = {}
    passed = dict(options.passed)
    for stage in stages:
        if any(not c.hidden for c in stage.cases) or not options.hidden:
            first[stage.id] = grade_stage(course, stage, opts(stage, hidden=False, passed=dict(passed)))
            passed[stage.id] = first[stage.id].passed
    out = []
    for stage in stages:
        if not options.hidden or not any(c.hidden for c in stage.cases):
            out.append(first[stage.id])
            continue
        second = grade_stage(course, stage, opts(stage, public=False, passed=dict(passed)))
        out.append(second if stage.id not in first else merged(stage, first[stage.id], second))
    return out


def merged(stage: Stage, public: StageResult, hidden: StageResult) -> StageResult:
    """A stage's result from its two passes: its cases in the stage's order, each note once."""
    order = {c.id: i for i, c in enumerate(stage.cases)}
    said = any(n.startswith("sandbox (graded)") for n in public.notes)
    notes = public.notes + [n for n in hidden.notes if n not in public.notes and not
                            (said and n.startswith("sandbox (graded)"))]
    return replace(hidden, cases=sorted(public.cases + hidden.cases, key=lambda c: order[c.case]), notes=notes)


def _grade(course: Course, stage: Stage, options: Options) -> StageResult:
    cases = cases_to_run(stage, options)
    source = options.source or fixtures.StageFixtures(course, stage, cases)
    inputs = {c.id: source.inputs(c) for c in cases}
    calls = [Call(case=c.id, module=stage.module, function=c.function, inputs=_call_inputs(source, c, inputs, options),
                  returns=stage.function(c.function).returns, keys=stage.function(c.function).keys,
                  max_bytes=_max_bytes(source, c),
                  observe=tuple((m, f) for m, _, f in (e.partition(":") for e in stage.function(c.function).observe)))
             for c in cases]
    limits = Limits(timeout=source.timeout or stage.timeout, memory_mb=stage.memory_mb)
    total_weight = sum(c.weight for c in stage.cases) or 1.0
    results: list[CaseResult] = []
    imported: set[str] = set()
    substitutes = {**(stand_ins(course, stage, options.isolate_only) if options.isolate else {}),
                   **options.extra_substitutes}
    blocked = loops.blocked(options.root or course.root, stage, options.looping, set(substitutes))
    todo = [] if blocked else calls
    if options.jail is not None:  # graded: a timed-out function is not called again (`once`)
        outcomes = options.jail.run(todo, limits, cancel=options.cancel, substitutes=substitutes, once=True,
                                    forget=forget, hide=layout.hidden_from_submissions(course.root))
    else:
        outcomes = sandbox.run(options.root or course.root, todo, limits, substitutes, options.cancel)
    try:
        _collect(stage, options, source, inputs, outcomes, results, imported, total_weight)
    finally:
        outcomes.close()  # ends any child still running, whatever happened here
    done = {r.case for r in results}
    why_not_run = blocked or next((f"not run: case '{r.case}' timed out; fix that first" for r in results
                                   if r.status is Status.TIMEOUT and not options.graded), "not run")
    for case in cases:  # a timed-out or cancelled run: what did not run says so
        if case.id not in done:
            results.append(CaseResult(stage=stage.id, case=case.id, function=case.function, status=Status.SKIPPED,
                                      max_points=stage.points * case.weight / total_weight, hidden=case.hidden,
                                      hidden_number=stage.hidden_number(case.id), message=why_not_run))
    not_run = stage.hidden_count + sum(c.hidden and c not in cases for c in stage.cases)
    out = StageResult(stage=stage.id, title=stage.title, cases=results, max_points=stage.points,
                      hidden_not_run=not_run,
                      against=source.against, student_file=stage.student_file)
    out.notes.extend(source.notices)
    out.notes.extend(_upstream_notes(course, stage, imported, out, options))
    if not options.graded:  # what a grade for marks would lack, said while the learner works
        out.notes.extend(portable.notes(options.root or course.root, stage))
    if options.jail is not None:  # which isolation held (SECURITY.md)
        isolation = next((r.isolation for r in results if r.isolation), None)
        out.notes.append(f"sandbox (graded): {isolation or options.jail.isolation()}")
    if not options.later_drift:
        out.notes.extend(_drift(course, stage, options, inputs, results))
    return out


def drift_notes(course: Course, stage: Stage, options: Options, result: StageResult) -> list[str]:
    """The drift locator's note on a result graded with `later_drift` (the watch draws the verdict first)."""
    failing = next((r for r in result.cases if r.status is Status.FAIL and not r.hidden), None)
    if stage.drift is None or failing is None:
        return []
    case = next(c for c in stage.cases if c.id == failing.case)
    source = options.source or fixtures.StageFixtures(course, stage, (case,))
    return _drift(course, stage, replace(options, later_drift=False), {case.id: source.inputs(case)}, result.cases)


def _drift(course: Course, stage: Stage, options: Options, inputs: dict[str, dict[str, Any]],
           results: list[CaseResult]) -> list[str]:
    """For a composed stage, where its first failing public case parts from the reference (judge/drift.py)."""
    external = options.source is not None and options.source.against is not None  # --checkpoint: no sites
    if stage.drift is None or options.graded or options.isolate or external:
        return []
    failing = next((r for r in results if r.status is Status.FAIL and not r.hidden), None)
    if failing is None or (options.cancel is not None and options.cancel()):
        return []
    from grader.judge import drift

    note = drift.locate(course, stage, inputs[failing.case], options.root or course.root, options.cancel)
    return [f"{note} (case '{failing.case}')"] if note else []


def _call_inputs(source: CaseSource, case: Case, inputs: dict[str, dict[str, Any]], options: Options
                 ) -> dict[str, Any]:
    """A call's inputs; for the jail, fixture arrays as their verified .npy files (copied by the kernel)."""
    if options.jail is None or options.jail.unsandboxed:
        return inputs[case.id]
    return {**inputs[case.id], **{k: NpyFile(str(p)) for k, p in source.input_files(case).items()}}


def _max_bytes(source: CaseSource, case: Case) -> int:
    """The most a call may send back: four float64 copies of its expected output and 1 MiB, when that is known."""
    elements = source.output_size(case)
    return FRAME_CAP if elements is None else 32 * elements + (1 << 20)


def _collect(stage: Stage, options: Options, source: CaseSource, inputs: dict[str, dict[str, Any]],
             outcomes: Iterator[Outcome], results: list[CaseResult], imported: set[str],
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
                            hidden=case.hidden, hidden_number=stage.hidden_number(case.id),
                            atol=case.tolerance.atol, rtol=case.tolerance.rtol,
                            message=outcome.message, stdout=outcome.output, stdout_cut_lines=outcome.output_cut,
                            seconds=outcome.seconds, raised_in=outcome.raised_in, returned=outcome.returned,
                            where=outcome.where, isolation=outcome.isolation)
        if not case.hidden:  # what a hidden call imported would let a hidden input choose the stage's notes
            imported.update(outcome.modules)
        if outcome.status is not None:
            result.status = outcome.status
        else:
            verdict.judge(stage, case, inputs[case.id], outcome, source, result, cancel,
                          keep=None if case.hidden else options.keep)
        result.points = result.max_points if result.passed else 0.0
        results.append(result)
        if result.status is Status.TIMEOUT and not options.graded:
            # An endless loop would cost every case its full timeout; the learner needs the first one only.
            # A graded run goes on, for partial credit on the cases that finish.
            return


def _upstream_notes(course: Course, stage: Stage, imported: set[str], result: StageResult,
                    options: Options) -> list[str]:
    """When the learner's code calls their own earlier stages, and one of those does not pass yet, say so.

    Self-paced only: a graded run says it in the stage's `upstream` record (grader/instructor/upstream.py).
    """
    if result.passed or options.isolate or options.graded:
        return []
    notes = []
    for module in sorted(imported):
        upstream = course.stage_of_module(module)
        if upstream is None or upstream.id == stage.id or options.passed.get(upstream.id, False):
            continue
        state = ("has changed since it was last graded" if upstream.id in options.changed
                 else "does not pass yet" if upstream.id in options.passed else "has not been graded yet")
        notes.append(f"Your code uses {upstream.student_file} (stage '{upstream.id}'), which {state}: "
                     f"check it first with `python -m grader --stage {upstream.id}`, or grade this stage with "
                     f"`--isolate` to put the reference {upstream.id} in its place.")
    return notes


def forget() -> None:
    """In a graded child, before the submission runs: drop what earlier grades left in this process's memory.

    That is decoy outputs (on hidden cases as telling as expected values) and the course's reference modules.
    """
    CACHE.forget()
    stagecode.forget()
