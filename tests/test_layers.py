"""The architecture, held by a test: imports flow one way between the grader's packages.

Every module's imports are read from its source (those inside functions too), and the graph must have no cycle, no
edge from a lower layer to a higher one, no import between the learner's and the instructor's commands, and no
private name taken from another module. See ../shared/STYLE.md and docs/architecture.md.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

GRADER = ROOT / "grader"

# Lower numbers are lower layers; a module may import only from lower layers or from its own package. records.py
# (the base of every record, stdlib only) is below the other leaves: results are records.
LAYERS = {
    "grader.records": -1,
    "grader": 0, "grader.errors": 0, "grader.results": 0, "grader.fsutil": 0, "grader.templating": 0,
    "grader.course": 1, "grader.fixtures": 2, "grader.run": 3, "grader.judge": 4, "grader.report": 4,
    "grader.learner": 5, "grader.instructor": 5, "grader.pytest_plugin": 6, "grader.cli": 7,
    "grader.__main__": 8,
}
# Narrower rules for two packages: the security perimeter and the renderers see only the leaves.
ONLY = {
    "grader.run": {"grader.errors", "grader.records", "grader.results"},
    "grader.report": {"grader.errors", "grader.records", "grader.results", "grader.fsutil", "grader.templating"},
}
SIZE_LIMIT = 330  # lines: "about one screen to ~300 lines"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(GRADER.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _package(name: str) -> str:
    """The layer a module belongs to: its entry in LAYERS, found by the longest matching prefix."""
    return max((k for k in LAYERS if name == k or name.startswith(k + ".")), key=len)


def _imports(name: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for every import of a grader module in `path`."""
    is_pkg = path.name == "__init__.py"
    base = name if is_pkg else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("grader")]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                anchor = base.split(".")[: len(base.split(".")) - node.level + 1]
                module = ".".join(anchor + ([module] if module else []))
            if not module.startswith("grader"):
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in MODULES:  # `from grader.run import sandbox`: the submodule itself
                    found.append((sub, [], node.lineno))
                else:
                    found.append((module, [alias.name], node.lineno))
    return found


def _graph() -> dict[str, set[str]]:
    return {name: {m for m, _, _ in _imports(name, path) if m in MODULES and m != name}
            for name, path in MODULES.items()}


def test_no_import_cycles() -> None:
    graph = _graph()
    # a package's __init__ importing its own submodules is its facade, not a dependency of theirs
    graph = {a: {b for b in deps if not (MODULES[a].name == "__init__.py" and b.startswith(a + "."))}
             for a, deps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:
        state[v] = 1
        stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                cycles.append(" -> ".join(stack[stack.index(w):] + [w]))
            elif w not in state:
                visit(w)
        stack.pop()
        state[v] = 2

    for v in sorted(graph):
        if v not in state:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_imports_flow_down_the_layers() -> None:
    bad = []
    for name, path in MODULES.items():
        here = _package(name)
        for module, _, line in _imports(name, path):
            there = _package(module)
            if there == here:
                continue
            where = f"{path.relative_to(ROOT)}:{line}: {name} imports {module}"
            if here in ONLY and there not in ONLY[here]:
                bad.append(f"{where} ({here} may import only {', '.join(sorted(ONLY[here]))})")
            elif LAYERS[there] >= LAYERS[here]:
                bad.append(f"{where} (layer {LAYERS[here]} importing layer {LAYERS[there]})")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_private_names_across_modules() -> None:
    bad = [f"{path.relative_to(ROOT)}:{line}: from {module} import {n}"
           for name, path in MODULES.items() for module, names, line in _imports(name, path)
           for n in names if n.startswith("_") and not n.startswith("__") and module != name]
    assert not bad, "private names imported from other modules:\n" + "\n".join(bad)


def test_modules_stay_about_a_screen_long() -> None:
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in MODULES.values()}
    long = {name: n for name, n in sizes.items() if n > SIZE_LIMIT}
    assert not long, f"modules over {SIZE_LIMIT} lines: {long}"


@pytest.mark.parametrize("module, absent", [
    ("grader.report.text", ("grader.run.sandbox", "jinja2", "grader.judge.grade")),
    ("grader.report.json", ("grader.run.sandbox", "jinja2")),
    ("grader.judge.grade", ("jinja2", "yaml", "grader.learner.watch", "grader.instructor.batch")),
])
def test_a_module_loads_only_what_it_needs(module: str, absent: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print(sorted(m for m in {absent!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing {module} loads {out.stdout.strip()}"
