"""A case's `inputs:` entries, checked and turned into typed input sources (course.model.Values, Random, ...).

Each entry is a mapping with exactly one kind key: `values`, `value`, `random`, `generate`, `artifact` or `weights`
(docs/authoring.md). What is wrong is refused with the file, the line and what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.course.model import (
    INPUT_KINDS,
    Artifact,
    Generate,
    InputSource,
    InputSpec,
    Json,
    Random,
    Value,
    Values,
    Weights,
)
from grader.course.where import Where, describe, is_a, line_of

DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")
DISTRIBUTIONS = ("normal", "uniform")

_FIELDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "values": ({"values": list}, {"dtype": str}),
    "value": ({"value": object}, {}),
    "random": ({"random": str, "shape": list, "seed": int},
               {"dtype": str, "loc": float, "scale": float, "low": float, "high": float}),
    "generate": ({"generate": str, "seed": int}, {}),
    "artifact": ({"artifact": str}, {}),
    "weights": ({"weights": str}, {"prefix": str, "exclude": list}),
    "json": ({"json": str}, {}),
}
_MESSAGES = {"dtype": f"dtype must be one of {', '.join(DTYPES)}",
             "shape": "shape must be a list of whole numbers >= 0",
             "random": f"random must be one of {', '.join(DISTRIBUTIONS)}",
             "values": "values must be a (nested) list of numbers, every row the same length",
             "scale": "scale must be >= 0",
             "seed": "seed must be a whole number from 0 to 2**32 - 1 (numpy's RandomState)",
             "value": "value must be a number, true/false or text",
             "exclude": "exclude must be a list of name patterns (text)"}


def parse(w: Where, m: Any, name: str) -> InputSpec:
    """The input `name` of a case's `inputs:` mapping `m`, checked and typed."""
    spec = m[name]
    what = f"input '{name}'"
    if not isinstance(spec, dict):
        raise w.fail(line_of(m, name), f"{what} must be a mapping with one of: {', '.join(INPUT_KINDS)}")
    kinds = [k for k in INPUT_KINDS if k in spec]
    if len(kinds) != 1:
        raise w.fail(getattr(spec, "line", 0), f"{what} needs exactly one of: {', '.join(INPUT_KINDS)} "
                     f"(got {', '.join(spec) or 'nothing'})")
    kind = kinds[0]
    required, optional = _FIELDS[kind]
    if kind == "generate":  # the generator's own keyword arguments pass through
        optional = {k: object for k in spec if k not in required}
    w.fields(spec, what, required, optional)
    _check(w, spec, what, {**_FIELDS[kind][0], **_FIELDS[kind][1]})
    if kind == "random" and spec["random"] == "uniform" and ("low" not in spec or "high" not in spec):
        raise w.fail(line_of(spec, "random"), f"{what}: a uniform input needs 'low' and 'high'")
    return InputSpec(name=name, kind=kind, source=_source(kind, {k: _plain(v) for k, v in spec.items()}))


def _check(w: Where, spec: Any, what: str, declared: dict[str, Any]) -> None:
    """Each declared key's value is one the kind accepts (a generator's own keywords are its business)."""
    checks: dict[str, Callable[[Any], bool]] = {
        "dtype": lambda v: v in DTYPES,
        "shape": lambda v: all(is_a(d, int) and d >= 0 for d in v),
        "random": lambda v: v in DISTRIBUTIONS,
        "values": lambda v: _numeric(v) and _rectangular(v),
        "scale": lambda v: v >= 0,
        "seed": lambda v: 0 <= v < 2**32,
        "value": lambda v: isinstance(v, int | float | str | bool),
        "exclude": lambda v: all(isinstance(x, str) for x in v),
    }
    for key, ok in checks.items():
        if key in spec and key in declared and not ok(spec[key]):
            raise w.fail(line_of(spec, key), f"{what}: {_MESSAGES[key]}, got {describe(spec[key])}")


def _source(kind: str, s: dict[str, Any]) -> InputSource:
    if kind == "values":
        return Values(values=s["values"], dtype=s.get("dtype", "float32"))
    if kind == "value":
        return Value(value=s["value"])
    if kind == "random":
        return Random(random=s["random"], shape=tuple(s["shape"]), seed=s["seed"], dtype=s.get("dtype", "float32"),
                      loc=float(s.get("loc", 0.0)), scale=float(s.get("scale", 1.0)), low=s.get("low"),
                      high=s.get("high"))
    if kind == "generate":
        return Generate(generate=s["generate"], seed=s["seed"],
                        options={k: v for k, v in s.items() if k not in ("generate", "seed")})
    if kind == "artifact":
        return Artifact(artifact=s["artifact"])
    if kind == "json":
        return Json(json=s["json"])
    return Weights(weights=s["weights"], prefix=s.get("prefix", ""), exclude=tuple(s.get("exclude", ())))


def _rectangular(values: Any) -> bool:
    """Whether a nested list has one shape (numpy refuses ragged ones)."""
    def shape(v: Any) -> tuple[int, ...] | None:
        if not isinstance(v, list):
            return ()
        inner = {shape(x) for x in v}
        if None in inner or len(inner) > 1:
            return None
        rest = inner.pop() if inner else ()
        return None if rest is None else (len(v), *rest)
    return shape(values) is not None


def _numeric(values: Any) -> bool:
    if isinstance(values, list):
        return all(_numeric(v) for v in values)
    return is_a(values, float)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
