"""Reading attribute values whatever type an instrumentor gave them: ints and floats from
numbers or strings, JSON from strings, the first of several keys present.

These never raise on values of unexpected types: a value that cannot be read counts as
absent (None).

Example:
    >>> as_int("12"), json_value('{"a": 1}'), first_value({"b": 2}, ("a", "b"))
    (12, {'a': 1}, 2)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Optional

from ...core.text import LONE_SURROGATE
from ...limits import DEPTH_MARKER, MAX_ATTRIBUTE_JSON_DEPTH

try:  # orjson is a dependency; json stays the reference (see :func:`loads`)
    from orjson import JSONDecodeError as _OrjsonError, loads as _orjson_loads
except ImportError:  # pragma: no cover
    _orjson_loads = None

__all__ = ["attributes_of", "text_or_empty", "as_int", "as_float", "loads", "take_value_notes", "json_value", "first_value", "first_str"]



def attributes_of(span: Any) -> Optional[Mapping]:
    """The attributes of a span (or ``span`` itself, given a mapping); None when they are
    not a mapping.

    Example:
        >>> attributes_of({"a": 1}), attributes_of(None)
        ({'a': 1}, None)
    """
    attributes = getattr(span, "attributes", span)
    return attributes if type(attributes) is dict or isinstance(attributes, Mapping) else None


def text_or_empty(value: Any) -> str:
    """``value`` when it is a string, else ``""``."""
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> Optional[int]:
    """An int from an int, a float with no fraction, or a numeric string; else None.

    Example:
        >>> as_int("12"), as_int(3.0), as_int(True), as_int("x")
        (12, 3, None, None)
    """
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def as_float(value: Any) -> Optional[float]:
    """A float from a number or a numeric string; else None.

    Example:
        >>> as_float("0.2"), as_float(1), as_float(None)
        (0.2, 1.0, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


#: Digits to "0", "[" and "{" to "[", every other byte to " ": a run of 19 zeros then
#: marks a run of 19 digits, an integer orjson might read as a float (beyond 64 bits), and
#: the count of "[" is that of the brackets that open arrays and objects. Five times faster
#: than a regular expression, and one pass for both questions.
_DIGIT_RUNS = bytes(48 if 48 <= i <= 57 else 91 if i in (91, 123) else 32 for i in range(256))
_LONG_RUN = b"0" * 19

#: Bad-input reasons of :func:`loads` (the values of ``ingest.bad_input``'s constants; this
#: module is imported below it).
_DEEP_NESTING = "nesting too deep"
_INVALID_UTF8 = "invalid UTF-8"
_SURROGATES = LONE_SURROGATE

class _Notes(threading.local):
    """Each thread's repairs (``notes``: None before the first), set when a thread first
    looks: a missing attribute of a plain ``threading.local`` costs an AttributeError, a few
    microseconds, at each of the two looks of every episode build."""

    def __init__(self) -> None:
        self.notes: Optional[dict] = None


_local = _Notes()


def _note(reason: str, detail: str) -> None:
    notes = _local.notes
    if notes is None:
        notes = _local.notes = {}
    notes[(reason, detail)] = None


def take_value_notes() -> list:
    """The ``(reason, detail)`` of each distinct repair :func:`loads` made in this thread
    since the last call (an episode build takes them and reports them), and forget them.

    Example:
        >>> _ = take_value_notes(); _ = loads('"\\\\ud800"')
        >>> take_value_notes()
        [('invalid UTF-8', 'a lone surrogate escape in JSON inside an attribute, replaced with U+FFFD')]
        >>> take_value_notes()
        []
    """
    notes = _local.notes
    if not notes:
        return []
    _local.notes = {}
    return list(notes)


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= limit:
            return True
        if type(item) is dict:
            stack.extend((v, depth + 1) for v in item.values() if type(v) is dict or type(v) is list)
        else:
            stack.extend((v, depth + 1) for v in item if type(v) is dict or type(v) is list)
    return False


def _cut(value: Any, depth: int = 0) -> Any:
    """``value`` with every container below ``MAX_ATTRIBUTE_JSON_DEPTH`` levels replaced by
    the marker (recursion bounded by that depth)."""
    if type(value) is dict:
        if depth >= MAX_ATTRIBUTE_JSON_DEPTH:
            return DEPTH_MARKER
        return {k: _cut(v, depth + 1) for k, v in value.items()}
    if type(value) is list:
        if depth >= MAX_ATTRIBUTE_JSON_DEPTH:
            return DEPTH_MARKER
        return [_cut(v, depth + 1) for v in value]
    return value


def _capped(value: Any, data: Any) -> Any:
    """``value`` (parsed from ``data``) cut at ``MAX_ATTRIBUTE_JSON_DEPTH`` levels, and noted.
    Text with fewer brackets than the limit cannot be deeper: two C-speed counts."""
    if type(value) is not dict and type(value) is not list:
        return value
    if data.count("[" if type(data) is str else b"[") + data.count(
            "{" if type(data) is str else b"{") <= MAX_ATTRIBUTE_JSON_DEPTH:
        return value
    return _cut_deep(value)


def _cut_deep(value: Any) -> Any:
    """``value`` cut at ``MAX_ATTRIBUTE_JSON_DEPTH`` levels when it is deeper, and noted."""
    if not _deeper_than(value, MAX_ATTRIBUTE_JSON_DEPTH):
        return value
    _note(_DEEP_NESTING, f"JSON inside an attribute nested more than {MAX_ATTRIBUTE_JSON_DEPTH} "
                         "levels deep, cut there")
    return _cut(value)


def _without_surrogates(value: Any, depth: int = 0) -> Any:
    if type(value) is str:
        return _SURROGATES.sub("\ufffd", value)
    if type(value) is list:
        return [_without_surrogates(v, depth + 1) for v in value]
    if type(value) is dict:
        return {_without_surrogates(k): _without_surrogates(v, depth + 1) for k, v in value.items()}
    return value


def _has_surrogates(value: Any) -> bool:
    if type(value) is str:
        return _SURROGATES.search(value) is not None
    if type(value) is list:
        return any(_has_surrogates(v) for v in value)
    if type(value) is dict:
        return any(_has_surrogates(k) or _has_surrogates(v) for k, v in value.items())
    return False


def _stdlib_loads(text: str) -> Any:
    """``json.loads`` for what orjson refuses, made safe: a lone surrogate (escaped, or in
    ``text`` itself) becomes U+FFFD, nesting is cut at ``MAX_ATTRIBUTE_JSON_DEPTH`` (also
    past the interpreter's recursion limit); each repair is noted."""
    try:
        value = json.loads(text)
    except RecursionError:
        from ..otlp_json import cap_json_nesting  # lazily: the OTLP walkers import semconv

        value = json.loads(cap_json_nesting(text, MAX_ATTRIBUTE_JSON_DEPTH)[0].decode("utf-8", "surrogatepass"))
        _note(_DEEP_NESTING, f"JSON inside an attribute nested more than {MAX_ATTRIBUTE_JSON_DEPTH} "
                             "levels deep, cut there")
    else:
        value = _capped(value, text)
    if (type(text) is not str or "\\u" in text or _SURROGATES.search(text) is not None) \
            and _has_surrogates(value):
        _note(_INVALID_UTF8, "a lone surrogate escape in JSON inside an attribute, replaced with U+FFFD")
        value = _without_surrogates(value)
    return value


def loads(text: str) -> Any:
    """``json.loads(text)``, computed by orjson whenever orjson gives the same value, made
    safe for any attribute text.

    orjson is several times faster on the small JSON strings attributes hold, and agrees
    with :mod:`json` on every document both accept, except integers beyond 64 bits (orjson
    reads them as floats): text with a run of 19 digits, and anything orjson rejects
    (``NaN``, lone surrogates, very deep nesting), goes to ``json.loads``, whose value or
    ``ValueError`` is the answer.

    What no writer could write back is repaired, as the OTLP decoders repair AnyValues and
    bytes: arrays and objects nested deeper than
    :data:`~ek_otel.limits.MAX_ATTRIBUTE_JSON_DEPTH` become
    :data:`~ek_otel.limits.DEPTH_MARKER` (``nesting too deep``), and a lone surrogate
    (``"\\ud800"``) becomes U+FFFD (``invalid UTF-8``); each repair is noted for the
    episode's bad-input report (:func:`take_value_notes`).

    Example:
        >>> loads('{"a": [1, 2.5, "x"]}'), loads("123456789012345678901234"), loads("NaN")
        ({'a': [1, 2.5, 'x']}, 123456789012345678901234, nan)
        >>> loads('["\\\\udc00 x"]'), loads("[" * 40 + "]" * 40)[0][0][0] is not None
        (['\ufffd x'], True)
        >>> deep = loads("[" * 2000 + "]" * 2000)
        >>> for _ in range(32): deep = deep[0]
        >>> deep
        '<ek-otel: value nested too deep>'
        >>> loads("{bad")
        Traceback (most recent call last):
        ...
        json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: ...
    """
    if _orjson_loads is not None and type(text) is str:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # lone surrogates, which orjson refuses
            return _stdlib_loads(text)
        scan = data.translate(_DIGIT_RUNS)
        if _LONG_RUN not in scan:
            try:
                value = _orjson_loads(data)
            except _OrjsonError:
                pass
            else:
                # text with fewer brackets than the limit cannot be deeper (as _capped)
                if (type(value) is dict or type(value) is list) and scan.count(
                        b"[") > MAX_ATTRIBUTE_JSON_DEPTH:
                    return _cut_deep(value)
                return value
    return _stdlib_loads(text)


def json_value(value: Any) -> Any:
    """Parse a JSON string; return other values (and non-JSON strings) unchanged.

    Example:
        >>> json_value('{"a": 1}'), json_value("plain"), json_value([1])
        ({'a': 1}, 'plain', [1])
    """
    if type(value) is not str:
        if not isinstance(value, (bytes, bytearray)):
            if not isinstance(value, str):
                return value
        else:
            try:
                value = value.decode()
            except UnicodeDecodeError:
                return value
    stripped = value.strip()
    if stripped[:1] in ("{", "[", '"'):
        try:
            return loads(stripped)
        except ValueError:
            return value
    return value


def first_value(attributes: Mapping, keys: tuple) -> Any:
    """The value of the first key present (and not empty) in ``attributes``.

    A key ``metadata.K`` also finds ``K`` inside a JSON ``metadata`` attribute
    (OpenInference's form).

    Example:
        >>> first_value({"b": 2, "c": 3}, ("a", "b", "c"))
        2
        >>> first_value({"metadata": '{"task_id": "t9"}'}, ("metadata.task_id",))
        't9'
    """
    get = attributes.get
    for key in keys:
        value = get(key)
        if value is None:
            if "metadata" in attributes and key.startswith("metadata."):
                metadata = json_value(get("metadata"))
                if isinstance(metadata, Mapping):
                    value = metadata.get(key[len("metadata."):])
            if value is None:
                continue
        if type(value) is str:
            if value:
                return value
        elif value != "":
            return value
    return None


def first_str(attributes: Mapping, keys: tuple) -> Optional[str]:
    """:func:`first_value` as a string (None for a missing, container or bytes value)."""
    value = first_value(attributes, keys)
    if type(value) is str:
        return value
    if value is None or isinstance(value, (dict, list, bytes)):
        return None
    return str(value)
