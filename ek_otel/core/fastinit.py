"""A faster ``__init__`` for the frozen dataclasses made once per span, call or episode.

A frozen dataclass sets each field through ``object.__setattr__`` (frozen classes refuse
plain assignment): a function call per field, about three times what filling the instance
dictionary costs. :func:`fast_init` gives a frozen dataclass an ``__init__`` that fills
``self.__dict__`` directly, with the same parameters, defaults, default factories and
``__post_init__`` call; everything else (equality, hash, repr, ``replace``, pickling,
frozenness) stays the dataclass's own. A class it cannot serve unchanged (``__slots__``,
``InitVar``, ``init=False`` fields, not frozen) is returned as it is.

Example:
    >>> from dataclasses import dataclass, field, replace
    >>> @fast_init
    ... @dataclass(frozen=True)
    ... class Point:
    ...     x: int
    ...     y: int = 0
    ...     tags: list = field(default_factory=list)
    >>> p = Point(1, tags=["a"])
    >>> p, p == Point(1, 0, ["a"]), replace(p, y=2).y, Point(3).tags is not Point(3).tags
    (Point(x=1, y=0, tags=['a']), True, 2, True)
    >>> p.x = 5
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'x'
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["fast_init"]

T = TypeVar("T")


class _Factory:
    """The default of a parameter whose field has a default factory (shown as dataclasses
    show it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()
#: Names the generated ``__init__`` uses for itself.
_RESERVED = frozenset({"self", "_d", "_FACTORY"})


def fast_init(cls: T) -> T:
    """Give the frozen dataclass ``cls`` an ``__init__`` that fills its instance dictionary.

    Example:
        >>> @fast_init
        ... @dataclasses.dataclass(frozen=True)
        ... class Pair:
        ...     a: int
        ...     b: int = 2
        ...     def __post_init__(self):
        ...         object.__setattr__(self, "b", self.b * 10)
        >>> Pair(1), Pair(a=1, b=3)
        (Pair(a=1, b=20), Pair(a=1, b=30))
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__:
        return cls
    all_fields = cls.__dataclass_fields__
    fields = dataclasses.fields(cls)
    if len(fields) != len(all_fields) or any(not f.init for f in fields):
        return cls  # InitVar pseudo-fields or fields left out of __init__
    if any(f.name in _RESERVED or f.name.startswith(("_dflt_", "_fact_")) for f in fields):
        return cls  # a field named like a name of the generated code
    names: dict = {"_FACTORY": _FACTORY}
    positional: list = []
    keyword_only: list = []
    body: list = []
    for f in fields:
        name = f.name
        if f.default is not dataclasses.MISSING:
            names[f"_dflt_{name}"] = f.default
            param = f"{name}=_dflt_{name}"
        elif f.default_factory is not dataclasses.MISSING:
            names[f"_fact_{name}"] = f.default_factory
            param = f"{name}=_FACTORY"
            body.append(f"    if {name} is _FACTORY:\n        {name} = _fact_{name}()")
        else:
            param = name
        (keyword_only if f.kw_only else positional).append(param)
    body.append("    _d = self.__dict__")
    body.extend(f"    _d[{f.name!r}] = {f.name}" for f in fields)
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword_only] if keyword_only else [])])
    source = f"def __init__({signature}):\n" + "\n".join(body) + "\n"
    exec(source, names)  # noqa: S102 - code made from the class's own field names
    init: Any = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(getattr(cls.__init__, "__annotations__", {}))  # same signature
    cls.__init__ = init
    return cls
