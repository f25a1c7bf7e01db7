"""Only what some files use of the course's common/ modules: the top-level definitions their imports reach.

A stage graded with the references of the stages it depends on runs in a jail whose student/ holds those
references as the learner's files (grader/instructor/upstream.py). The common/ modules they import may hold much
more than they use (this course's common/gpt2.py is the whole model): a jail that got them whole would hand the
learner the stage being graded, and every stage after it. So what a jail gets of each common module is cut down
here to the statements the references reach, by name, through the module's own definitions and through the other
common modules it imports.

Written by hand: no maintained library slices a Python module by the names it exports (tree-shakers are for
JavaScript bundles). The slice errs on the side of keeping: a statement that defines no name (a docstring, a call)
is kept, a name used anywhere in a kept statement (a local one too) keeps its definition, and a module that reaches
its names in ways a reading of its text cannot follow (`globals()`, `vars()`, `exec`, `eval`, a module `__getattr__`,
a `from x import *`) is kept whole: docs/authoring.md tells a course author not to do that in common/.
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.course import layout
from grader.errors import CourseError

COMMON = layout.COMMON
WHOLE = frozenset({"*"})  # every name of the module
_OPAQUE = {"globals", "vars", "exec", "eval", "__getattr__", "locals"}  # name lookups a reading cannot follow


def cut(root: Path, files: list[Path]) -> dict[str, str]:
    """Common module name -> its source cut to what `files` use, in an order where each comes after those it imports."""
    folder = layout.common_dir(root)
    trees: dict[str, ast.Module] = {}
    wanted: dict[str, set[str]] = {}
    todo = [use for f in files for use in _common_uses(_parse(f, f.read_bytes()))]
    while todo:
        name, names = todo.pop()
        if name not in trees:
            path = folder / f"{name}.py"
            if not path.is_file():
                raise CourseError(f"a reference imports {COMMON}.{name}, but there is no {path}")
            trees[name] = _parse(path, path.read_bytes())
            wanted[name] = set()
        if names <= wanted[name] or "*" in wanted[name]:
            continue
        wanted[name] |= names
        kept = _reached(trees[name], wanted[name])
        todo += [use for stmt in kept for use in _common_uses_of(stmt, trees[name])]
    reached = {name: _reached(trees[name], wanted[name]) for name in trees}  # final: what each module keeps
    order: list[str] = []

    def visit(name: str, seen: set[str]) -> None:
        if name in order or name in seen:
            return
        seen.add(name)
        for stmt in reached[name]:
            for used, _ in _common_uses_of(stmt, trees[name]):
                visit(used, seen)
        order.append(name)

    for name in sorted(trees):
        visit(name, set())
    return {name: _render(folder / f"{name}.py", trees[name], reached[name]) for name in order}


def _parse(path: Path, source: bytes) -> ast.Module:
    try:
        return ast.parse(source, str(path))
    except SyntaxError as e:
        raise CourseError(f"{path}:{e.lineno}: cannot read it: SyntaxError: {e.msg}") from None


def _common_uses(tree: ast.Module) -> list[tuple[str, frozenset[str]]]:
    """(common module, the names of it used) for each import of a common module in a file."""
    return [use for stmt in tree.body for use in _common_uses_of(stmt, tree)]


def _common_uses_of(stmt: ast.stmt, tree: ast.Module | None = None) -> list[tuple[str, frozenset[str]]]:
    """What one top-level statement imports of common modules; a module imported whole is used through `tree`."""
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        if stmt.module.startswith(COMMON + "."):
            names = frozenset(a.name for a in stmt.names)
            return [(stmt.module.split(".")[1], WHOLE if "*" in names else names)]
        if stmt.module == COMMON:  # from common import gpt2: gpt2.<attribute>
            return [(a.name, _attributes(tree, a.asname or a.name)) for a in stmt.names]
    if isinstance(stmt, ast.Import):
        out = []
        for a in stmt.names:
            if a.name.startswith(COMMON + "."):
                # import common.gpt2 [as m]: common.gpt2.<attribute>, or m.<attribute>
                out.append((a.name.split(".")[1], _attributes(tree, a.asname, a.name) if a.asname
                            else _attributes(tree, None, a.name)))
        return out
    return []


def _attributes(tree: ast.Module | None, alias: str | None, dotted: str | None = None) -> frozenset[str]:
    """The attributes read of a module bound to `alias` (or reached as `dotted`); WHOLE when used otherwise."""
    if tree is None:
        return WHOLE
    names: set[str] = set()
    attribute_values: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if (alias and isinstance(node.value, ast.Name) and node.value.id == alias) or \
                    (dotted and not alias and ast.unparse(node.value) == dotted):
                names.add(node.attr)
                attribute_values.update(id(n) for n in ast.walk(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == (alias or (dotted or "").split(".")[0]) \
                and id(node) not in attribute_values and isinstance(node.ctx, ast.Load):
            return WHOLE  # passed around as a value: any of its names may be used
    return frozenset(names)


def _reached(tree: ast.Module, names: set[str]) -> list[ast.stmt]:
    """The module's top-level statements that `names` need, in source order."""
    if "*" in names or _opaque(tree):
        return list(tree.body)
    defines = [_defined(s) for s in tree.body]
    keep = {i for i, d in enumerate(defines) if d is None}  # defines nothing: a docstring, a call, kept
    todo = set(names)
    for i in keep:
        todo |= _used(tree.body[i])
    done: set[str] = set()
    while todo:
        name = todo.pop()
        done.add(name)
        for i, d in enumerate(defines):
            if i not in keep and d and name in d:
                keep.add(i)
                todo |= _used(tree.body[i]) - done
    return [s for i, s in enumerate(tree.body) if i in keep]


def _opaque(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _OPAQUE:
            return True
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return True
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
    return False


def _defined(stmt: ast.stmt) -> set[str] | None:
    """The names a top-level statement binds; None for one that binds none (kept whatever is wanted)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            return None
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    bound = {n.id for n in _walk_top(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)}
    return bound or None


def _walk_top(stmt: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement outside any function, class or lambda it holds (whose names are their own)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                todo.append(child)
    return out


def _used(stmt: ast.stmt) -> set[str]:
    """Every name a statement reads, at any depth (a local name too: keeping more is safe)."""
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _render(path: Path, tree: ast.Module, kept: list[ast.stmt]) -> str:
    """The kept statements' own text (comments within them included), in source order."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if len(kept) == len(tree.body):
        return "".join(lines)
    parts = [f"# {COMMON}/{path.name}, cut to what the references of the earlier stages use\n"]
    for stmt in kept:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        parts.append("".join(lines[first - 1:stmt.end_lineno]).rstrip("\n") + "\n\n")
    return "".join(parts)

