"""`python -m grader generate "PROMPT"`: the course's demo, with the learner's own functions doing the work.

A stage may declare `demo: <function>` in its stage.yaml: a function of its demo.py that the grader calls with the
prompt and a way to run the learner's functions. The grader knows nothing of what the demo does; it gives it:
  learner(stage_id, function, **inputs)  the learner's function, run in the sandbox like any grade (a fresh import
                                         of their files, a timeout, captured output); its return value, or
                                         DemoStopped with what went wrong and the stage to fix
  reference(stage_id, function)          the reference behind the learner's `function` (for --compare)
  emit(text)                             text shown at once (streamed), and the files the demo reads
                                         (`artifacts`: the demo stage's fixture artifacts, or the learner's own
                                         folder given with --checkpoint).
Before it runs, every stage the demo stage depends on, and itself, must pass for the learner's files as they are now;
otherwise the first that does not is named with the command that grades it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader import fixtures
from grader.course import stagecode
from grader.course.model import Course, Stage
from grader.errors import GraderError, UsageError
from grader.learner.progress import Progress, standings
from grader.records import Record
from grader.run import sandbox
from grader.run.protocol import Call, Limits


class DemoStopped(GraderError):
    """A learner's function did not return what the demo needs; the message names it and what to do."""


class DemoOptions(Record, frozen=True):
    """What the learner asked for on the command line."""

    prompt: str
    tokens: int = 32
    temperature: float = 0.0  # 0: greedy
    top_k: int = 0  # 0: every token
    seed: int = 0
    compare: bool = False
    checkpoint: Path | None = None


def demo_stage(course: Course) -> Stage:
    """The stage whose demo `generate` runs."""
    stage = next((s for s in course.stages if s.demo is not None), None)
    if stage is None:
        raise UsageError(f"this course has no demo to run: no stage in {course.root / 'course.yaml'} declares "
                         "`demo:` (docs/authoring.md)")
    return stage


def missing(course: Course, stage: Stage) -> Stage | None:
    """The first stage, in course order, among `stage` and those it depends on, that does not pass now."""
    needed, todo = {stage.id}, list(stage.depends_on)
    while todo:
        dep = course.stage(todo.pop())
        if dep.id not in needed:
            needed.add(dep.id)
            todo.extend(dep.depends_on)
    now = standings(course, Progress(course.root))  # verdicts count only for the files as they are now
    return next((s for s in course.stages if s.id in needed and not now.passed(s.id)), None)


def run(course: Course, options: DemoOptions, emit: Callable[[str], None] | None = None) -> None:
    """Run the course's demo on the learner's functions; DemoStopped or UsageError when it cannot."""
    stage = demo_stage(course)
    first = missing(course, stage)
    if first is not None:
        raise UsageError(f"`generate` runs your own code from stage '{stage.id}' and the stages it uses, and "
                         f"'{first.id}' does not pass yet for your files as they are now: "
                         f"`python -m grader --stage {first.id} --watch`")
    artifacts = options.checkpoint or fixtures.StageFixtures(course, stage).dir / "artifacts"
    assert stage.demo is not None
    function = stagecode.function(stage, "demo.py", stage.demo)
    function(options, _learner(course), _reference(course), emit or _stream, Path(artifacts))


def _stream(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _learner(course: Course) -> Callable[..., Any]:
    def call(stage_id: str, function: str, **inputs: Any) -> Any:
        stage = course.stage(stage_id)
        fn = stage.function(function)
        [outcome] = list(sandbox.run(course.root, [Call(case="demo", module=stage.module, function=function,
                                                        inputs=inputs, returns=fn.returns)],
                                     Limits(timeout=stage.timeout, memory_mb=stage.memory_mb)))
        if outcome.status is not None or outcome.value is None:
            status = outcome.status.value.replace("_", " ") if outcome.status else "no value"
            raise DemoStopped(f"your {function} ({stage.student_file}) stopped the demo ({status}): "
                              f"{outcome.message.strip()[:2000]}\nGrade it: `python -m grader --stage {stage.id}`")
        if set(outcome.value) != {""}:
            return outcome.value  # named arrays
        value = outcome.value[""]
        return str(value) if value.dtype.kind == "U" else value  # text comes back as a 0-d str array
    return call


def _reference(course: Course) -> Callable[[str, str], Callable[..., Any]]:
    def reference(stage_id: str, function: str) -> Callable[..., Any]:
        stage = course.stage(stage_id)
        if not (stage.dir / "reference.py").exists():
            raise UsageError("--compare runs the reference solutions, which this copy of the course does not ship "
                             "(a learners' handout); run generate without --compare")
        return stagecode.reference(stage, function)
    return reference
