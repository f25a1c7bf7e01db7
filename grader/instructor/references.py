"""The course's reference solutions written as a learner's files, for a jail to import in their place.

A stage graded with references (grader/instructor/upstream.py, `upstream: reference`) runs in a jail whose copy of
student/ holds, in place of each earlier stage's file, that stage's reference.py; `check` and the Gradescope bundle
use the same files. A jail sees nothing of the course, so the common/ modules a reference imports come along, cut
down to what it reaches (course/commoncut.py).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from grader.course import Course, Stage, commoncut, layout
from grader.instructor import handout

COMMON_COPY = "_course_common_"  # student/_course_common_<name>.py: common/<name>.py, for a reference written in
# Put before a reference's first statement: `common.<name>` is then the copy beside it (dependencies first).
COMMON_ALIASES = """import importlib as _importlib, sys as _sys, types as _types

_sys.modules.setdefault("{common}", _types.ModuleType("{common}")).__path__ = []
for _name in {names}:
    _sys.modules.setdefault(f"{common}.{{_name}}", _importlib.import_module(f"{prefix}{{_name}}"))
"""


def files(course: Course, *stages: Stage) -> dict[str, str]:
    """Stages' references as the learner's files: path under a submission's root -> text.

    student/<file>.py is a stage's reference.py with the learner's function names bound to the reference's. A jail
    sees nothing of the course but student/ (and a submission's intake takes only .py files beside the stage files),
    so each common/<name>.py the references import is written beside them as student/_course_common_<name>.py, cut
    down to the definitions these references reach (course/commoncut.py: never a module whole, or common/gpt2.py
    would solve the stage being graded), and lines before each reference's first statement make `common.<name>`
    that copy.
    """
    shared = commoncut.cut(course.root, [s.dir / "reference.py" for s in stages])
    if not stages:
        return {}
    top = stages[0].module.split(".")[0]  # the learner's package: student
    files = {f"{top}/{COMMON_COPY}{name}.py": text for name, text in shared.items()}
    for stage in stages:
        source = (stage.dir / "reference.py").read_text(encoding="utf-8")
        if shared:
            source = _before_first_statement(source, COMMON_ALIASES.format(
                common=layout.COMMON, names=tuple(shared), prefix=f"{top}.{COMMON_COPY}"))
        names = [f"{f.name} = {f.reference}\n" for f in stage.functions if f.name != f.reference]
        files[stage.student_file] = (source + ("\n\n# the learner's names for the reference's functions\n"
                                               if names else "") + "".join(names))
    return files


def _before_first_statement(source: str, text: str) -> str:
    """Source with text put in after its docstring and `from __future__` imports, before anything else runs."""
    body = ast.parse(source).body
    i = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    while i < len(body) and isinstance(stmt := body[i], ast.ImportFrom) and stmt.module == "__future__":
        i += 1
    lines = source.splitlines(keepends=True)
    at = (body[i - 1].end_lineno or 0) if i else 0
    return "".join(lines[:at]) + "\n" + text + "".join(lines[at:])


def ship(course: Course, dest: Path) -> list[str]:
    """Into a derived copy at dest (the Gradescope bundle's course): the references its `upstream:` policy needs.

    Only with `upstream: reference`, and only of the stages another stage depends on; they sit in stages/<id>/,
    which graded runs hide from the learner's code (its functions still run in the learner's process: see
    docs/authoring.md on `upstream:`). Returns the stage ids shipped.
    """
    if course.upstream != "reference":
        return []
    needed = sorted({d for s in course.stages for d in s.depends_on})
    for stage_id in needed:
        shutil.copyfile(course.stage(stage_id).dir / "reference.py", dest / "stages" / stage_id / "reference.py")
    handout.copy_common(course, dest, learners=False)  # the common/ modules these references import
    return needed
