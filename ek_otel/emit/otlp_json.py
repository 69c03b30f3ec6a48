"""SDK spans and log records → OTLP JSON requests (the form of an OTLP JSON Lines file).

The protobuf requests come from the SDK's own encoders (``opentelemetry-exporter-otlp-proto-common``),
so the file holds exactly what the OTLP exporters would send. They are then written in the
OTLP JSON encoding: lowerCamelCase keys, int64 as strings, enums as integers, and trace/span
ids as **hex** (protobuf's generic JSON mapping would write them as base64, which OTLP forbids).

The mapping is protobuf's own (``json_format.MessageToDict`` with integer enums), done by a
walker specialised once per message type (:func:`message_dict`): the generic printer is pure
Python and took about half of the time of writing a score (``tests/emit/test_otlp_json.py``
compares the two on every field type). Types it does not specialise (well-known types, maps,
extensions: none in OTLP) go to ``MessageToDict`` itself.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.encode import encode_spans, encode_log_records
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"),
    ...                     scored_at_ns=1_700_000_000_000_000_000)
    >>> req = trace_request_json(encode_spans([env]))
    >>> span = req["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    >>> span["traceId"] == "ab" * 16, span["parentSpanId"], span["startTimeUnixNano"]
    (True, 'cdcdcdcdcdcdcdcd', '1700000000000000000')
    >>> rec = logs_request_json(encode_log_records([env]))["resourceLogs"][0]["scopeLogs"][0]
    >>> rec["logRecords"][0]["eventName"], rec["logRecords"][0]["spanId"]
    ('gen_ai.evaluation.result', 'cdcdcdcdcdcdcdcd')
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from typing import Any, Callable

from google.protobuf import descriptor
from google.protobuf.internal import type_checkers
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_trace_request

__all__ = ["trace_request_json", "logs_request_json", "request_lines", "message_dict"]

#: The id fields written as hex (OTLP JSON), by message type; every other bytes field is base64.
_HEX_ID_FIELDS = {
    "opentelemetry.proto.trace.v1.Span": ("trace_id", "span_id", "parent_span_id"),
    "opentelemetry.proto.trace.v1.Span.Link": ("trace_id", "span_id"),
    "opentelemetry.proto.logs.v1.LogRecord": ("trace_id", "span_id"),
}

_FD = descriptor.FieldDescriptor
_INT64 = frozenset({_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64})

#: FieldDescriptor → (JSON name, value converter or None for a nested message, repeated).
_FIELDS: dict = {}
#: Message types ``MessageToDict`` handles itself (well-known types, maps, extensions).
_GENERIC: dict = {}


def _float_value(value: float) -> Any:
    if math.isinf(value):
        return "-Infinity" if value < 0.0 else "Infinity"
    return "NaN" if math.isnan(value) else value


def _converter(field) -> Callable[[Any], Any]:
    """What ``json_format`` writes for one value of ``field`` (integer enums)."""
    cpp = field.cpp_type
    if cpp == _FD.CPPTYPE_STRING:
        if field.type != _FD.TYPE_BYTES:
            return str
        if field.name in _HEX_ID_FIELDS.get(field.containing_type.full_name, ()):
            return bytes.hex
        return lambda value: base64.b64encode(value).decode("utf-8")
    if cpp == _FD.CPPTYPE_BOOL:
        return bool
    if cpp in _INT64:
        return str
    if cpp == _FD.CPPTYPE_DOUBLE:
        return _float_value
    if cpp == _FD.CPPTYPE_FLOAT:
        return lambda value: _float_value(value) if not math.isfinite(value) \
            else type_checkers.ToShortestFloat(value)
    return lambda value: value  # enums (as integers), 32-bit integers


def _is_generic(message_descriptor) -> bool:
    """A type ``MessageToDict`` writes otherwise than field by field."""
    generic = _GENERIC.get(message_descriptor)
    if generic is None:
        generic = _GENERIC[message_descriptor] = (
            message_descriptor.full_name.startswith("google.protobuf.")
            or message_descriptor.GetOptions().map_entry)
    return generic


def _is_repeated(field) -> bool:
    """``FieldDescriptor.is_repeated`` (protobuf 6+), or its ``label`` (older, gone in 7)."""
    repeated = getattr(field, "is_repeated", None)
    return field.label == _FD.LABEL_REPEATED if repeated is None else repeated


def _field(field) -> tuple:
    """(JSON name, converter (None: a nested message), repeated, only ``MessageToDict`` can)."""
    entry = _FIELDS.get(field)
    if entry is None:
        nested = field.cpp_type == _FD.CPPTYPE_MESSAGE
        generic = field.is_extension or (nested and field.message_type.GetOptions().map_entry)
        entry = _FIELDS[field] = (field.json_name, None if nested else _converter(field),
                                  _is_repeated(field), generic)
    return entry


def message_dict(message, *, special: bool = True) -> Any:
    """``message`` as protobuf's JSON mapping makes it (``MessageToDict`` with integer enums),
    except the trace and span ids of spans, links and log records, which are hex as OTLP
    JSON wants them.

    Example:
        >>> from opentelemetry.proto.common.v1.common_pb2 import KeyValue
        >>> message_dict(KeyValue(key="n", value={"int_value": 3}))
        {'key': 'n', 'value': {'intValue': '3'}}
        >>> message_dict(KeyValue(key="b", value={"bytes_value": b"\\x00"}))
        {'key': 'b', 'value': {'bytesValue': 'AA=='}}
        >>> from opentelemetry.proto.trace.v1.trace_pb2 import Span
        >>> message_dict(Span(trace_id=b"\\x01" * 16, span_id=b"\\x02" * 8, kind=2))["spanId"]
        '0202020202020202'
    """
    fast = _SPECIAL.get(message.DESCRIPTOR.full_name) if special else None
    if fast is not None:
        return fast(message)
    if _is_generic(message.DESCRIPTOR):
        return MessageToDict(message, use_integers_for_enums=True)
    js = {}
    for field, value in message.ListFields():
        name, convert, repeated, generic = _field(field)
        if generic:
            return _reference_dict(message)
        if convert is None:
            nested = _SPECIAL.get(field.message_type.full_name, message_dict)
            js[name] = [nested(v) for v in value] if repeated else nested(value)
        else:
            js[name] = [convert(v) for v in value] if repeated else convert(value)
    return js


def _key_value(kv) -> dict:
    """A ``KeyValue`` (most of a request's messages), as :func:`message_dict` writes it."""
    js = {}
    key = kv.key
    if key:
        js["key"] = key
    if kv.HasField("value"):
        js["value"] = _any_value(kv.value)
    return js


#: AnyValue's scalar members: field name → (JSON name, converter).
_ANY_SCALARS = {
    "string_value": ("stringValue", str),
    "bool_value": ("boolValue", bool),
    "int_value": ("intValue", str),
    "double_value": ("doubleValue", _float_value),
    "bytes_value": ("bytesValue", lambda value: base64.b64encode(value).decode("utf-8")),
}


def _any_value(value) -> dict:
    """An ``AnyValue``: its one member set (a oneof: present even when zero), or nothing."""
    kind = value.WhichOneof("value")
    if kind is None:
        return {}
    scalar = _ANY_SCALARS.get(kind)
    if scalar is not None:
        return {scalar[0]: scalar[1](getattr(value, kind))}
    if kind == "array_value":
        values = value.array_value.values
        return {"arrayValue": {"values": [_any_value(v) for v in values]} if values else {}}
    if kind == "kvlist_value":
        values = value.kvlist_value.values
        return {"kvlistValue": {"values": [_key_value(v) for v in values]} if values else {}}
    return message_dict(value, special=False)  # a member a later OTLP adds


_SPECIAL: dict = {
    "opentelemetry.proto.common.v1.KeyValue": _key_value,
    "opentelemetry.proto.common.v1.AnyValue": _any_value,
}


def _reference_dict(message) -> dict:
    """``MessageToDict`` itself, with the OTLP ids turned to hex wherever they are."""
    data = MessageToDict(message, use_integers_for_enums=True)

    def visit(node: Any, descriptor_) -> None:
        if not isinstance(node, dict) or descriptor_ is None:
            return
        for field in descriptor_.fields:
            value = node.get(field.json_name)
            if value is None:
                continue
            if field.name in _HEX_ID_FIELDS.get(descriptor_.full_name, ()):
                node[field.json_name] = base64.b64decode(value).hex()
            elif field.message_type is not None and not _is_generic(field.message_type):
                for item in (value if _is_repeated(field) else (value,)):
                    visit(item, field.message_type)

    visit(data, message.DESCRIPTOR)
    return data


def trace_request_json(spans: Sequence) -> dict:
    """An OTLP JSON ``ExportTraceServiceRequest`` (as a dict) holding SDK ``spans``.

    Example:
        >>> trace_request_json([])
        {}
    """
    return message_dict(encode_trace_request(spans))


def logs_request_json(records: Sequence) -> dict:
    """An OTLP JSON ``ExportLogsServiceRequest`` (as a dict) holding SDK log ``records``.

    Example:
        >>> logs_request_json([])
        {}
    """
    return message_dict(encode_logs(records))


def request_lines(spans: Sequence, records: Sequence) -> list:
    """The JSON Lines (without newlines) of one trace request and one logs request.

    Empty requests are left out.

    Example:
        >>> request_lines([], [])
        []
    """
    lines = []
    if spans:
        lines.append(json.dumps(trace_request_json(spans), separators=(",", ":")))
    if records:
        lines.append(json.dumps(logs_request_json(records), separators=(",", ":")))
    return lines
