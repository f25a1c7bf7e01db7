"""A stage's `functions:` read and checked: the learner's functions, and what `observe:` resolves to."""

from __future__ import annotations

import re
from pathlib import Path

from grader.course.inputs import DTYPES
from grader.course.model import Function, Stage
from grader.course.where import Where, line_of, strings
from grader.course.yamlio import YMap
from grader.records import replace

ENTRY = re.compile(r"^student(\.[A-Za-z_][A-Za-z0-9_]*)+:[A-Za-z_][A-Za-z0-9_]*$")


def functions(w: Where, m: YMap) -> tuple[Function, ...]:
    """Each function of `functions:`, checked: entry, params, returns and keys, dtype, observe's shape."""
    if not m:
        raise w.fail(m.line, "'functions' is empty: name at least one function the learner writes")
    out = []
    for name, spec in m.items():
        f = w.fields(spec, f"function '{name}'", {"entry": str, "params": list, "reference": str},
                     {"returns": str, "keys": list, "elementwise": bool, "dtype": str, "doc": str, "check": str,
                      "observe": dict},
                     line_of(m, name))
        if not ENTRY.match(f["entry"]) or f["entry"].rsplit(":", 1)[1] != name:
            raise w.fail(line_of(f, "entry"), f"entry must look like 'student.<file>:{name}', got '{f['entry']}'")
        params = strings(w, f, "params")
        if len(set(params)) != len(params) or not all(p.isidentifier() for p in params):
            raise w.fail(line_of(f, "params"), f"params of '{name}' must be distinct Python names, got {params}")
        returns = f.get("returns", "array")
        if returns not in ("array", "dict", "text", "tuple"):
            raise w.fail(line_of(f, "returns"), f"returns must be 'array', 'dict', 'text' or 'tuple', got '{returns}'")
        keys = strings(w, f, "keys")
        if (returns in ("dict", "tuple")) != bool(keys):
            raise w.fail(line_of(f, "returns"), "a function that returns a dict or a tuple lists its 'keys' (and only "
                         "then): a tuple's arrays, nested tuples flattened in order, are named by them")
        if f.get("dtype", "float32") not in DTYPES:
            raise w.fail(line_of(f, "dtype"), f"dtype must be one of {', '.join(DTYPES)}")
        if "observe" in f:
            w.fields(f["observe"], f"observe of '{name}'", {"calls": list, "check": str}, {}, line_of(f, "observe"))
        out.append(Function(name=name, module=f["entry"].split(":")[0], params=tuple(params),
                            reference=f["reference"], returns=returns, keys=tuple(keys),
                            elementwise=f.get("elementwise", False), dtype=f.get("dtype"), doc=f.get("doc", ""),
                            check=f.get("check"), observe=tuple(strings(w, f.get("observe", YMap()), "calls")),
                            observe_check=f.get("observe", {}).get("check")))
    return tuple(out)


def observed(w: Where, m: YMap, sdir: Path, functions: tuple[Function, ...], earlier: list[Stage]
              ) -> tuple[Function, ...]:
    """Each function's `observe: {calls, check}`, its names resolved to the learner's entries, checks.py checked."""
    known = {f.name: f"{f.module}:{f.name}" for s in [*earlier] for f in s.functions}
    known.update({f.name: f"{f.module}:{f.name}" for f in functions})
    out = []
    for f in functions:
        if f.observe:
            where = line_of(m["functions"][f.name], "observe")
            unknown = [n for n in f.observe if n not in known]
            if unknown:
                raise w.fail(where, f"observe of '{f.name}' names '{unknown[0]}', which is not a function of this "
                             "stage or of a stage before it")
            if not (sdir / "checks.py").exists():
                raise w.fail(where, f"observe of '{f.name}' names the check '{f.observe_check}' but "
                             f"{sdir / 'checks.py'} is missing")
            f = replace(f, observe=tuple(known[n] for n in f.observe))
        out.append(f)
    return tuple(out)
