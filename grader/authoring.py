"""The course author's and learner's file-writing commands: stubs, reset, instructions, and the self-check.

Stubs and instructions are rendered with jinja2 from the stage's own values, so the tolerance quoted in a stub or
in the text can never disagree with stage.yaml. Nothing here overwrites a learner's file without a backup.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from grader import atomic, fixtures, grade, stagecode
from grader.course import Course, Stage
from grader.errors import CourseError, FixtureError
from grader.results import StageResult, Status

TEMPLATES = Path(__file__).parent / "templates"


def _num(x: float) -> str:
    return f"{x:g}"


def _env(folder: Path) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(folder), str(TEMPLATES)]),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
    env.filters["num"] = _num
    return env


def render_stub(stage: Stage) -> str:
    """The learner's starting file for a stage, from the one stub template."""
    return _env(TEMPLATES).get_template("stub.py.j2").render(stage=stage)


def render_instructions(course: Course, stage: Stage) -> str:
    """The stage's instructions, with its tolerance, functions, cases and hints filled in from stage.yaml."""
    path = stage.dir / stage.instructions
    try:
        template = _env(stage.dir).get_template(stage.instructions)
        return template.render(stage=stage, course=course, tolerance=stage.tolerance,
                               public_cases=[c for c in stage.cases if not c.hidden])
    except jinja2.TemplateSyntaxError as e:
        raise CourseError(f"{path}:{e.lineno}: template error: {e.message}")
    except jinja2.UndefinedError as e:
        raise CourseError(f"{path}: template error: {e.message} (the names available are stage, course, "
                          "tolerance and public_cases)")
    except jinja2.TemplateNotFound as e:
        raise CourseError(f"{path}: missing template file {e.name}")


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)


def backup(root: Path, path: Path) -> Path:
    """Copy a learner's file into .grader/backups/ (never overwritten) and return the copy's path."""
    folder = root / ".grader" / "backups"
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
    """Restore the stub of a stage; the learner's current file is backed up first. Returns (file, backup)."""
    root = root or course.root
    path = root / stage.student_file
    stub = render_stub(stage)
    saved = None
    if path.exists() and path.read_text(encoding="utf-8", errors="replace") != stub:
        saved = backup(root, path)
    _atomic_write(path, stub)
    init = path.parent / "__init__.py"
    if not init.exists():
        _atomic_write(init, "")
    return path, saved


def write_missing_stubs(course: Course, root: Path) -> list[Path]:
    """Stubs for every stage whose learner file does not exist yet (never touching an existing file)."""
    written = []
    for stage in course.stages:
        path = root / stage.student_file
        if not path.exists():
            _atomic_write(path, render_stub(stage))
            written.append(path)
    init = root / "student" / "__init__.py"
    if not init.exists():
        _atomic_write(init, "")
    return written


# --- the course's self-test ----------------------------------------------------------------------------------


@dataclass
class CheckLine:
    """One self-check and whether it held."""

    stage: str
    what: str
    ok: bool
    detail: str = ""
    skipped: bool = False  # could not run in this copy (a handout has no reference code)


@dataclass
class CheckReport:
    """Everything `python -m grader check` found."""

    lines: list[CheckLine] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(line.ok for line in self.lines)


def _grade_with(course: Course, stage: Stage, stand_in: dict[str, Callable[..., Any]]) -> StageResult:
    """Grade with trusted code (a reference or a decoy) standing in for the learner's module and its upstream."""
    options = grade.Options(isolate=True, extra_substitutes={stage.module: stand_in})
    return grade.grade_stage(course, stage, options)


def check(course: Course, stages: list[Stage]) -> CheckReport:
    """Fixtures verify; every reference passes every case; every decoy fails and is named; every stub is TODO."""
    report = CheckReport()
    for stage in stages:
        add = report.lines.append
        try:
            fixtures.StageFixtures(course, stage).verify_all()
            add(CheckLine(stage.id, "fixtures match their manifest", True))
        except FixtureError as e:
            add(CheckLine(stage.id, "fixtures match their manifest", False, str(e)))
            continue
        if not (stage.dir / "reference.py").exists():
            add(CheckLine(stage.id, "the reference passes and every decoy is named", True,
                          "skipped: this copy has no reference solutions (a handout); these checks need the "
                          "instructor's copy of the course", skipped=True))
        else:
            _check_code(course, stage, report)
        with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
            (Path(tmp) / "student").mkdir()
            (Path(tmp) / "student" / "__init__.py").write_text("")
            (Path(tmp) / stage.student_file).write_text(render_stub(stage))
            result = grade.grade_stage(course, stage, grade.Options(root=Path(tmp)))
            bad = [c.case for c in result.cases if c.status is not Status.TODO]
            add(CheckLine(stage.id, "the stub reports 'not started' on every case", not bad,
                          f"cases not TODO: {bad}" if bad else ""))
    return report


def _check_code(course: Course, stage: Stage, report: CheckReport) -> None:
    add = report.lines.append
    references = {f.name: stagecode.reference(stage, f.name) for f in stage.functions}
    result = _grade_with(course, stage, dict(references))
    failed = [f"{c.case} ({c.status.value}: {c.message or ''})" for c in result.cases if not c.passed]
    tightest = max((c.headroom or 0.0 for c in result.cases), default=0.0)
    add(CheckLine(stage.id, "the reference passes every case", not failed,
                  "; ".join(failed) if failed else f"uses at most {100 * tightest:.2g}% of any tolerance"))
    for decoy in stage.decoys:
        fn = stagecode.function(stage, "decoys.py", decoy.function, stage.function(decoy.target).params)
        result = _grade_with(course, stage, {**references, decoy.target: fn})
        failing = [c for c in result.cases if c.status is Status.FAIL]
        named = [c.case for c in failing if c.diagnosis == decoy.id]
        others = sorted({f"{c.case}->{c.diagnosis}" for c in failing if c.diagnosis not in (None, decoy.id)})
        ok = bool(failing) and bool(named)
        detail = f"fails {len(failing)} of {len(result.cases)} cases, named as itself on {len(named)}"
        if others:
            detail += f"; named as another mistake on {', '.join(others)}"
        add(CheckLine(stage.id, f"decoy '{decoy.id}' fails and is recognised", ok, detail))
