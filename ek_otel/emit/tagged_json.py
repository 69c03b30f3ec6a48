"""A lossless JSON form for the Python values a score carries (tuples, AnyOf, bytes, NaN).

Plain JSON turns tuples into lists, drops :class:`~ek_otel.core.episode.AnyOf`, and has no
NaN or bytes. The durable outbox must hand back exactly the score it was given, so values
are written with a few ``$``-tagged objects where plain JSON would lose something:

- ``{"$tuple": [...]}``, ``{"$anyof": [...]}``, ``{"$rule": {...}}`` (an argument rule,
  :mod:`ek_otel.core.rules`), ``{"$bytes": "<base64>"}``,
  ``{"$float": "nan"|"inf"|"-inf"}``;
- ``{"$dict": [[key, value], ...]}`` for a mapping whose keys are not all strings, or that
  has a key starting with ``$`` (so a user value can never be mistaken for a tag).

Example:
    >>> from ek_otel.core.episode import AnyOf
    >>> from ek_otel.core.rules import Number
    >>> value = {"q": ("a", 1), "unit": AnyOf(("c", "")), 3: float("nan"), "n": Number(2, abs_tol=1)}
    >>> text = json.dumps(to_tagged(value))
    >>> back = from_tagged(json.loads(text))
    >>> back["q"], back["unit"], back[3] != back[3], back["n"] == value["n"]
    (('a', 1), AnyOf(values=('c', '')), True, True)
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping
from typing import Any

from ..core.episode import AnyOf
from ..core.rules import Rule, parse_rule

__all__ = ["to_tagged", "from_tagged"]

_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}

#: Types written as they are (exact types: a subclass takes the general path).
_PLAIN = frozenset({str, int, bool, type(None)})


def to_tagged(value: Any) -> Any:
    """Turn ``value`` into plain JSON data that :func:`from_tagged` turns back into it.

    Unknown objects are written as ``{"$repr": repr(value)}`` (the one lossy case) rather
    than failing, so a score with an odd argument value can still be stored and emitted.

    Example:
        >>> to_tagged({"a": (1, [2.5, None])})
        {'a': {'$tuple': [1, [2.5, None]]}}
        >>> to_tagged(float("inf"))
        {'$float': 'inf'}
    """
    kind = type(value)
    # The common cases first, by exact type, without the isinstance chain below.
    if kind in _PLAIN or (kind is float and math.isfinite(value)):
        return value
    if kind is list:
        return [v if type(v) in _PLAIN else to_tagged(v) for v in value]
    if kind is tuple:
        return {"$tuple": [v if type(v) in _PLAIN else to_tagged(v) for v in value]}
    if kind is dict and all(type(k) is str and not k.startswith("$") for k in value):
        return {k: v if type(v) in _PLAIN else to_tagged(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, list):
        return [to_tagged(v) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [to_tagged(v) for v in value]}
    if isinstance(value, AnyOf):
        return {"$anyof": [to_tagged(v) for v in value.values]}
    if isinstance(value, Rule):
        return {"$rule": value.to_dict()}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: to_tagged(v) for k, v in value.items()}
        return {"$dict": [[to_tagged(k), to_tagged(v)] for k, v in value.items()]}
    return {"$repr": repr(value)}


def from_tagged(data: Any) -> Any:
    """Invert :func:`to_tagged`.

    Example:
        >>> from_tagged({"$dict": [[1, {"$tuple": ["x"]}]]})
        {1: ('x',)}
        >>> from_tagged({"$bytes": "AAE="})
        b'\\x00\\x01'
    """
    if isinstance(data, list):
        return [from_tagged(v) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) == 1:
        (tag, inner), = data.items()
        if tag == "$tuple":
            return tuple(from_tagged(v) for v in inner)
        if tag == "$anyof":
            return AnyOf(tuple(from_tagged(v) for v in inner))
        if tag == "$rule":
            return parse_rule(inner)
        if tag == "$bytes":
            return base64.b64decode(inner)
        if tag == "$float":
            return _SPECIAL_FLOATS[inner]
        if tag == "$dict":
            return {_hashable(from_tagged(k)): from_tagged(v) for k, v in inner}
        if tag == "$repr":
            return inner
    return {k: from_tagged(v) for k, v in data.items()}


def _hashable(key: Any) -> Any:
    return json.dumps(key) if isinstance(key, (list, dict)) else key
