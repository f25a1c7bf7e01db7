"""Records: classes declared by their annotated fields, as dataclasses are, made in microseconds.

Why not dataclasses (written by hand, measured, bench/grade_cold.py): on Python 3.11 `@dataclass` compiles every
method it adds with exec as the class is made (0.4 ms a plain class, 1.1 ms a frozen one), and `import dataclasses`
imports inspect (about 10 ms). The grader's start-up path holds about forty records, so a cold `--stage gelu` paid
some 45 ms for them, a fifth of its time, against issue 11's target of 1.5x a minimal script. attrs (0.8 ms a class,
50 ms to import) and msgspec (35 ms to import) cost more. A Record's methods are written once, here, and read the
class's field table; making a class only reads its annotations.

What a dataclass gives and a Record keeps: fields in declaration order (inherited ones first), defaults and
`field(default_factory=...)`, positional or keyword construction with the same errors for missing or unknown
arguments, `__post_init__`, `__eq__` over the fields of the same class, a `__repr__`, `frozen=True` (assignment
raises, the record hashes by its fields), `replace`, `fields` and `asdict`. Type checkers see a dataclass
(typing.dataclass_transform). Not kept: `init=False` fields, `kw_only`, ordering, `__slots__`, InitVar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

T = TypeVar("T")
R = TypeVar("R", bound="Record")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """A field's default: a value, or a function called for each new record (`default_factory`)."""

    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("a field takes a default or a default_factory, not both")
        self.default, self.default_factory = default, default_factory


@overload
def field(*, default: T) -> T: ...
@overload
def field(*, default_factory: Callable[[], T]) -> T: ...
def field(*, default: Any = MISSING, default_factory: Any = MISSING) -> Any:
    """A field's default value, or its default_factory (called for each new record), as in dataclasses."""
    return Field(default, default_factory)


class FrozenError(AttributeError):
    """An assignment to a field of a frozen record."""


@dataclass_transform(field_specifiers=(field, Field))
class Record:
    """The base of every record: `class Point(Record): x: float; y: float = 0.0`."""

    _names: ClassVar[tuple[str, ...]] = ()
    _name_set: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Field]] = {}
    _frozen: ClassVar[bool] = False
    _constants: ClassVar[dict[str, Any]] = {}  # the defaults that are values
    _factories: ClassVar[tuple[tuple[str, Callable[[], Any]], ...]] = ()  # and those made for each record
    _post: ClassVar[bool] = False  # the class has a __post_init__

    def __init_subclass__(cls, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names, defaults = list(cls._names), dict(cls._defaults)
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, Field):
                defaults[name] = value
                if value.default is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, value.default)
            elif value is not MISSING:
                defaults[name] = Field(value)
            else:
                defaults.pop(name, None)
            if name not in names:
                names.append(name)
        first = min((names.index(d) for d in defaults), default=len(names))
        late = [n for n in names[first:] if n not in defaults]
        if late:
            raise TypeError(f"{cls.__name__}: field '{late[0]}' has no default but follows one that has")
        cls._names, cls._defaults, cls._frozen = tuple(names), defaults, frozen or cls._frozen
        cls._name_set = frozenset(names)
        cls._constants = {n: f.default for n, f in defaults.items() if f.default_factory is MISSING}
        cls._factories = tuple((n, f.default_factory) for n, f in defaults.items() if f.default_factory is not MISSING)
        cls._post = hasattr(cls, "__post_init__")
        if cls._frozen:
            if "__hash__" not in cls.__dict__:  # a record may leave a field out of its hash (course/model.py)
                cls.__hash__ = _hash  # type: ignore[method-assign,assignment]
            cls.__setattr__ = _refuse_set  # type: ignore[method-assign,assignment]
            cls.__delattr__ = _refuse_delete  # type: ignore[method-assign,assignment]
        elif "__eq__" not in cls.__dict__ and "__hash__" not in cls.__dict__:
            cls.__hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable, as a dataclass

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Dict work in C: records are made by the thousand (a course's cases and inputs, read from its cache).
        names = self._names
        if args:
            if len(args) > len(names) or not kwargs.keys().isdisjoint(names[:len(args)]):
                self._wrong(args, kwargs)
            kwargs.update(zip(names, args, strict=False))
        if len(kwargs) != len(names):
            kwargs = {**self._constants, **kwargs}
            for name, factory in self._factories:
                if name not in kwargs:
                    kwargs[name] = factory()
        if kwargs.keys() != self._name_set:  # an unknown name, standing in for a missing one or beside them all
            self._wrong((), kwargs)
        self.__dict__.update(kwargs)
        if self._post:
            self.__post_init__()  # type: ignore[attr-defined]

    def _wrong(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Raise the TypeError a dataclass's __init__ would for these arguments."""
        me, names = type(self).__name__, self._names
        if len(args) > len(names):
            raise TypeError(f"{me}() takes {len(names)} arguments but {len(args)} were given")
        twice = [n for n in names[:len(args)] if n in kwargs]
        if twice:
            raise TypeError(f"{me}() got multiple values for argument '{twice[0]}'")
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            raise TypeError(f"{me}() got an unexpected keyword argument '{unknown[0]}'")
        missing = [n for n in names if n not in kwargs]
        raise TypeError(f"{me}() missing required argument: '{missing[0]}'")

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._names)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._names)


def _hash(self: Record) -> int:
    return hash(tuple(getattr(self, n) for n in self._names))


def _refuse_set(self: Record, name: str, value: Any) -> None:
    raise FrozenError(f"cannot assign to field '{name}' of a frozen {type(self).__name__}")


def _refuse_delete(self: Record, name: str) -> None:
    raise FrozenError(f"cannot delete field '{name}' of a frozen {type(self).__name__}")


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """The names of a record's (or a record class's) fields, in order."""
    return record._names


def replace(record: R, **changes: Any) -> R:
    """A new record of the same class: these fields changed, the others as they are (its __post_init__ runs)."""
    unknown = [k for k in changes if k not in record._names]
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field '{unknown[0]}'")
    return type(record)(**{n: changes[n] if n in changes else getattr(record, n) for n in record._names})


def asdict(record: Record) -> dict[str, Any]:
    """A record as plain data, nested records, lists, tuples and dicts too (as dataclasses.asdict)."""
    return {n: _plain(getattr(record, n)) for n in record._names}


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return type(value)(*(_plain(v) for v in value))
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
