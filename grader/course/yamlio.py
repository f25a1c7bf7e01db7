"""YAML with line numbers: every mapping and list remembers where it was, so messages can say "file:line"."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from grader.errors import CourseError


class YMap(dict[str, Any]):
    """A mapping that remembers the line of itself and of each key."""

    line: int = 0
    key_lines: dict[str, int]


class YList(list[Any]):
    """A sequence that remembers the line of itself and of each item."""

    line: int = 0
    item_lines: list[int]


@functools.lru_cache(maxsize=1)
def _loader() -> Any:
    """PyYAML's C loader (imported only when YAML is actually read), building YMap/YList with line numbers."""
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _map)
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _seq)
    return Loader


def _map(loader: Any, node: Any) -> YMap:
    out = YMap()
    out.line, out.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str):
            raise _Located(line, f"keys must be text, got {key!r}")
        if key in out:
            raise _Located(line, f"duplicate key '{key}' (first on line {out.key_lines[key]})")
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = line
    return out


def _seq(loader: Any, node: Any) -> YList:
    out = YList(loader.construct_object(child, deep=True) for child in node.value)
    out.line, out.item_lines = node.start_mark.line + 1, [c.start_mark.line + 1 for c in node.value]
    return out


class _Located(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def read_yaml(path: Path) -> Any:
    """Parse one YAML file; syntax errors and duplicate keys come back as CourseError with the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CourseError(f"{path}: file not found")
    except (OSError, UnicodeDecodeError) as e:
        raise CourseError(f"{path}: cannot read it ({e})")
    import yaml

    try:
        return yaml.load(text, Loader=_loader())
    except _Located as e:
        raise CourseError(f"{path}:{e.line}: {e.message}")
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise CourseError(f"{path}{line}: not valid YAML: {e.problem or e.context}")
    except (yaml.YAMLError, RecursionError) as e:
        raise CourseError(f"{path}: not valid YAML: {e}")
