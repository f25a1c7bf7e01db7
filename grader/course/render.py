"""A stage's texts for the learner: the stub they start from and the instructions, filled in from stage.yaml.

Both are rendered from the stage's own values, so the tolerance quoted in a stub or in the text can never
disagree with stage.yaml.
"""

from __future__ import annotations

from pathlib import Path

from grader import fsutil, templating
from grader.course.model import Course, Stage
from grader.errors import CourseError


def stub(stage: Stage) -> str:
    """The learner's starting file for a stage, from the one stub template."""
    return templating.render("stub.py.j2", stage=stage)


def instructions(course: Course, stage: Stage) -> str:
    """The stage's instructions, with its tolerance, functions, cases and hints filled in from stage.yaml."""
    import jinja2

    path = stage.dir / stage.instructions
    try:
        return templating.render(stage.instructions, folder=stage.dir, stage=stage, course=course,
                                 tolerance=stage.tolerance, public_cases=[c for c in stage.cases if not c.hidden])
    except jinja2.TemplateSyntaxError as e:
        raise CourseError(f"{path}:{e.lineno}: template error: {e.message}")
    except jinja2.UndefinedError as e:
        raise CourseError(f"{path}: template error: {e.message} (the names available are stage, course, "
                          "tolerance and public_cases)")
    except jinja2.TemplateNotFound as e:
        raise CourseError(f"{path}: missing template file {e.name}")


def write_file(path: Path, text: str) -> None:
    """Write a learner file whole or not at all, making its folder (and student/__init__.py) as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fsutil.write_text(path, text)
    init = path.parent / "__init__.py"
    if path.parent.name == "student" and not init.exists():
        fsutil.write_text(init, "")


def write_missing_stubs(course: Course, root: Path) -> list[Path]:
    """Stubs for every stage whose learner file does not exist yet (never touching an existing file)."""
    written = []
    for stage in course.stages:
        path = root / stage.student_file
        if not path.exists():
            write_file(path, stub(stage))
            written.append(path)
    init = root / "student" / "__init__.py"
    if not init.exists():
        fsutil.write_text(init, "")
    return written
