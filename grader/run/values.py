"""A learner's return value, checked and turned into .npy bytes in the child (with allow_pickle=False).

None, text, objects, ragged lists and number-like impostors (a float subclass that reads differently through
__float__ than through its value) are refused with a message saying what was returned; a torch tensor is converted.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np


class BadOutput(Exception):
    """What the learner's function returned is not an array of numbers; the message says what it was."""


# One payload: an array's .npy header, then the array's own memory, sent one after the other (child.send)
Payload = tuple[bytes, memoryview]


def encode_value(result: Any, returns: str, keys: tuple[str, ...] = ()) -> tuple[list[str], list[Payload]]:
    """The learner's return value as named .npy payloads.

    An array; a dict's arrays; a tuple's arrays (nested tuples flattened in order, named by `keys`); or text, as a 0-d
    str array.
    """
    if returns == "text":
        if type(result) is not str:
            raise BadOutput(f"returned {_describe(result)}; return text (a str)")
        return [""], [_npy(np.asarray(result))]
    if returns == "dict":
        if not isinstance(result, dict):
            raise BadOutput(f"returned {_describe(result)}; expected a dict of arrays")
        items = [(str(k), v) for k, v in result.items()]
    elif returns == "tuple":
        items = list(zip(keys, _flat(result, keys), strict=True))
    else:
        items = [("", result)]
    return [key for key, _ in items], [_npy(_as_array(value, key)) for key, value in items]


def _npy(array: np.ndarray) -> Payload:
    """An array as .npy bytes: the header, and the array's own memory (a model's logits, 200 MB, are not copied)."""
    head = io.BytesIO()
    header = np.lib.format.header_data_from_array_1_0(array)
    try:
        np.lib.format.write_array_header_1_0(head, header)
    except ValueError:  # a header past 64 KiB (a shape of very many axes)
        np.lib.format.write_array_header_2_0(head, header)
    return head.getvalue(), array.reshape(-1).view(np.uint8).data


def _flat(result: Any, keys: tuple[str, ...]) -> list[Any]:
    """A returned tuple's items, nested tuples flattened in order, checked to be as many as `keys`."""
    if not isinstance(result, tuple):
        raise BadOutput(f"returned {_describe(result)}; expected a tuple of {len(keys)} arrays ({', '.join(keys)})")
    flat: list[Any] = []
    todo = list(result)
    while todo:
        item = todo.pop(0)
        if isinstance(item, tuple):
            todo[:0] = list(item)
        else:
            flat.append(item)
    if len(flat) != len(keys):
        raise BadOutput(f"returned a tuple of {len(flat)} arrays (nested tuples counted item by item); expected "
                        f"{len(keys)}: {', '.join(keys)}")
    return flat


def _as_array(value: Any, key: str) -> np.ndarray:
    what = f"the value for '{key}'" if key else "your function"
    if value is None:
        raise BadOutput(f"{what} returned None. Is a `return` statement missing?")
    if isinstance(value, str | bytes):
        raise BadOutput(f"{what} returned text ({value[:40]!r}); return an array of numbers")
    if type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if not isinstance(value, np.ndarray | list | tuple | int | float | np.generic):
        raise BadOutput(f"{what} returned {_describe(value)}; return a numpy array (a nested list or a "
                         "torch tensor also works)")
    odd = _not_plain(value)
    if odd is not None:  # numpy may read a float subclass through __float__ or through its value: ambiguous
        raise BadOutput(f"{what} returned a value holding {_describe(odd)}; return plain numbers (floats, "
                         "ints or numpy arrays)")
    try:
        array = np.asarray(value)  # no copy of an array: it is sent from where it lies
    except (ValueError, TypeError) as e:
        raise BadOutput(f"{what} returned a sequence that is not a rectangular array of numbers ({e})")
    if array.dtype.kind not in "biufc":
        raise BadOutput(f"{what} returned an array of {array.dtype} values; it must hold numbers")
    return np.require(array, requirements="C")  # C order, and a 0-d array stays 0-d


_PLAIN = (float, int, bool, complex)


def _not_plain(value: Any) -> Any:
    """The first item of a (nested) list or tuple, or the scalar itself, that is not a plain number or array."""
    todo = [value]
    while todo:
        v = todo.pop()
        t = type(v)
        if t in (list, tuple):
            todo.extend(v)
        elif not (t in _PLAIN or isinstance(v, np.ndarray) or (isinstance(v, np.generic) and
                                                                t.__module__ == "numpy")):
            return v
    return None


def _describe(value: Any) -> str:
    return f"a {type(value).__module__}.{type(value).__qualname__}".replace("builtins.", "")
