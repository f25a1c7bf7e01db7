"""What a learner may import in a jail: the course's runtime dependencies as installed here, and what they need.

pyproject.toml's `dependencies` are what a learner installs (the handout's requirements.txt) and what a course's
stages may tell them to use: numpy everywhere, safetensors for the checkpoint stage, `regex` for the tokenizer's
Unicode classes. A learner's code that runs on their machine must find the same packages when graded, or a correct
submission fails only in the jail (the red team's round 2: the reference tokenizer scored 0/10 in every jailed
grade, "No module named 'regex'"). So the jail shows each of them, and each distribution they require in turn, as
the installed files list them: their packages, modules and the shared libraries a wheel carries (`numpy.libs`).

The list is read from the grader's installed metadata (`gpt2-course`); a grader run from a copy that is not
installed (the Gradescope bundle, a handout) uses FALLBACK, which tests/test_redteam2.py holds equal to
pyproject.toml's.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import importlib.metadata

DISTRIBUTION = "gpt2-course"
FALLBACK = ("numpy>=1.24", "pyyaml>=6", "jinja2>=3.1", "safetensors>=0.4", "watchfiles>=0.21", "regex>=2022.1",
            "pyseccomp>=0.1.2")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def requirements() -> list[str]:
    """The grader's runtime dependencies (not the test extra), as pip takes them."""
    import importlib.metadata  # here, not above: 45 ms of imports a self-paced grade seldom needs (judge/portable.py)

    try:
        reqs = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return list(FALLBACK)
    return [r for r in reqs if not _optional(r)] or list(FALLBACK)


def _optional(requirement: str) -> bool:
    """Whether a requirement holds only for an extra (`pytest>=8; extra == "test"`)."""
    return "extra==" in requirement.replace(" ", "")


def name(requirement: str) -> str:
    """A requirement's distribution name (`numpy>=1.24` -> `numpy`)."""
    found = _NAME.match(requirement.strip())
    return found.group() if found else requirement.strip()


@functools.cache
def installed(wanted: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the wanted distributions found installed, the top-level paths of those and of all they require).

    A path is a package folder, a module file, a wheel's `.libs` folder or a `.dist-info` folder in the
    distribution's site-packages (never a script or a data file outside it). Requirements that hold only for an
    extra are left out; environment markers are not read (a distribution installed here counts, one not installed
    is skipped).
    """
    import importlib.metadata

    found: list[str] = []
    paths: dict[str, None] = {}
    seen: set[str] = set()
    todo = [(name(r), True) for r in wanted]
    while todo:
        dist_name, top = todo.pop(0)
        key = re.sub(r"[-_.]+", "-", dist_name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            module = top and dist_name.isidentifier() and dist_name not in sys.stdlib_module_names
            spec = importlib.util.find_spec(dist_name) if module else None
            if spec is not None and spec.origin:  # importable here without its metadata: the module of that name
                source = spec.submodule_search_locations[0] if spec.submodule_search_locations else spec.origin
                paths.update(dict.fromkeys(p for p in (source, source + ".libs") if os.path.exists(p)))
                found.append(dist_name)
            continue
        if top:
            found.append(dist_name)
        paths.update(dict.fromkeys(_tops(dist)))
        todo += [(name(r), False) for r in dist.requires or [] if not _optional(r)]
    return tuple(found), tuple(paths)


def _tops(dist: importlib.metadata.Distribution) -> list[str]:
    """The top-level entries of a distribution's installed files, as full paths."""
    files = dist.files or []
    tops = sorted({f.parts[0] for f in files if len(f.parts) >= 1 and f.parts[0] not in ("..", "__pycache__")})
    out = []
    for top in tops:
        path = os.path.abspath(str(dist.locate_file(top)))
        if os.path.isdir(path) or (os.path.isfile(path) and top.endswith((".py", ".so"))):
            out.append(path)
    if not files:  # no RECORD (an egg, a distribution's own packaging): its top_level.txt
        for module in (dist.read_text("top_level.txt") or "").split():
            path = os.path.abspath(str(dist.locate_file(module)))
            for candidate in (path, path + ".py"):
                if os.path.exists(candidate):
                    out.append(candidate)
    return out
