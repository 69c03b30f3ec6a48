"""OTLP ``AnyValue`` <-> Python values, from protobuf messages and from OTLP JSON.

string, bool, int, double and bytes become ``str``, ``bool``, ``int``, ``float`` and
``bytes``; an array becomes a ``list`` and a kvlist a ``dict``; an unset value is ``None``.

Nesting is capped at :data:`MAX_DEPTH` containers: a deeper array or kvlist is replaced by
:data:`DEPTH_MARKER` and a :data:`~ek_otel.ingest.bad_input.DEEP_NESTING` issue is noted;
the record that holds it is kept (its other attributes are fine).

A JSON value of an unexpected type (``{"intValue": "abc"}``, a bare string, an int64 out of
range, ...) raises :class:`BadValue`; callers drop that one attribute and report it.

Issues are appended to a caller-owned list as ``(reason, detail)`` pairs, so the fast path
costs nothing when the input is clean.

Example:
    >>> issues = []
    >>> value_from_json({"arrayValue": {"values": [{"intValue": "7"}, {"stringValue": "x"}]}},
    ...                 issues)
    [7, 'x']
    >>> attributes_from_json([{"key": "n", "value": {"doubleValue": 1.5}},
    ...                       {"key": "bad", "value": {"intValue": "abc"}}], issues)
    {'n': 1.5}
    >>> issues
    [('attribute of unexpected type', "'bad': intValue 'abc'")]
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

from opentelemetry.proto.common.v1 import common_pb2

from ..limits import DEPTH_MARKER as _DEPTH_MARKER, MAX_VALUE_DEPTH
from .bad_input import BAD_ATTRIBUTE, DEEP_NESTING

__all__ = [
    "MAX_DEPTH",
    "DEPTH_MARKER",
    "BadValue",
    "json_int64",
    "value_from_pb",
    "attributes_from_pb",
    "value_from_json",
    "attributes_from_json",
    "value_to_pb",
    "attributes_to_pb",
]

#: The deepest nesting of arrays/kvlists that is decoded; deeper containers become the marker
#: (:data:`ek_otel.limits.MAX_VALUE_DEPTH`).
MAX_DEPTH = MAX_VALUE_DEPTH

#: What replaces a value nested deeper than :data:`MAX_DEPTH` (:data:`ek_otel.limits.DEPTH_MARKER`).
DEPTH_MARKER = _DEPTH_MARKER

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class BadValue(ValueError):
    """A JSON AnyValue of an unexpected type (the attribute holding it is dropped)."""


# ---------------------------------------------------------------------------
# protobuf -> Python
# ---------------------------------------------------------------------------


def value_from_pb(value: common_pb2.AnyValue, issues: list, depth: int = 0) -> Any:
    """Convert a protobuf ``AnyValue`` to a Python value.

    Example:
        >>> v = common_pb2.AnyValue(kvlist_value=common_pb2.KeyValueList(values=[
        ...     common_pb2.KeyValue(key="k", value=common_pb2.AnyValue(bool_value=True))]))
        >>> value_from_pb(v, [])
        {'k': True}
    """
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind is None:
        return None
    if kind == "array_value":
        if depth >= MAX_DEPTH:
            issues.append((DEEP_NESTING, f"more than {MAX_DEPTH} levels"))
            return DEPTH_MARKER
        return [value_from_pb(item, issues, depth + 1) for item in value.array_value.values]
    if kind == "kvlist_value":
        if depth >= MAX_DEPTH:
            issues.append((DEEP_NESTING, f"more than {MAX_DEPTH} levels"))
            return DEPTH_MARKER
        return {kv.key: value_from_pb(kv.value, issues, depth + 1) for kv in value.kvlist_value.values}
    return getattr(value, kind)


def attributes_from_pb(key_values: Any, issues: list) -> dict:
    """Convert repeated protobuf ``KeyValue`` to a dict (a repeated key: the last one wins).

    Example:
        >>> kvs = [common_pb2.KeyValue(key="a", value=common_pb2.AnyValue(int_value=1))]
        >>> attributes_from_pb(kvs, [])
        {'a': 1}
    """
    out = {}
    for kv in key_values:
        value = kv.value
        string = value.string_value  # a oneof: a non-empty string_value is the value
        if string:
            out[kv.key] = string
            continue
        kind = value.WhichOneof("value")
        if kind == "string_value":
            out[kv.key] = string
        elif kind == "array_value" or kind == "kvlist_value":
            out[kv.key] = value_from_pb(value, issues)
        elif kind is None:
            out[kv.key] = None
        else:
            out[kv.key] = getattr(value, kind)
    return out


# ---------------------------------------------------------------------------
# OTLP JSON -> Python
# ---------------------------------------------------------------------------

_STRING, _BOOL, _INT, _DOUBLE, _BYTES, _ARRAY, _KVLIST = range(7)

_JSON_KINDS = {
    "stringValue": _STRING,
    "string_value": _STRING,
    "boolValue": _BOOL,
    "bool_value": _BOOL,
    "intValue": _INT,
    "int_value": _INT,
    "doubleValue": _DOUBLE,
    "double_value": _DOUBLE,
    "bytesValue": _BYTES,
    "bytes_value": _BYTES,
    "arrayValue": _ARRAY,
    "array_value": _ARRAY,
    "kvlistValue": _KVLIST,
    "kvlist_value": _KVLIST,
}

_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def json_int64(raw: Any) -> int:
    """An int64 given as a JSON number or string (proto3 JSON); raises :class:`BadValue`.

    Example:
        >>> json_int64("1700000000000000000"), json_int64(3), json_int64(2.0)
        (1700000000000000000, 3, 2)
    """
    if isinstance(raw, bool):
        raise BadValue(f"bool {raw!r} is not an integer")
    if isinstance(raw, int):
        number = raw
    elif isinstance(raw, str):
        try:
            number = int(raw)
        except ValueError:
            raise BadValue(f"{raw[:40]!r} is not an integer") from None
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    else:
        raise BadValue(f"{type(raw).__name__} {str(raw)[:40]!r} is not an integer")
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise BadValue(f"{raw!r} is out of the int64 range")
    return number


def _json_double(raw: Any) -> float:
    if isinstance(raw, bool):
        raise BadValue(f"bool {raw!r} is not a double")
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        if raw in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[raw]
        try:
            return float(raw)
        except ValueError:
            raise BadValue(f"{raw[:40]!r} is not a double") from None
    raise BadValue(f"{type(raw).__name__} is not a double")


def _json_bytes(raw: Any) -> bytes:
    if not isinstance(raw, str):
        raise BadValue(f"{type(raw).__name__} is not base64")
    text = raw.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise BadValue(f"{raw[:40]!r} is not base64") from None


def _json_values(container: Any, what: str) -> list:
    if not isinstance(container, dict):
        raise BadValue(f"{what} is a {type(container).__name__}, not an object")
    values = container.get("values")
    if values is None:
        return []
    if not isinstance(values, list):
        raise BadValue(f"{what}.values is a {type(values).__name__}, not a list")
    return values


def value_from_json(value: Any, issues: list, depth: int = 0) -> Any:
    """Convert an OTLP-JSON ``AnyValue`` object to a Python value; raises :class:`BadValue`.

    Example:
        >>> value_from_json({"bytesValue": "aGk="}, []), value_from_json({}, [])
        (b'hi', None)
        >>> value_from_json({"boolValue": "yes"}, [])
        Traceback (most recent call last):
        ...
        ek_otel.ingest.anyvalue.BadValue: boolValue 'yes'
    """
    if not isinstance(value, dict):
        raise BadValue(f"value is a {type(value).__name__}, not an AnyValue object")
    for key, raw in value.items():
        kind = _JSON_KINDS.get(key)
        if kind is None:
            continue  # unknown field: ignored
        if kind == _STRING:
            if isinstance(raw, str):
                return raw
            raise BadValue(f"{key} {raw!r}"[:80])
        if kind == _BOOL:
            if isinstance(raw, bool):
                return raw
            raise BadValue(f"{key} {raw!r}"[:80])
        if kind == _INT:
            try:
                return json_int64(raw)
            except BadValue:
                raise BadValue(f"{key} {raw!r}"[:80]) from None
        if kind == _DOUBLE:
            return _json_double(raw)
        if kind == _BYTES:
            return _json_bytes(raw)
        if depth >= MAX_DEPTH:
            issues.append((DEEP_NESTING, f"more than {MAX_DEPTH} levels"))
            return DEPTH_MARKER
        if kind == _ARRAY:
            return [value_from_json(item, issues, depth + 1) for item in _json_values(raw, key)]
        out = {}
        for kv in _json_values(raw, key):
            if not isinstance(kv, dict) or not isinstance(kv.get("key", ""), str):
                raise BadValue(f"{key} entry {str(kv)[:40]!r} is not a key/value object")
            out[kv.get("key", "")] = value_from_json(kv.get("value", {}), issues, depth + 1)
        return out
    return None


def attributes_from_json(key_values: Any, issues: list) -> dict:
    """Convert an OTLP-JSON attribute list to a dict; bad attributes are dropped and noted.

    Example:
        >>> issues = []
        >>> attributes_from_json([{"key": "a", "value": {"stringValue": "x"}}, "junk"], issues)
        {'a': 'x'}
        >>> [reason for reason, _ in issues]
        ['attribute of unexpected type']
    """
    if key_values is None:
        return {}
    if not isinstance(key_values, list):
        issues.append((BAD_ATTRIBUTE, f"attributes is a {type(key_values).__name__}, not a list"))
        return {}
    out = {}
    for kv in key_values:
        # Fast path: {"key": str, "value": {"stringValue": str}}, the bulk of GenAI attributes.
        if type(kv) is dict:
            key = kv.get("key")
            raw = kv.get("value")
            if type(key) is str and type(raw) is dict and len(raw) == 1:
                string = raw.get("stringValue")
                if type(string) is str:
                    out[key] = string
                    continue
                number = raw.get("intValue")
                if type(number) is str and len(number) < 19 and number.isascii() and number.isdigit():
                    out[key] = int(number)
                    continue
        if not isinstance(kv, dict):
            issues.append((BAD_ATTRIBUTE, f"{str(kv)[:40]!r} is not a key/value object"))
            continue
        key = kv.get("key", "")
        if not isinstance(key, str):
            issues.append((BAD_ATTRIBUTE, f"key {str(key)[:40]!r} is not a string"))
            continue
        raw = kv.get("value")
        if raw is None:
            out[key] = None
            continue
        try:
            out[key] = value_from_json(raw, issues)
        except BadValue as exc:
            issues.append((BAD_ATTRIBUTE, f"{key[:60]!r}: {exc}"))
        except RecursionError:
            issues.append((DEEP_NESTING, f"{key[:60]!r}: recursion limit"))
    return out


# ---------------------------------------------------------------------------
# Python -> protobuf (used to turn OTLP JSON into protobuf payloads)
# ---------------------------------------------------------------------------


def value_to_pb(value: Any, out: common_pb2.AnyValue) -> None:
    """Fill a protobuf ``AnyValue`` from a Python value (``None`` leaves it unset).

    Example:
        >>> v = common_pb2.AnyValue()
        >>> value_to_pb({"xs": [1, "a"]}, v)
        >>> value_from_pb(v, [])
        {'xs': [1, 'a']}
    """
    if isinstance(value, str):
        out.string_value = value
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        out.int_value = value
    elif isinstance(value, float):
        out.double_value = value
    elif isinstance(value, (bytes, bytearray)):
        out.bytes_value = bytes(value)
    elif isinstance(value, (list, tuple)):
        array = out.array_value
        array.SetInParent()
        for item in value:
            value_to_pb(item, array.values.add())
    elif isinstance(value, dict):
        kvlist = out.kvlist_value
        kvlist.SetInParent()
        for key, item in value.items():
            kv = kvlist.values.add()
            kv.key = str(key)
            value_to_pb(item, kv.value)
    elif value is not None:
        out.string_value = str(value)


def attributes_to_pb(attributes: dict, out: Any) -> None:
    """Append a dict of Python values to a repeated protobuf ``KeyValue`` field.

    Example:
        >>> kvl = common_pb2.KeyValueList()
        >>> attributes_to_pb({"a": 1.5}, kvl.values)
        >>> attributes_from_pb(kvl.values, [])
        {'a': 1.5}
    """
    for key, value in attributes.items():
        kv = out.add()
        kv.key = key
        if isinstance(value, str):
            kv.value.string_value = value
        else:
            value_to_pb(value, kv.value)
