"""Validation helpers for the loader: a file and a line for every message, and YAML values described in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.course.yamlio import YList, YMap
from grader.errors import CourseError


class Where:
    """A file and the mapping being read in it, for messages that point at a line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, line: int, message: str) -> CourseError:
        """An error at a line of this file."""
        return CourseError(f"{self.path}:{line}: {message}")

    def fields(self, m: Any, what: str, required: dict[str, Any], optional: dict[str, Any], line: int = 0) -> YMap:
        """`m`, checked to be a mapping with the required keys, no unknown key, and each value of its type."""
        if not isinstance(m, dict):
            raise self.fail(getattr(m, "line", line), f"{what} must be a mapping of keys, got {describe(m)}")
        allowed = {**required, **optional}
        for key in m:
            if key not in allowed:
                import difflib

                near = difflib.get_close_matches(key, list(allowed), n=1)
                hint = f" Did you mean '{near[0]}'?" if near else ""
                raise self.fail(line_of(m, key), f"unknown key '{key}' in {what}.{hint} Allowed: {', '.join(allowed)}")
        for key in required:
            if key not in m:
                raise self.fail(getattr(m, "line", line), f"{what} is missing the key '{key}'")
        for key, want in allowed.items():
            if key in m and not is_a(m[key], want):
                raise self.fail(line_of(m, key), f"'{key}' in {what} must be {type_name(want)}, got {describe(m[key])}")
        return m  # type: ignore[return-value]  # a YMap: every mapping the loader builds is one


def line_of(m: Any, key: str) -> int:
    """The line of `key` in a mapping the loader read (or of the mapping itself)."""
    return int(getattr(m, "key_lines", {}).get(key, getattr(m, "line", 0)))


def is_a(value: Any, want: Any) -> bool:
    """Whether a YAML value is of the wanted type (a bool is neither an int nor a float here)."""
    if want is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if want is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, want)


def type_name(want: Any) -> str:
    """A wanted type in words."""
    return {str: "text", float: "a number", int: "a whole number", bool: "true or false", list: "a list",
            dict: "a mapping"}.get(want, str(want))


def describe(value: Any) -> str:
    """A YAML value in words, for messages."""
    if value is None:
        return "nothing"
    return {str: "text", int: "a whole number", float: "a number", bool: "true/false", YList: "a list",
            YMap: "a mapping"}.get(type(value), type(value).__name__) + f" ({value!r})"[:60]


def strings(w: Where, m: YMap, key: str) -> list[str]:
    """The text items of list `key` in a mapping the loader read (an empty list when absent)."""
    items = m.get(key, YList())
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise w.fail(items.item_lines[i], f"every item of '{key}' must be text, got {describe(item)}")
    return list(items)
