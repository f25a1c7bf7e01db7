"""grader/records.py keeps what the grader used of dataclasses (it replaced them for start-up time)."""

from __future__ import annotations

import copy
import pickle
import weakref
from typing import ClassVar

import pytest

from grader import records
from grader.records import FrozenError, Record, field


class Point(Record):
    x: float
    y: float = 0.0
    tags: list[str] = field(default_factory=list)
    kind: ClassVar[str] = "point"  # not a field


class Point3(Point):
    z: float = 0.0


class Key(Record, frozen=True):
    name: str
    parts: tuple[int, ...] = ()


class Loose(Record, frozen=True):
    name: str
    data: dict[str, int] = field(default_factory=dict)

    def __hash__(self) -> int:  # a field left out of the hash
        return hash(self.name)


def test_construction_defaults_and_factories() -> None:
    a, b = Point(1.0), Point(x=1.0)
    assert (a.x, a.y, a.tags) == (1.0, 0.0, []) and a == b
    a.tags.append("t")
    assert b.tags == [] and Point(1.0).tags == []  # a new list for each record
    assert Point(1.0, 2.0, ["u"]) == Point(y=2.0, tags=["u"], x=1.0)
    assert records.fields(Point) == ("x", "y", "tags") and records.fields(Point3) == ("x", "y", "tags", "z")
    assert repr(Point3(1.0, z=3.0)) == "Point3(x=1.0, y=0.0, tags=[], z=3.0)"
    assert Point(1.0) != Point3(1.0) and Point(1.0) != (1.0, 0.0, [])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: Point(), "missing required argument: 'x'"),
    (lambda: Point(1.0, x=2.0), "multiple values for argument 'x'"),
    (lambda: Point(1.0, w=2.0), "unexpected keyword argument 'w'"),
    (lambda: Point(1.0, 2.0, [], 4), "takes 3 arguments but 4 were given"),
    (lambda: Point(x=1.0, y=2.0, w=3.0), "unexpected keyword argument 'w'"),  # as many names as fields: still checked
    (lambda: Point(y=2.0, tags=[], w=3.0), "unexpected keyword argument 'w'"),  # red team round 9: w stood in for x
])
def test_wrong_arguments_raise_as_a_dataclass_does(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match=message):
        call()


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="field 'b' has no default but follows one that has"):
        class Bad(Record):  # noqa: F841
            a: int = 1
            b: int


def test_frozen_records_refuse_assignment_and_hash_by_value() -> None:
    k = Key("a", (1, 2))
    with pytest.raises(FrozenError):
        k.name = "b"  # type: ignore[misc]
    with pytest.raises(FrozenError):
        del k.name
    assert hash(k) == hash(Key("a", (1, 2))) and {k: 1}[Key("a", (1, 2))] == 1
    assert hash(Loose("n", {"a": 1})) == hash(Loose("n", {"b": 2}))  # its own __hash__ stays
    with pytest.raises(TypeError, match="unhashable"):
        hash(Point(1.0))  # equal by value and mutable: not hashable, as a dataclass


def test_replace_asdict_and_the_copies() -> None:
    p = Point3(1.0, tags=["a"], z=2.0)
    q = records.replace(p, y=5.0)
    assert q == Point3(1.0, 5.0, ["a"], 2.0) and p.y == 0.0
    with pytest.raises(TypeError, match="no field 'w'"):
        records.replace(p, w=1)
    nested = Loose("n", {"a": 1})
    assert records.asdict(Point(1.0, tags=["a"])) == {"x": 1.0, "y": 0.0, "tags": ["a"]}
    assert records.asdict(Key("k", (1,))) == {"name": "k", "parts": (1,)}
    assert records.asdict(nested) == {"name": "n", "data": {"a": 1}}
    assert pickle.loads(pickle.dumps(p)) == p and copy.deepcopy(p) == p and weakref.ref(p)() is p
    assert pickle.loads(pickle.dumps(Key("k"))) == Key("k")


def test_post_init_runs_on_construction_and_replace() -> None:
    seen: list[int] = []

    class Counted(Record):
        n: int

        def __post_init__(self) -> None:
            seen.append(self.n)

    records.replace(Counted(1), n=2)
    assert seen == [1, 2]
