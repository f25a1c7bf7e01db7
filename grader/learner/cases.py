"""A public case in the learner's hands: `inputs STAGE CASE` (how to load it in a REPL) and `--save-outputs DIR`.

Hidden cases never come here: `inputs` refuses them by name, and the judge hands `--save-outputs` public cases only.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures
from grader.course.model import Case, Course, Stage
from grader.errors import UsageError

Keep = Callable[[Case, dict[str, np.ndarray], dict[str, np.ndarray]], None]


def public_case(stage: Stage, case_id: str) -> Case:
    """A public case of the stage, or a UsageError that lists the public ones (a hidden case is refused)."""
    public = [c.id for c in stage.cases if not c.hidden]
    case = next((c for c in stage.cases if c.id == case_id), None)
    if case is not None and case.hidden:
        raise UsageError(f"case '{case_id}' of {stage.id} is hidden: only its verdict is shown, never its inputs or "
                         f"expected values. Public cases: {', '.join(public)}")
    if case is None:
        near = difflib.get_close_matches(case_id, public, n=1)
        also = f" Did you mean '{near[0]}'?" if near else ""
        raise UsageError(f"no public case '{case_id}' in stage {stage.id}.{also} Public cases: {', '.join(public)}")
    return case


def _describe(meta: dict[str, Any]) -> str:
    shape = meta.get("shape")
    return f"  # {meta.get('dtype', '')} {list(shape) if isinstance(shape, list) else ''}".rstrip()


def snippet(course: Course, stage: Stage, case_id: str) -> str:
    """Python that loads a public case's inputs and expected output, calls the learner's function and compares."""
    case = public_case(stage, case_id)
    entry = fixtures.StageFixtures(course, stage, (case,)).manifest["cases"][case.id]  # verified first
    fn = stage.function(case.function)
    folder = fixtures.stage_dir(course, stage).relative_to(course.root)
    tol = case.tolerance
    lines = [f"# {stage.id} / {case.id}: {fn.name}({', '.join(fn.params)}), tolerance atol {tol.atol:g}, rtol "
             f"{tol.rtol:g}",
             "# Paste into a Python REPL or a notebook cell.",
             "import sys",
             "from pathlib import Path",
             "",
             "import numpy as np",
             "",
             f"ROOT = Path({str(course.root)!r})",
             "sys.path.insert(0, str(ROOT))  # so that `import student...` finds your files",
             f"FIXTURES = ROOT / {str(folder)!r}",
             ""]
    order = {p: i for i, p in enumerate(fn.params)}
    for name, meta in sorted(entry["inputs"].items(), key=lambda item: order.get(item[0], len(order))):
        if "file" in meta:
            lines.append(f"{name} = np.load(FIXTURES / {meta['file']!r}){_describe(meta)}")
        elif "artifact" in meta:
            lines.append(f"{name} = str(FIXTURES / 'artifacts' / {meta['artifact']!r})")
        else:
            lines.append(f"{name} = {meta['value']!r}")
    expected = entry["expected"]
    if list(expected) == [""]:
        lines.append(f"expected = np.load(FIXTURES / {expected['']['file']!r}){_describe(expected[''])}")
    else:
        lines += ["expected = {", *(f"    {k!r}: np.load(FIXTURES / {m['file']!r}),{_describe(m)}"
                                    for k, m in expected.items()), "}"]
    call = ", ".join(f"{p}={p}" for p in fn.params)
    lines += ["",
              f"from {fn.module} import {fn.name}  # after an edit: import importlib, {fn.module}; "
              f"importlib.reload({fn.module})",
              f"yours = {fn.name}({call})"]
    if list(expected) == [""]:
        lines.append(f"print(np.abs(yours - expected).max())  # allowed: {tol.atol:g} + {tol.rtol:g} * |expected|")
    else:
        lines.append("for key in expected:")
        lines.append(f"    print(key, np.abs(np.asarray(yours[key]) - expected[key]).max())  # allowed: "
                     f"{tol.atol:g} + {tol.rtol:g} * |expected|")
    return "\n".join(lines) + "\n"


class OutputSaver:
    """`--save-outputs DIR`: each public case's outputs as DIR/<stage>/<case>/yours.npy beside expected.npy."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cases = 0

    def keep(self, stage: Stage) -> Keep:
        """The judge's callback for one stage; files from an earlier run of its cases are removed first."""
        here = self.folder / stage.id
        for old in [*here.glob("*/yours*.npy"), *here.glob("*/expected*.npy")]:
            old.unlink(missing_ok=True)

        def write(case: Case, yours: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
            if case.hidden:  # the judge never asks; this is the second lock on the door
                return
            folder = here / case.id
            try:
                folder.mkdir(parents=True, exist_ok=True)
                for prefix, arrays in (("yours", yours), ("expected", expected)):
                    for key, array in arrays.items():
                        np.save(folder / (f"{prefix}.{key}.npy" if key else f"{prefix}.npy"), array,
                                allow_pickle=False)
            except OSError as e:
                raise UsageError(f"--save-outputs {self.folder}: cannot write {folder} ({e.strerror or e}); check "
                                 "the folder is writable") from e
            self.cases += 1
        return write

    def summary(self) -> str:
        """One line: where the arrays are."""
        if not self.cases:
            return (f"--save-outputs: no outputs to save (only a public case whose function returned a value has "
                    f"any); nothing written to {self.folder}")
        return (f"saved your outputs and the expected ones for {self.cases} public case"
                f"{'' if self.cases == 1 else 's'}: {self.folder}/<stage>/<case>/yours.npy, expected.npy")
