"""The grader's one Jinja environment: its own templates (grader/templates/) and a stage's folder.

jinja2 is imported only when something is rendered: a grade never loads it. Templates that show text from
learners (the cohort page) are rendered with autoescaping on.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"


def number(x: float) -> str:
    """A number as the shortest text that reads back the same ("1e-05", "0.0001")."""
    return f"{x:g}"


@functools.lru_cache(maxsize=8)
def environment(folder: Path | None = None, html: bool = False) -> Any:
    """A jinja2 Environment over `folder` (if given) then the grader's templates; strict about undefined names."""
    import jinja2

    folders = [str(folder)] if folder is not None else []
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([*folders, str(TEMPLATES)]),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=html)
    env.filters["num"] = number
    return env


def render(name: str, folder: Path | None = None, html: bool = False, **values: Any) -> str:
    """Render one template by name."""
    return str(environment(folder, html).get_template(name).render(**values))
