"""A submission's stages graded for marks: the upstream policy, a time budget per stage, earlier stages named.

course.yaml's `upstream:` decides what a stage that depends on earlier ones calls. "reference" grades it, when one
of the stages it depends on does not pass (or was not graded in this run), with the references of every stage it
depends on that does not pass standing in for the learner's (grade.Options(isolate=True, isolate_only=...), what
`--isolate` does for a learner, for those stages only), so one mistake upstream costs its own stage only; the
learner's passing earlier stages stay their own (which may use helpers of those files, or options of their
functions, that a reference lacks). "own" grades it with the
learner's own earlier stages; a stage that fails while one of those fails is graded once more with the references,
to tell "fails only because of an earlier stage" from a mistake of its own. Either way the stage's result carries
an `Upstream` record (which of the learner's earlier stages it imports, directly or through their other files,
fail) and says it in a note, so every output names it.

A copy of the course without reference solutions (a handout) cannot stand references in: it grades with the
learner's own and says so. The budget is per stage: one stage that loops costs that stage's cases, not the rest of
the submission's. A function that timed out is not called again (judge/grade.py, run/sandbox.py `once`), nor is a
later stage whose file imports the module that looped (judge/loops.py).

Graded runs go through the submission's jail (grader/run/jail/), which never takes reference functions as
stand-ins (the forked child's --isolate). A stage graded with references runs instead with a copy of student/
swapped into the submission's jail, holding, in place of each earlier stage's learner file, that stage's reference.py
(with the learner's function names bound to the reference's, and the course's common/ modules it imports beside
it), and the jail ends when the copy leaves it: `with_references`, `Jail.files_of`.
With --unsandboxed (trusted submissions) the forked graded child stands the references in as before. Each stage is
graded in the submission's jail: every stage's public cases first, then every stage's hidden cases (in the same jail
once only its resident is left in it), so nothing a hidden call saw can be shown under any public case
(docs/jail.md). Stand-ins are therefore first chosen from the earlier stages' public verdicts; under "reference", a
stage that fails a public case while an earlier stage it imports could still fail a hidden case is also graded, in
the public pass, with that stage's reference standing in (the hedge), and when the earlier stage's hidden cases do
fail, the better of the two runs counts and its stand-ins grade the stage's hidden cases too (red team round 7: a
mistake only an earlier stage's hidden cases caught cost the next stage its points).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grader.course import Course, Stage
from grader.instructor import phases
from grader.instructor.phases import Phases
from grader.instructor.references import files as reference_files
from grader.judge import grade, loops
from grader.judge.sources import CaseSource
from grader.records import Record, replace
from grader.report.casetext import upstream_sentence
from grader.results import UNJAILED, Report, StageResult, Status, Upstream
from grader.run.jail import Jail

REFERENCES = ".grader-references-"  # a stage's copy of student/ with the references in (under the submission root)


class Settings(Record):
    """How a submission's stages are graded for marks."""

    stages: tuple[str, ...] = ()  # these stages only (all by default)
    budget: float = 120.0  # seconds each stage may take in all; the cases left are recorded as not run
    policy: str | None = None  # "reference" or "own"; the course's `upstream:` by default
    source: Callable[[Stage], CaseSource] | None = None  # where case data comes from (a batch's shared fixtures)
    unsandboxed: bool = False  # forked graded children instead of the jail: trusted submissions only
    jail: Jail | None = None  # the submission's jail (a batch's, warm); else one is opened for this submission
    phases: Phases | None = None  # a batch's workers: no public pass beside another submission's hidden one


def earlier(course: Course, stage: Stage) -> list[str]:
    """Every stage this one depends on, directly or through another, in course order."""
    wanted, todo = set(), list(stage.depends_on)
    while todo:
        dep = todo.pop()
        if dep not in wanted:
            wanted.add(dep)
            todo.extend(course.stage(dep).depends_on)
    return [s.id for s in course.stages if s.id in wanted]


def has_references(course: Course, ids: list[str]) -> bool:
    """Whether this copy of the course holds the reference solution of each of these stages."""
    return all((course.stage(i).dir / "reference.py").exists() for i in ids)


def max_points(course: Course, stage_ids: tuple[str, ...] = ()) -> float:
    """The points the graded stages are worth (what a rejected submission is out of)."""
    return sum(s.points for s in course.stages if not stage_ids or s.id in stage_ids)


def grade_stages(course: Course, root: Path, settings: Settings) -> Report:
    """Grade the learner's code in root (holding student/) stage by stage, hidden cases included."""
    if settings.jail is None:
        with Jail(root, unsandboxed=settings.unsandboxed) as box:
            return _stages(course, root, settings, box)
    return _stages(course, root, settings, settings.jail)


class _Plan(Record):
    """What a stage's public pass decided, which its hidden pass keeps."""

    stage: Stage
    deps: list[str]
    references: bool
    stand_in: frozenset[str] | None  # the earlier stages whose references stand in (None: the learner's own)
    retry: frozenset[str] | None  # "own" policy, failing: graded again with these stages' references
    left: float  # seconds of the stage's budget its public pass left
    uses: set[str]  # the learner's modules the stage's file reaches (an earlier stage it never imports is no cause)
    with_references: bool | None = None
    hedge: StageResult | None = None  # "reference", failing: the public cases with `hedge_in` standing in as well
    hedge_in: frozenset[str] = frozenset()  # stand_in and the earlier stages that pass but have hidden cases to run


def _stages(course: Course, root: Path, settings: Settings, box: Jail) -> Report:
    """Every stage's public cases, then every stage's hidden cases, in the submission's jail.

    No public case runs after any hidden case of the submission, so nothing a hidden call saw (its inputs) can reach
    what is shown of a public case, whatever state the kernel keeps across jails (red team round 6: memfd inode
    numbers and the page cache carried a hidden input to the next stage's public output). The hidden pass goes on in
    the public pass's jail once only its resident is left in it (`Jail.settle`), else in a new one.
    """
    wanted = set(settings.stages)  # in course order, each once: the order a stage's plan depends on
    stages = [stage for stage in course.stages if not wanted or stage.id in wanted]
    passed: dict[str, bool] = {}
    looping: dict[str, str] = {}
    plans, results = [], []
    hidden = any(c.hidden for stage in stages for c in stage.cases)
    with phases.during(settings.phases, "public"):
        try:
            for stage in stages:
                plan, result = _public(course, stage, root, settings, box, passed, looping)
                plans.append(plan)
                results.append(result)
                passed[stage.id] = result.passed
                looping.update(loops.stuck(result))
        except BaseException:
            box.close()
            raise
        # Settled inside its phase: a process of the public pass still running could meet another's hidden call
        if hidden:
            box.settle()
        else:
            box.close()
    with phases.during(settings.phases if hidden else None, "hidden"):
        try:
            _hidden_passes(course, root, settings, box, plans, results, passed, looping)
        finally:  # the jail ends before the phase is left (red team round 12)
            box.close()
    for plan, result in zip(plans, results, strict=True):
        _say_upstream(course, plan, result, passed, settings.policy or course.upstream)
    return Report(course=course.title, stages=results, notes=[UNJAILED] if box.unsandboxed else [])


def _hidden_passes(course: Course, root: Path, settings: Settings, box: Jail, plans: list[_Plan],
                   results: list[StageResult], passed: dict[str, bool], looping: dict[str, str]) -> None:
    for i, plan in enumerate(plans):
        results[i] = _hedged(plan, results[i], passed)
        passed[plan.stage.id] = results[i].passed
        if any(c.hidden for c in plan.stage.cases):
            results[i] = _hidden(course, plan, results[i], root, settings, box, looping)
            passed[plan.stage.id] = results[i].passed
            looping.update(loops.stuck(results[i]))


def _public(course: Course, stage: Stage, root: Path, settings: Settings, box: Jail, passed: dict[str, bool],
            looping: dict[str, str]) -> tuple[_Plan, StageResult]:
    """A stage's public cases, with references standing in where the policy and the earlier stages say."""
    started = time.monotonic()
    deadline = started + settings.budget
    deps = earlier(course, stage)
    references = bool(deps) and has_references(course, deps)
    # Only where an earlier stage does not pass (or was not graded here): a learner whose earlier stages pass is
    # graded on their own code, which may use more of those files than the declared functions (red team round 4)
    # ... and then only for those: a passing earlier stage stays the learner's own (red team round 5)
    not_passing = frozenset(d for d in deps if passed.get(d) is not True)
    stand_in = not_passing if (settings.policy or course.upstream) == "reference" and references and not_passing \
        else None
    result = _grade(course, stage, root, settings, box, deadline, looping, stand_in, hidden=False)
    uses = loops.reachable(root, stage.module) if deps else set()
    failing = any(passed.get(d) is False and course.stage(d).module in uses for d in deps)
    retry = not_passing if stand_in is None and failing and not result.passed and references else None
    plan = _Plan(stage, deps, references, stand_in, retry, 0.0, uses)
    if retry is not None and time.monotonic() < deadline:
        plan.with_references = _grade(course, stage, root, settings, box, deadline, looping, retry,
                                      hidden=False).passed
    # The hedge: earlier stages that pass their public cases, are imported, and have hidden cases still to run
    undecided = frozenset(d for d in deps if passed.get(d) is True and course.stage(d).module in uses
                          and any(c.hidden for c in course.stage(d).cases))
    if (settings.policy or course.upstream) == "reference" and references and undecided and not result.passed \
            and time.monotonic() < deadline:
        plan.hedge_in = (stand_in or frozenset()) | undecided
        plan.hedge = _grade(course, stage, root, settings, box, deadline, looping, plan.hedge_in, hidden=False)
    plan.left = deadline - time.monotonic()
    return plan, result


def _hedged(plan: _Plan, public: StageResult, passed: dict[str, bool]) -> StageResult:
    """The stage's public result once its earlier stages' hidden cases are graded: the hedge's where it counts.

    It counts when an earlier stage it stood in for now fails (a mistake only its hidden cases catch) and it earned
    more than the learner's own: the references are there so an upstream mistake costs only its own stage. Its
    stand-ins then grade the stage's hidden cases too.
    """
    if plan.hedge is None or not any(passed.get(d) is False for d in plan.hedge_in - (plan.stand_in or frozenset())):
        return public
    if plan.hedge.points <= public.points:
        return public
    plan.stand_in, plan.retry, plan.with_references = plan.hedge_in, None, None
    return plan.hedge


def _hidden(course: Course, plan: _Plan, public: StageResult, root: Path, settings: Settings, box: Jail,
            looping: dict[str, str]) -> StageResult:
    """The stage's hidden cases, graded as its public pass decided, in what is left of its budget."""
    deadline = time.monotonic() + max(0.0, plan.left)
    hidden = _grade(course, plan.stage, root, settings, box, deadline, looping, plan.stand_in, hidden=True)
    if plan.with_references and time.monotonic() < deadline:
        assert plan.retry is not None
        plan.with_references = _grade(course, plan.stage, root, settings, box, deadline, looping, plan.retry,
                                      hidden=True).passed
    return grade.merged(plan.stage, public, hidden) if any(not c.hidden for c in plan.stage.cases) else hidden


def _say_upstream(course: Course, plan: _Plan, result: StageResult, passed: dict[str, bool], policy: str) -> None:
    """The stage's Upstream record and its note, from how its earlier stages did in this run."""
    if not plan.deps:
        return
    up = Upstream(policy="reference" if plan.stand_in is not None else "own",
                  failing=[d for d in plan.deps if passed.get(d) is False and course.stage(d).module in plan.uses],
                  not_graded=[d for d in plan.deps if d not in passed])
    up.with_references = result.passed if plan.stand_in is not None else plan.with_references
    result.upstream = up
    sentence = upstream_sentence(result)
    if sentence:
        result.notes.append(sentence)
    if policy == "reference" and not plan.references:
        result.notes.append("The course grades each stage with the references of the stages it depends on, but "
                            "this copy of the course has none: graded with your own.")


def _grade(course: Course, stage: Stage, root: Path, settings: Settings, box: Jail, deadline: float,
           looping: dict[str, str], references: frozenset[str] | None, hidden: bool) -> StageResult:
    """One pass of a stage graded for marks: its public cases, or its hidden ones (`hidden`).

    `references`: the earlier stages whose references stand in (None: none).
    """
    isolate = references is not None
    options = grade.Options(root=root, hidden=hidden, public=not hidden, graded=True, isolate=isolate,
                            isolate_only=references, looping=dict(looping),
                            jail=box, unsandboxed=box.unsandboxed, cancel=lambda: time.monotonic() > deadline,
                            source=settings.source(stage) if settings.source else None)
    if isolate and not box.unsandboxed:  # the jail takes no stand-ins: the references are written in as files
        result = with_references(course, stage, root, options)
    else:
        result = grade.grade_stage(course, stage, options)
    for case in result.cases:
        if case.status is Status.SKIPPED and case.message == "not run":
            case.message = (f"not run: this stage used up its time budget of {settings.budget:g} s (look for an "
                            "endless loop or very slow code in an earlier case)")
    return result


def with_references(course: Course, stage: Stage, root: Path, options: grade.Options) -> StageResult:
    """Grade a stage with a student/ that holds the references of the stages it depends on.

    In the submission's own jail (`Jail.files_of`): one jail of a submission at a time, under its cap (red team round
    12 held 4.9 GiB in two).
    """
    copy = Path(tempfile.mkdtemp(prefix=REFERENCES, dir=root))
    try:
        shutil.copytree(root / "student", copy / "student", symlinks=True)
        deps = [course.stage(d) for d in earlier(course, stage)
                if options.isolate_only is None or d in options.isolate_only]
        looping = {m: why for m, why in options.looping.items() if m not in {d.module for d in deps}}  # replaced
        for rel, text in reference_files(course, *deps).items():  # one cut of common/ for them all
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_text(text, encoding="utf-8")
        assert options.jail is not None
        with options.jail.files_of(copy):
            return grade.grade_stage(course, stage, replace(options, root=copy, isolate=False, looping=looping))
    finally:
        shutil.rmtree(copy, ignore_errors=True)
