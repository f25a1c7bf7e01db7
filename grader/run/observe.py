"""Recording the learner's own calls of named functions while one of their functions runs.

A stage can be judged on how a function works, not only on what it returns: the kvcache stage's generator must feed
one new position at a time to its attention, with the cache as `past`. For such a call the child wraps each observed
function wherever a learner's module holds it, by name or as a default argument or closure cell of one of its
functions (so `run_attention_cached(...)` inside `run_generate_cached` goes through the wrapper), and records, per
call, the shapes of its arguments and of what it returned: never values. The record travels back in the result
frame; the stage's check (checks.py) judges it in the grader.

This runs in the learner's process: code that sets out to fake its own record can (calling the wrapper with
made-up shapes). What it shows is how honest code works; values are still judged by the grader (SECURITY.md).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from grader.run.protocol import OBSERVED_CAP

_DEPTH = 3  # nested tuples/lists summarised this deep (a cache is a tuple of two arrays)
_ITEMS = 16  # items of a tuple/list summarised


def summary(value: Any, depth: int = 0) -> Any:
    """What is recorded of one argument or return value: shapes of arrays, plain scalars, type names otherwise."""
    if isinstance(value, np.ndarray):
        return {"shape": [int(n) for n in value.shape]}
    if value is None or type(value) in (bool, int, float):
        return value
    if isinstance(value, tuple | list) and depth < _DEPTH:  # a namedtuple cache too
        return [summary(v, depth + 1) for v in value[:_ITEMS]]
    shape = getattr(value, "shape", None)  # a torch tensor or another array type: its shape, if it is plain
    if isinstance(shape, tuple) and all(type(n) is int for n in shape):
        return {"shape": list(shape)}
    return {"type": type(value).__name__[:60]}


def install(targets: tuple[tuple[str, str], ...]) -> tuple[list[dict[str, Any]], Callable[[], None]]:
    """Wrap each (module, function) wherever a learner's module holds it; the record, and how to undo it all."""
    record: list[dict[str, Any]] = []
    undo: list[Callable[[], None]] = []
    for module_name, name in targets:
        try:  # imported as the learner's own code would import it; a module that cannot be is simply not observed
            module = importlib.import_module(module_name)
        except BaseException:  # noqa: BLE001 - the learner's import error shows in their own call's verdict
            continue
        original = getattr(module, name, None)
        if not callable(original):
            continue  # not imported or not written: the check sees no calls and says so
        wrapper = _recording(name, original, record)
        home = getattr(original, "__module__", None)  # where it was defined: a stand-in's course module, for `check`
        for mod_name, mod in list(sys.modules.items()):
            if not (mod_name == "student" or mod_name.startswith("student.") or mod_name == home):
                continue
            namespace = getattr(mod, "__dict__", {})
            for key, value in list(namespace.items()):
                if value is original:
                    undo.append(functools.partial(namespace.__setitem__, key, value))
                    namespace[key] = wrapper
                for fn in _functions(value):
                    undo += _rebind(fn, original, wrapper)

    def restore() -> None:
        for step in reversed(undo):
            step()

    return record, restore


def _functions(value: Any) -> list[types.FunctionType]:
    """A module-level function, or the functions of a class.

    Where a learner may hold the observed function other than by name: a default argument
    (`attend=run_attention_cached`), a closure's cell.
    """
    if isinstance(value, types.FunctionType):
        return [value]
    if isinstance(value, type):
        return [v for v in vars(value).values() if isinstance(v, types.FunctionType)]
    return []


def _rebind(fn: types.FunctionType, original: Any, wrapper: Any) -> list[Callable[[], None]]:
    """Point fn's default arguments and closure cells that hold `original` at `wrapper`; how to undo it."""
    undo: list[Callable[[], None]] = []
    defaults, kwdefaults = fn.__defaults__, fn.__kwdefaults__
    if defaults and any(d is original for d in defaults):
        fn.__defaults__ = tuple(wrapper if d is original else d for d in defaults)
        undo.append(functools.partial(setattr, fn, "__defaults__", defaults))
    if kwdefaults and any(d is original for d in kwdefaults.values()):
        fn.__kwdefaults__ = {k: wrapper if d is original else d for k, d in kwdefaults.items()}
        undo.append(functools.partial(setattr, fn, "__kwdefaults__", kwdefaults))
    for cell in fn.__closure__ or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if held is original:
            cell.cell_contents = wrapper
            undo.append(functools.partial(setattr, cell, "cell_contents", original))
    return undo


def _recording(name: str, original: Callable[..., Any], record: list[dict[str, Any]]) -> Callable[..., Any]:
    try:
        signature: inspect.Signature | None = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    depth = [0]  # a call the function makes of itself (past=None turned into an empty cache) is part of the outer one

    @functools.wraps(original)
    def observed(*args: Any, **kwargs: Any) -> Any:
        entry: dict[str, Any] = {"function": name}
        if depth[0] == 0 and len(record) < OBSERVED_CAP:
            record.append(entry)
            entry["args"] = _arguments(signature, args, kwargs)
        depth[0] += 1
        try:
            result = original(*args, **kwargs)
        finally:
            depth[0] -= 1
        if "args" in entry:
            entry["returned"] = summary(result)
        return result

    return observed


def _arguments(signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name (by position, "0", "1", ..., where they cannot be bound)."""
    try:
        if signature is not None:
            bound = signature.bind(*args, **kwargs).arguments
            return {str(k): summary(v) for k, v in bound.items()}
    except TypeError:
        pass  # the call itself will raise the learner's TypeError
    return {**{str(i): summary(v) for i, v in enumerate(args)}, **{str(k): summary(v) for k, v in kwargs.items()}}
