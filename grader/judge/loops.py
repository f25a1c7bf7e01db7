"""What a timeout in one stage means for the next ones, in a graded run: the later stages that would call the loop.

A learner's function that timed out is not called again in its own stage (run/sandbox.py, `once`). A later stage
whose file imports the module that looped would wait for the same timeout on each function that calls it, so its
cases are not run either, and say why. "Imports" is read from the learner's source with a regular expression over
its import lines (the file is never imported in the grader): an approximation that errs towards running the code.

The source is the learner's, so the scan must stay linear whatever it holds (a line of `from` and four million
spaces took hours with the first pattern: its two runs of spaces around an empty module name split them every way). No
two adjacent parts of the patterns below can match the same character, so a failed attempt gives back each
character once; and what is read is bounded (`FILE_CAP` a file, `READ_CAP` a search, `MODULES_CAP` modules a search).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from grader.course.model import Stage
from grader.results import StageResult, Status

# The module is never empty (dots, a name, or dots and a name), so the spaces before it and after it cannot trade
# characters; the names after `import` are one character class, with nothing after it to fail.
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.+(?:\w[\w.]*)?|\w[\w.]*)[ \t]+import(?=[ \t(])([\w \t,(]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import(?=[ \t])([\w \t,.]*)", re.MULTILINE)
_NAME = re.compile(r"[^\s,(][^,(]*")  # one name of a list, with what follows it (`b as c`), spaces before it not
FILE_CAP = 1 << 20  # characters of one learner file scanned (imports further down are not seen)
READ_CAP = 8 << 20  # characters read by one `reachable` search, over all the files it follows
MODULES_CAP = 256  # learner modules one search records (and so opens): a course has a dozen; red team round 31 named
# 1.4 million in 9 MiB of imports, and the search tried to open each, 15 s of the grader's CPU a stage


def imported(source: str, package: str = "student", most: int = MODULES_CAP) -> set[str]:
    """The modules of the learner's package that a source file imports (`from .gelu import`, `import student.x`).

    At most `most`, the first in the file: the matches and each list of names are read lazily, so a file naming a
    million modules costs what its first few hundred do (red team round 31: 2.8 million names, 0.5 GiB a search).
    """
    out: set[str] = set()
    for m in _FROM.finditer(source):
        where, names = m.groups()
        module = where.lstrip(".")
        base = package if module != where else ""
        full = ".".join(p for p in (base, module) if p)
        if full == package:  # from student import gelu / from . import gelu
            out.update(f"{package}.{n.group().split()[0]}" for n in _first(names, most - len(out)))
        elif full.startswith(package + "."):
            out.add(full)
        if len(out) >= most:
            return out
    for m in _IMPORT.finditer(source):
        out.update(x for n in _first(m.group(1), most - len(out)) if (x := n.group().split()[0]).startswith(
            package + "."))
        if len(out) >= most:
            break
    return out


def _first(names: str, most: int) -> Iterator[re.Match[str]]:
    """The first `most` names of an import's list (`a, b as c, (d`), each a match of its text."""
    return itertools.islice(_NAME.finditer(names), max(most, 0))


def _read(path: Path, cap: int = FILE_CAP) -> str | None:
    """The first `cap` characters of a learner's file (None if it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(cap)
    except (OSError, ValueError):  # ValueError: a path the OS cannot take
        return None


def reachable(root: Path, module: str) -> set[str]:
    """The learner modules a module imports, directly or through others of the learner's (read, never imported)."""
    seen: set[str] = set()
    todo = [module]
    budget = READ_CAP
    while todo and budget > 0 and len(seen) < MODULES_CAP:
        current = todo.pop()
        source = _read(root / (current.replace(".", "/") + ".py"), min(FILE_CAP, budget))
        if source is None:
            continue
        budget -= len(source)
        for found in imported(source, most=MODULES_CAP - len(seen)) - seen:
            seen.add(found)
            todo.append(found)
    return seen - {module}


def stuck(result: StageResult) -> dict[str, str]:
    """The learner modules a stage's timeouts were stuck in, each with a few words on the timeout."""
    out: dict[str, str] = {}
    for case in result.cases:
        # A hidden case's timeout stops nothing later: "not run" under a later stage would tell the learner it
        # timed out, where every hidden failure shows as FAIL (red team round 4). Its module may loop again there.
        if case.status is not Status.TIMEOUT or case.hidden:
            continue
        where = (case.where or "").split(":", 1)[0]  # "student/gelu.py:11  while ..."
        module = where[:-3].replace("/", ".") if where.endswith(".py") else result.student_file[:-3].replace("/", ".")
        out.setdefault(module, f"{case.function} timed out on case '{case.case}' of stage '{result.stage}'")
    return out


def blocked(root: Path, stage: Stage, looping: dict[str, str], substituted: set[str]) -> str | None:
    """Why this stage's cases are not run, when its learner file imports a module known to loop; else None."""
    live = {m: why for m, why in looping.items() if m not in substituted and m != stage.module}
    if not live:
        return None
    source = _read(root / stage.student_file)
    if source is None:
        return None
    calls = sorted(imported(source) & set(live))
    if not calls:
        return None
    module = calls[0]
    return (f"not run: {stage.student_file} imports {module.replace('.', '/')}.py, where {live[module]}; fix that "
            "loop first (each case would have waited for the timeout again)")
