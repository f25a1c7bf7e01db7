"""Derived copies of a stage's definition: the learners' handout and the autograder bundle.

A derived stage.yaml keeps the author's text (comments aside) and replaces the hidden cases by their number
(`hidden_cases: N`), which tells the grader the copy has no reference solution to run. Beside it, a derived copy
holds only the files `shipped_files` names: an allow-list, so an editor's backup (reference.py~), a swap file
(.decoys.py.swp) or a notebook of solutions in the stage's folder never ships. Of the course's common/ it holds
the modules its files import (`common_modules`); a learner's copy only those course.yaml lists under
`common: public:`, so reference code kept in common/ never reaches a learner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from grader.course import layout, stagecode
from grader.course.model import Course, Stage
from grader.course.yamlio import read_yaml
from grader.errors import CourseError


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Dumper(yaml.SafeDumper):
    """Multi-line text as a literal block, as authors write it."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


# input generators, artifact builders, --checkpoint checks, the demo, checks of how a function works (observe)
SHIPPED = ("inputs.py", "build.py", "external.py", "demo.py", "checks.py")


def shipped_files(stage: Stage) -> list[str]:
    """The files of stages/<id>/ a derived copy holds besides stage.yaml: its instructions and SHIPPED, if present.

    Nothing else of the folder ships (reference.py and decoys.py least of all: the copy gets recorded decoy
    outputs instead).
    """
    names = dict.fromkeys((stage.instructions, *SHIPPED))
    return [n for n in names if "/" not in n and not n.startswith(".") and (stage.dir / n).is_file()]


def common_modules(course: Course, copy: Path, learners: bool) -> list[Path]:
    """The modules of common/ that the derived copy at `copy` needs: those its stage files import, directly or not.

    A learner's copy (`learners`) may hold only the modules listed under `common: public:`; a file that needs
    another is refused, naming it, since that module is reference code as far as the course says.
    """
    files = sorted((copy / layout.STAGES).glob("*/*.py"))  # what the copy holds, not the author's folder
    for path in files if learners else []:
        secret = not_public(course, path)
        if secret:
            raise CourseError(f"{course.root / path.relative_to(copy)}: a learner's handout holds this file, but it "
                              f"needs {', '.join(f'common/{p.name}' for p in secret)}, which course.yaml does not "
                              "list under `common: public:`. List it there if learners may read it; otherwise keep "
                              "reference code out of the files a handout ships (docs/authoring.md).")
    return stagecode.common_sources(course.root, files)


def not_public(course: Course, path: Path) -> list[Path]:
    """The modules of common/ that a file needs (directly or through another) and learners may not read."""
    return [p for p in stagecode.common_sources(course.root, [path]) if p.stem not in course.common_public]


def stage_yaml(stage: Stage, keep_hidden: bool) -> tuple[str, int]:
    """The stage's YAML for a derived copy, without its hidden cases unless kept, and how many there were."""
    doc = _plain(read_yaml(stage.file))
    hidden = [c for c in doc["cases"] if c.get("visibility") == "hidden"]
    if not keep_hidden:
        doc["cases"] = [c for c in doc["cases"] if c.get("visibility") != "hidden"]
    doc["hidden_cases"] = int(doc.get("hidden_cases", 0)) + (0 if keep_hidden else len(hidden))
    text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=None)
    head = ("# Generated from the instructor's copy by `python -m grader handout`; do not edit.\n"
            "# hidden_cases: how many more cases are run at grading (they are not in this copy).\n")
    return head + text, len(hidden)
