"""Reports, scores and the core's shapes as plain JSON values (what the JSON report is made of).

Dataclasses become objects of their fields (an :class:`~ek_otel.core.scores.EpisodeScore`
also gets its ``label``; a :class:`~ek_otel.core.episode.Cost` its ``complete``),
:class:`~ek_otel.core.episode.AnyOf` ``{"any_of": [...]}``, argument rules their gold-file
object, tuples and sets lists, tuple keys ``"a|b"``, NaN and the infinities ``null``, and
anything else its ``repr``.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> row = to_jsonable(EpisodeScore("t", tp=1.0, exact=True, success=True))
    >>> row["label"], row["cost"]["complete"], to_jsonable({("a", 1): (float("inf"),)})
    ('pass', True, {'a|1': [None]})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Optional, Union

from .episode import AnyOf, Cost
from .gc_pause import paused_gc
from .rules import Rule
from .scores import EpisodeScore

__all__ = ["to_jsonable"]


def to_jsonable(x: Any) -> Any:
    """Convert reports, scores and shapes to plain JSON values.

    A report holds a million values and no reference cycle: it is built with the cyclic
    garbage collector paused (:func:`~ek_otel.core.gc_pause.paused_gc`), which would
    otherwise walk the growing report again and again (most of the time of building it).

    Example:
        >>> to_jsonable({"a": (1, float("nan")), "b": AnyOf((1, ""))})
        {'a': [1, None], 'b': {'any_of': [1, '']}}
    """
    with paused_gc():
        return _jsonable(x)


#: The types returned as they are (exact types: a subclass goes the long way).
_PLAIN = frozenset({str, int, bool, type(None)})


def _jsonable(x: Any) -> Any:
    kind = type(x)  # the plain types first, and inline in containers: a report holds millions
    if kind in _PLAIN:
        return x
    convert = _CONVERTERS.get(kind)
    if convert is not None:
        return convert(x)
    if isinstance(x, AnyOf):
        return _jsonable_any_of(x)
    if isinstance(x, Rule):  # an argument rule: its gold-file object
        return x.to_dict()
    names = _DATACLASS_FIELDS.get(kind)
    if names is None and is_dataclass(x) and not isinstance(x, type):
        names = _DATACLASS_FIELDS[kind] = tuple(f.name for f in fields(x))
    if names is not None:
        out = {name: _jsonable(getattr(x, name)) for name in names}
        if isinstance(x, EpisodeScore):
            out["label"] = x.label
            if x.answer is None:  # no answer expected: the score keeps its shape
                del out["answer"]
        elif kind is Cost:
            out["complete"] = x.complete
        return out
    if isinstance(x, Mapping):
        return {_json_key(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    return repr(x)


def _jsonable_dict(x: dict) -> dict:
    out = {}
    for k, v in x.items():
        kind = type(v)
        if kind not in _PLAIN:
            convert = _CONVERTERS.get(kind)
            v = convert(v) if convert is not None else _jsonable(v)
        out[k if type(k) is str else _json_key(k)] = v
    return out


def _jsonable_list(x: Union[list, tuple]) -> list:
    return [v if type(v) in _PLAIN else _jsonable(v) for v in x]


def _jsonable_float(x: float) -> Optional[float]:
    return x if x - x == 0.0 else None  # NaN and the infinities: null


def _jsonable_any_of(x: AnyOf) -> dict:
    return {"any_of": _jsonable_list(x.values)}


#: exact type -> its conversion (the containers and shapes a report is made of)
_CONVERTERS: dict = {dict: _jsonable_dict, list: _jsonable_list, tuple: _jsonable_list,
                     float: _jsonable_float, AnyOf: _jsonable_any_of}


#: dataclass type -> its field names (``dataclasses.fields`` is slow to ask every time)
_DATACLASS_FIELDS: dict = {}


def _json_key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, tuple):
        return "|".join(str(p) for p in k)
    return str(k)
