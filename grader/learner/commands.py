"""The learner's commands, each the one owner of its rule: overview, next step, hint, show, reset and restore.

The command line and the watch loop both call these, so "what comes next", the done count and the hint counter
can never be spelled twice. Each returns text; printing is the caller's (cli.py, or the watch loop's writer).
"""

from __future__ import annotations

import ast
import re
import shutil
import time
from pathlib import Path

from grader import fsutil
from grader.course import layout, render
from grader.course.model import Course, Stage
from grader.errors import UsageError
from grader.learner.progress import Grade, Progress, Standing, Standings, files_of, standings
from grader.records import Record
from grader.results import StageResult, Status


def overview(course: Course) -> tuple[list[str], str | None]:
    """`python -m grader`: each stage's standing now, the done count and the next step; plus a notice, if any."""
    progress = Progress(course.root)
    now = standings(course, progress)
    lines = [course.title]
    for i, stage in enumerate(course.stages, 1):
        standing = now.of[stage.id]
        label = standing.value
        last = progress.last_grade(stage.id)
        if standing is Standing.FAILING and last is not None:
            label += f" ({last.passed}/{last.cases})"
        waits = progress.waits_for(stage.id)
        if standing is Standing.NOT_STARTED and waits:
            label = f"waits for {waits}"
        lines.append(f"  {i}. {stage.id:<12} {label:<26} {stage.title}")
    lines.append(f"{now.done} of {len(course.stages)} stages passed.")
    lines.append(next_step(course, now))
    return lines, progress.notice


def next_stage(course: Course, now: Standings, after: Stage | None = None) -> Stage | None:
    """The stage to work on next: the first after `after` that does not pass now, else the first anywhere."""
    order = list(course.stages)
    start = next((i + 1 for i, s in enumerate(order) if after is not None and s.id == after.id), 0)
    for stage in order[start:] + order[:start]:
        if not now.passed(stage.id) and (after is None or stage.id != after.id):
            return stage
    return None


def previous_stage(course: Course, stage: Stage) -> Stage | None:
    """The stage before `stage` in the course, if any."""
    order = [s.id for s in course.stages]
    at = order.index(stage.id)
    return course.stages[at - 1] if at > 0 else None


def first_to_work_on(course: Course, now: Standings) -> Stage:
    """Following the course: the first stage that does not pass now (the last one when every stage passes)."""
    return next_stage(course, now) or course.stages[-1]


def next_step(course: Course, now: Standings) -> str:
    """The "Next:" line: what to do about the first stage that does not pass now."""
    stage = next_stage(course, now)
    if stage is None:
        return "Every stage passes. Well done."
    sid = stage.id
    standing = now.of[sid]
    if standing is Standing.CHANGED:
        return (f"Next: grade {sid} again, its files changed since it was last graded: "
                f"`python -m grader --stage {sid} --watch`")
    if standing is Standing.FAILING:
        return (f"Next: fix {stage.student_file}, then `python -m grader --stage {sid} --watch` "
                f"(hint: `python -m grader hint {sid}`)")
    return f"Next: `python -m grader show {sid}`, then `python -m grader --stage {sid} --watch`"


def show(course: Course, stage: Stage) -> str:
    """The stage's instructions."""
    return render.instructions(course, stage)


def hint(course: Course, stage: Stage, progress: Progress | None = None) -> str:
    """The next hint (counted in the progress file), or all of them once each was shown."""
    if not stage.hints:
        return f"stage {stage.id} has no hints; `python -m grader show {stage.id}` has the full instructions"
    index = (progress or Progress(course.root)).next_hint(stage.id, len(stage.hints))
    if index is None:
        return "\n".join([f"All {len(stage.hints)} hints for {stage.id} were shown:",
                          *(f"  {i}. {h}" for i, h in enumerate(stage.hints, 1))])
    return f"Hint {index + 1} of {len(stage.hints)} for {stage.id}: {stage.hints[index]}"


def history(previous: Grade | None, result: StageResult) -> str | None:
    """"last grade 5/7, now 6/7": the grade before this one, for the same stage."""
    if previous is None:
        return None
    when = previous.when.partition("T")[2][:5]
    now = sum(c.passed for c in result.cases)
    return (f"last grade {previous.passed}/{previous.cases}" + (f" (at {when})" if when else "")
            + f", now {now}/{len(result.cases)}")


class Raiser(Record, frozen=True):
    """The function whose NotImplementedError stopped a stage, when it is not the function graded."""

    file: str  # student/gelu.py
    function: str  # run_gelu
    called_from: str  # run_mlp
    stage: str | None  # the stage that owns the file, when another one: gelu


def raiser(course: Course, stage: Stage, result: StageResult) -> Raiser | None:
    """Which function raised NotImplementedError, when it is another than the one graded (None: that one)."""
    case = next((c for c in result.cases if c.status is Status.TODO), None)
    if case is None:
        return None
    file, _, function = (case.raised_in or "").partition(":")  # from the child, when it says
    if not function:  # else the message, found in a `raise NotImplementedError(...)` of the files the stage uses
        found = next(((name, fn) for name in files_of(course, stage)
                      if (fn := _raising(course.root / name, case.message))), None)
        if found is None:
            return None
        file, function = found
    if (file, function) == (stage.student_file, case.function):
        return None
    owner = next((s.id for s in course.stages if s.student_file == file and s.id != stage.id), None)
    return Raiser(file=file, function=function, called_from=case.function, stage=owner)


def raised_by(course: Course, stage: Stage, result: StageResult) -> str | None:
    """The not-started line that names the function that raised and its file (None: the graded one did)."""
    who = raiser(course, stage, result)
    if who is None:
        return None
    then = f" (`python -m grader show {who.stage}`)" if who.stage else ""
    return (f"It is {who.function}() in {who.file} that raises NotImplementedError, called from your "
            f"{who.called_from}(): write it first{then}.")


def _raising(path: Path, message: str) -> str | None:
    """The function of `path` holding `raise NotImplementedError(message)`, if exactly one does."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    found: list[str] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        inner = {id(r) for sub in ast.walk(fn) if sub is not fn and isinstance(sub, ast.FunctionDef)
                 for r in ast.walk(sub)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Raise) and id(node) not in inner and _says(node.exc, message):
                found.append(fn.name)
    return found[0] if len(set(found)) == 1 else None


def _says(exc: ast.expr | None, message: str) -> bool:
    """Whether a raised expression is NotImplementedError with this message (the child's words for none)."""
    if isinstance(exc, ast.Name):
        return exc.id == "NotImplementedError" and message == "not started yet"
    if not (isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and exc.func.id == "NotImplementedError"):
        return False
    if not exc.args:
        return message == "not started yet"
    arg = exc.args[0]
    return isinstance(arg, ast.Constant) and arg.value == message


# --- the learner's files: reset makes a backup, restore brings one back --------------------------------------


def backup(root: Path, path: Path) -> Path:
    """Copy a learner's file into .grader/backups/ (never overwritten) and return the copy's path."""
    folder = layout.backups(root)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{path.stem}-{stamp}{path.suffix}"
    n = 1
    while target.exists():
        target = folder / f"{path.stem}-{stamp}-{n}{path.suffix}"
        n += 1
    shutil.copy2(path, target)
    return target


def reset(course: Course, stage: Stage, root: Path | None = None) -> tuple[Path, Path | None]:
    """Restore the stub of a stage and set its progress back; the learner's file is backed up first.

    Returns (the file, its backup or None when the file was the stub already).
    """
    root = root or course.root
    path = root / stage.student_file
    stub = render.stub(stage)
    saved = None
    if path.exists() and path.read_text(encoding="utf-8", errors="replace") != stub:
        saved = backup(root, path)
    render.write_file(path, stub)
    Progress(root).reset(stage.id)
    return path, saved


def reset_message(course: Course, stage: Stage) -> str:
    """`python -m grader reset ID`, in words."""
    path, saved = reset(course, stage)
    root = course.root
    return (f"restored the stub in {path.relative_to(root)}" + (
        f"; your previous file is saved as {saved.relative_to(root)} (`python -m grader restore {stage.id}` "
        "brings it back)" if saved else ""))


def backups_of(course: Course, stage: Stage) -> list[Path]:
    """A stage's backups under .grader/backups/, oldest first."""
    stem, suffix = Path(stage.student_file).stem, Path(stage.student_file).suffix
    pattern = re.compile(rf"{re.escape(stem)}-(\d{{8}}-\d{{6}})(?:-(\d+))?{re.escape(suffix)}")
    found = []
    folder = layout.backups(course.root)
    for path in folder.iterdir() if folder.is_dir() else []:
        m = pattern.fullmatch(path.name)
        if m:
            found.append(((m.group(1), int(m.group(2) or 0)), path))
    return [path for _, path in sorted(found)]


def restore(course: Course, stage: Stage, name: str | None = None) -> str:
    """`python -m grader restore ID [--from NAME]`: bring back a backup (the newest by default).

    The file it replaces is backed up first, unless it is the stub or already has an identical backup: a restore
    can always be undone by another.
    """
    root = course.root
    saved = backups_of(course, stage)
    folder = layout.backups(root).relative_to(root)
    if not saved:
        raise UsageError(f"no backup of {stage.student_file} in {folder}/: `python -m grader reset {stage.id}` "
                         "makes one before it restores the stub")
    chosen = saved[-1]
    if name is not None:
        chosen = next((p for p in saved if p.name == Path(name).name), None) or chosen
        if chosen.name != Path(name).name:
            raise UsageError(f"--from {name}: no such backup of {stage.student_file}; the backups are "
                             + ", ".join(p.name for p in saved))
    path = root / stage.student_file
    data = chosen.read_bytes()
    kept = ""
    if path.exists():
        current = path.read_bytes()
        if current != data and current != render.stub(stage).encode() and all(
                p.read_bytes() != current for p in saved):
            kept = f"; the file it replaces is saved as {backup(root, path).relative_to(root)}"
    path.parent.mkdir(parents=True, exist_ok=True)
    fsutil.write_bytes(path, data)
    others = [p.name for p in backups_of(course, stage) if p != chosen]
    more = (f". Other backups: {', '.join(others[-3:])}{' and older' if len(others) > 3 else ''} "
            f"(`python -m grader restore {stage.id} --from NAME`)" if others else "")
    return f"restored {stage.student_file} from {folder}/{chosen.name}{kept}{more}"
