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
With --unsandboxed (trusted submissions) the forked graded child stands the references in as before. The
submission's jobs run in three passes, in its jail: the learner's own code on every stage's public cases, then on
their hidden cases (in the same jail once only its resident is left in it), then every run with references, each
stage's public and hidden cases together. So nothing a hidden call saw can be shown under a public case shown in
full, and no run of the learner's code without references follows a job that held them, whatever state the kernel keeps
across jails (docs/jail.md: red team round 26 carried a reference in the host's page cache). A stage an earlier
stage it depends on does not pass is graded in the last pass (under "reference"), its stand-ins chosen from the earlier
stages' whole verdicts, and what it shows of its public cases is their verdicts (`CaseResult.sealed`). Under
"reference", a stage graded on the learner's own code that fails while an earlier stage it imports failed only its
hidden cases is graded once more with that stage's reference, and the better run counts (red team round 7: a mistake
only an earlier stage's hidden cases caught cost the next stage its points).
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
    """What a stage's public pass decided, which its later passes keep."""

    stage: Stage
    deps: list[str]
    references: bool
    stand_in: frozenset[str] | None  # the earlier stages whose references stand in (None: the learner's own)
    left: float  # seconds of the stage's budget its public pass left
    uses: set[str]  # the learner's modules the stage's file reaches (an earlier stage it never imports is no cause)
    with_references: bool | None = None  # "own" policy, failing: whether it passes with the references in place
    deferred: bool = False  # graded with references, after every job of the learner's own code (`_references`)


def _stages(course: Course, root: Path, settings: Settings, box: Jail) -> Report:
    """The learner's own code on every stage's public cases, then on their hidden cases, then the references' runs.

    No public case runs after any hidden case of the submission, so nothing a hidden call saw (its inputs) can reach
    what is shown of a public case, whatever state the kernel keeps across jails (red team round 6: memfd inode
    numbers and the page cache carried a hidden input to the next stage's public output). No job of the learner's
    own code runs after a job that held references: red team round 26 carried a reference, as page-cache residency
    of never-read files under /usr that every jail shares, from a stage graded with it to the learner's own hidden
    cases of the stage it solves (a false pass), and to a later public case's output. The runs with references come
    last, after the hidden cases: what they show is a verdict per case, as for a hidden case (`CaseResult.sealed`).
    The hidden pass goes on in the public pass's jail once only its resident is left in it (`Jail.settle`).
    """
    wanted = set(settings.stages)  # in course order, each once: the order a stage's plan depends on
    stages = [stage for stage in course.stages if not wanted or stage.id in wanted]
    passed: dict[str, bool] = {}
    looping: dict[str, str] = {}
    plans, results = [], []
    with phases.during(settings.phases, "public"):
        try:
            for stage in stages:
                plan, result = _public(course, stage, root, settings, box, passed, looping)
                plans.append(plan)
                results.append(result)
                if not plan.deferred:
                    passed[stage.id] = result.passed
                    looping.update(loops.stuck(result))
        except BaseException:
            box.close()
            raise
        later = any(c.hidden for stage in stages for c in stage.cases) or any(p.references for p in plans)
        # Settled inside its phase: a process of the public pass still running could meet another's hidden call
        if later:
            box.settle()
        else:
            box.close()
    # The references' runs count as hidden: they follow the hidden cases, and what they show is a verdict per case
    with phases.during(settings.phases if later else None, "hidden"):
        try:
            _hidden_passes(course, root, settings, box, plans, results, passed, looping)
            _references(course, root, settings, box, plans, results, passed, looping)
        finally:  # the jail ends before the phase is left (red team round 12)
            box.close()
    for plan, result in zip(plans, results, strict=True):
        _say_upstream(course, plan, result, passed, settings.policy or course.upstream)
    return Report(course=course.title, stages=results, notes=[UNJAILED] if box.unsandboxed else [])


def _public(course: Course, stage: Stage, root: Path, settings: Settings, box: Jail, passed: dict[str, bool],
            looping: dict[str, str]) -> tuple[_Plan, StageResult]:
    """A stage's public cases with the learner's own code, or, where references must stand in, nothing yet."""
    started = time.monotonic()
    deadline = started + settings.budget
    deps = earlier(course, stage)
    references = bool(deps) and has_references(course, deps)
    # Only where an earlier stage does not pass (or was not graded here): a learner whose earlier stages pass is
    # graded on their own code, which may use more of those files than the declared functions (red team round 4)
    # ... and then only for those: a passing earlier stage stays the learner's own (red team round 5)
    not_passing = frozenset(d for d in deps if passed.get(d) is not True)
    uses = loops.reachable(root, stage.module) if deps else set()
    if (settings.policy or course.upstream) == "reference" and references and not_passing:
        plan = _Plan(stage, deps, references, not_passing, settings.budget, uses, deferred=True)
        return plan, StageResult(stage=stage.id, title=stage.title, cases=[], max_points=stage.points)
    result = _grade(course, stage, root, settings, box, deadline, looping, None, hidden=False)
    plan = _Plan(stage, deps, references, None, deadline - time.monotonic(), uses)
    return plan, result


def _hidden_passes(course: Course, root: Path, settings: Settings, box: Jail, plans: list[_Plan],
                   results: list[StageResult], passed: dict[str, bool], looping: dict[str, str]) -> None:
    """Every stage graded on the learner's own code: its hidden cases, in what is left of its budget."""
    for i, plan in enumerate(plans):
        if plan.deferred or not any(c.hidden for c in plan.stage.cases):
            continue
        deadline = time.monotonic() + max(0.0, plan.left)
        hidden = _grade(course, plan.stage, root, settings, box, deadline, looping, None, hidden=True)
        public = results[i]
        results[i] = grade.merged(plan.stage, public, hidden) if any(not c.hidden for c in plan.stage.cases) \
            else hidden
        plan.left = deadline - time.monotonic()
        passed[plan.stage.id] = results[i].passed
        looping.update(loops.stuck(results[i]))


def _references(course: Course, root: Path, settings: Settings, box: Jail, plans: list[_Plan],
                results: list[StageResult], passed: dict[str, bool], looping: dict[str, str]) -> None:
    """The runs with references, last, in course order: each stage's public and hidden cases in one run.

    "reference": a stage an earlier one it depends on does not pass is graded with the references of those that do
    not (decided now, from every earlier stage's whole verdict); a stage graded on the learner's own code that fails
    while an earlier stage it imports failed only its hidden cases is graded once more so, and the better run counts
    (red team round 7: a mistake only an earlier stage's hidden cases caught cost the next stage its points). "own":
    a failing stage whose imported earlier stage fails is graded once more, for the note only.
    """
    policy = settings.policy or course.upstream
    for i, plan in enumerate(plans):
        if not plan.references:
            continue
        not_passing = frozenset(d for d in plan.deps if passed.get(d) is not True)
        failing = any(passed.get(d) is False and course.stage(d).module in plan.uses for d in plan.deps)
        if plan.deferred:
            plan.stand_in = not_passing or plan.stand_in
            results[i] = _sealed(_grade(course, plan.stage, root, settings, box, time.monotonic() + settings.budget,
                                        looping, plan.stand_in, hidden=None))
        elif results[i].passed or not failing or not not_passing or plan.left <= 0:
            continue
        elif policy == "reference":
            again = _grade(course, plan.stage, root, settings, box, time.monotonic() + plan.left, looping,
                           not_passing, hidden=None)
            if again.points > results[i].points:
                plan.stand_in, results[i] = not_passing, _sealed(again)
        else:
            plan.with_references = _grade(course, plan.stage, root, settings, box, time.monotonic() + plan.left,
                                          looping, not_passing, hidden=None).passed
        passed[plan.stage.id] = results[i].passed
        looping.update(loops.stuck(results[i]))


def _sealed(result: StageResult) -> StageResult:
    """A run with references, after the hidden cases: each of its cases, hidden ones too, is a verdict only.

    Red team round 30 chose its hidden cases' named mistakes by the reference's bits: 2.8 bits a case (7 mistakes).
    """
    for case in result.cases:
        case.sealed = True
    return result


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
           looping: dict[str, str], references: frozenset[str] | None, hidden: bool | None) -> StageResult:
    """One pass of a stage graded for marks: its public cases, its hidden ones (`hidden`), or both (None).

    `references`: the earlier stages whose references stand in (None: none).
    """
    isolate = references is not None
    options = grade.Options(root=root, hidden=hidden is not False, public=not hidden, graded=True, isolate=isolate,
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
