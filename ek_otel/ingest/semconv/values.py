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
from collections.abc import Mapping
from typing import Any, Optional

try:  # orjson is a dependency; json stays the reference (see :func:`loads`)
    from orjson import JSONDecodeError as _OrjsonError, loads as _orjson_loads
except ImportError:  # pragma: no cover
    _orjson_loads = None

__all__ = ["attributes_of", "text_or_empty", "as_int", "as_float", "loads", "json_value", "first_value", "first_str"]



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


#: Digits to "0" and every other byte to " ": a run of 19 zeros then marks a run of 19
#: digits, an integer orjson might read as a float (beyond 64 bits). Five times faster
#: than a regular expression.
_DIGIT_RUNS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_RUN = b"0" * 19


def loads(text: str) -> Any:
    """``json.loads(text)``, computed by orjson whenever orjson gives the same value.

    orjson is several times faster on the small JSON strings attributes hold, and agrees
    with :mod:`json` on every document both accept, except integers beyond 64 bits (orjson
    reads them as floats): text with a run of 19 digits, and anything orjson rejects
    (``NaN``, lone surrogates, very deep nesting), goes to ``json.loads``, whose value or
    ``ValueError`` is the answer.

    Example:
        >>> loads('{"a": [1, 2.5, "x"]}'), loads("123456789012345678901234"), loads("NaN")
        ({'a': [1, 2.5, 'x']}, 123456789012345678901234, nan)
        >>> loads("{bad")
        Traceback (most recent call last):
        ...
        json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: ...
    """
    if _orjson_loads is not None and type(text) is str:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # lone surrogates, which orjson refuses
            return json.loads(text)
        if _LONG_RUN not in data.translate(_DIGIT_RUNS):
            try:
                return _orjson_loads(data)
            except _OrjsonError:
                pass
    return json.loads(text)


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
