"""Derived copies of the course: the learners' handout, and the course inside a Gradescope autograder bundle.

A derived copy holds the course's stages and verified fixtures but never its reference solutions: each
stage.yaml is rewritten with a `hidden_cases: N` key (the loader then accepts a missing reference.py) and the
instructor's decoys.py, which is only a step away from the solution, is replaced by recorded decoy outputs on the
copy's own cases, so a learner's mistake is still named; a stage's drift locator gets the reference's values at
each site of the public cases, recorded the same way (instructor/recorded.py). The handout also drops every hidden
case from stage.yaml and from the fixtures, and keeps only their number.

Shipped from stages/<id>/: only what `course.derived.shipped_files` allows (the instructions, inputs.py, build.py,
external.py); of common/, only the modules those files import (in a handout, only public ones:
`course.derived.common_modules`); of grader/, only its Python modules and templates. All are allow-lists, so nothing
an author leaves in a folder (reference.py~, .decoys.py.swp, solutions/*.ipynb) can ship by accident.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from grader import fixtures, templating
from grader.course import Course, Stage, derived, layout, load_course
from grader.course import render as course_render
from grader.errors import UsageError
from grader.instructor import recorded
from grader.records import Record, field
from grader.run.jail import packages


class Derived(Record):
    """What a derived copy holds."""

    path: Path
    public: dict[str, int] = field(default_factory=dict)  # stage id -> public cases shipped
    hidden: dict[str, int] = field(default_factory=dict)  # stage id -> hidden cases shipped (0 in a handout)
    hidden_kept_back: dict[str, int] = field(default_factory=dict)  # stage id -> hidden cases left out


# --- the derived course --------------------------------------------------------------------------------------


def _copy_stage_files(stage: Stage, dest: Path, checks: bool) -> None:
    names = list(derived.shipped_files(stage))
    if checks and any(f.check for f in stage.functions):  # the autograder judges these outputs with reference.py
        names.append("reference.py")
    for name in names:
        shutil.copyfile(stage.dir / name, dest / name)


def derive(course: Course, dest: Path, keep_hidden: bool) -> Derived:
    """Write the course (course.yaml, stages, fixtures) without reference code into dest.

    An autograder's copy (`keep_hidden`) keeps the reference.py of the stages whose outputs a `check:` judges (a
    learner never sees it); a handout has none, and grades those stages against the fixtures' own outputs.
    """
    out = Derived(dest)
    shutil.copyfile(course.root / "course.yaml", dest / "course.yaml")
    for stage in course.stages:
        sdir = dest / "stages" / stage.id
        sdir.mkdir(parents=True)
        _copy_stage_files(stage, sdir, checks=keep_hidden)
        text, n_hidden = derived.stage_yaml(stage, keep_hidden)
        (sdir / "stage.yaml").write_text(text, encoding="utf-8")
        cases = [c for c in stage.cases if keep_hidden or not c.hidden]
        out.public[stage.id] = sum(not c.hidden for c in cases)
        out.hidden[stage.id] = sum(c.hidden for c in cases)
        out.hidden_kept_back[stage.id] = 0 if keep_hidden else n_hidden
        if stage.decoys:
            recorded.record_decoys(course, stage, cases, sdir)
        if stage.drift and not keep_hidden:  # the drift locator's sites on the public cases a learner fails
            recorded.record_sites(course, stage, [c for c in cases if not c.hidden], sdir)
        fdir = dest / "fixtures" / stage.id
        fdir.mkdir(parents=True)
        fixtures.copy_subset(course, stage, [c.id for c in cases], fdir)
    copy_common(course, dest, learners=not keep_hidden)
    return out


def copy_common(course: Course, dest: Path, learners: bool) -> list[str]:
    """Into a derived copy at dest: the modules of common/ that its stage files import; their names.

    A learner's copy gets only public ones, or nothing is written (course.derived.common_modules refuses).
    """
    modules = derived.common_modules(course, dest, learners)
    if modules:
        (dest / layout.COMMON).mkdir(exist_ok=True)
    for path in modules:
        shutil.copyfile(path, dest / layout.COMMON / path.name)
    return [p.stem for p in modules]


def copy_grader(dest: Path, package: Path | None = None) -> None:
    """The grader package itself, so `python -m grader` runs in the copy: its modules and templates only."""
    package = package or Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        wanted = ".py" if rel.parts[0] != "templates" else ".j2"
        if any(p.startswith(".") or p == "__pycache__" for p in rel.parts) or path.suffix != wanted:
            continue
        if path.is_file() and not path.is_symlink():
            (dest / "grader" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / "grader" / rel)


def requirements() -> list[str]:
    """The grader's runtime dependencies (not the test extra): what a learner installs, and a jail shows."""
    return packages.requirements()


def render(name: str, **values: Any) -> str:
    """One of the grader's own templates (README, workflow, autograder scripts)."""
    return templating.render(name, **values)


def _fresh(out: Path) -> Path:
    """A temporary folder next to out, to be renamed into place when complete."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} already exists and is not empty; pass a new folder (the handout never writes "
                         "over files)")
    out.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))


def build_handout(course: Course, out: Path) -> Derived:
    """The learners' copy: stubs, instructions, public fixtures, recorded decoys, the grader, README, workflow."""
    out = out.resolve()
    if course.root == out or course.root in out.parents:
        raise UsageError(f"{out}: the handout must be written outside the course folder {course.root}")
    tmp = _fresh(out)
    try:
        tmp.chmod(0o755)
        derived = derive(course, tmp, keep_hidden=False)
        copy_grader(tmp)
        handout = load_course(tmp)
        course_render.write_missing_stubs(handout, tmp)
        (tmp / "requirements.txt").write_text("\n".join(requirements()) + "\n", encoding="utf-8")
        (tmp / "conftest.py").write_text(render("handout_conftest.py.j2"), encoding="utf-8")
        (tmp / ".gitignore").write_text(".grader/\n__pycache__/\n*.pyc\n.venv/\n", encoding="utf-8")
        values = {"course": handout, "hidden": derived.hidden_kept_back}
        (tmp / "README.md").write_text(render("handout_readme.md.j2", **values), encoding="utf-8")
        workflow = tmp / ".github" / "workflows" / "classroom.yml"
        workflow.parent.mkdir(parents=True)
        workflow.write_text(render("classroom.yml.j2", **values), encoding="utf-8")
        for stage in handout.stages:
            fixtures.StageFixtures(handout, stage).verify_all()
        shutil.rmtree(tmp / ".grader", ignore_errors=True)  # what loading the copy cached is not part of it
        for path in tmp.rglob("*"):  # mkdtemp and mkstemp make private files; a handout is meant to be read
            path.chmod(0o755 if path.is_dir() or path.stat().st_mode & stat.S_IXUSR else 0o644)
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    derived.path = out
    return derived
