"""Repair invalid UTF-8 in the string fields of an OTLP request, so one bad byte does not
cost the whole batch.

protobuf (upb) refuses a proto3 ``string`` holding invalid UTF-8, and a JSON parser refuses
invalid UTF-8 anywhere. The Collector does not validate strings (its pdata marshaller copies
bytes), so a batch it forwards can hold one span with a truncated multi-byte character;
answering 400 would make the Collector drop every trace of that batch. The receiver retries
such a body once, after :func:`repair_protobuf` / :func:`repair_json`: each invalid sequence
becomes U+FFFD, everything else is kept byte for byte, and the client is told in
``partial_success.error_message``. Only bodies that failed to decode take this (slow) path.

Example:
    >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ...     ExportTraceServiceRequest)
    >>> req = ExportTraceServiceRequest()
    >>> span = req.resource_spans.add().scope_spans.add().spans.add()
    >>> span.name = "cafe!"
    >>> bad = req.SerializeToString().replace(b"cafe!", b"caf\\xc3!")   # a cut character
    >>> fixed = repair_protobuf(bad, ExportTraceServiceRequest.DESCRIPTOR)
    >>> ExportTraceServiceRequest.FromString(fixed).resource_spans[0].scope_spans[0].spans[0].name
    'caf\\ufffd!'
    >>> repair_json(b'{"name": "caf\\xc3"}')
    b'{"name": "caf\\xef\\xbf\\xbd"}'
"""

from __future__ import annotations

from ..errors import DecodeError

__all__ = ["repair_protobuf", "repair_json", "REPAIRED"]

#: The partial-success message of a request whose strings were repaired.
REPAIRED = "invalid UTF-8 in string values was replaced with U+FFFD"

#: Nesting below this depth is copied as it is (AnyValue nests kvlists and arrays).
_MAX_DEPTH = 64


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(data) or shift > 63:
            raise DecodeError("truncated or invalid varint")
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def repair_protobuf(body: bytes, descriptor, depth: int = 0) -> bytes:
    """``body`` with invalid UTF-8 in every ``string`` field of ``descriptor`` (recursively)
    replaced by U+FFFD; DecodeError when the wire format itself is broken."""
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        start = i
        key, i = _varint(body, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(body, i)
            out += body[start:i]
        elif wire == 1 or wire == 5:
            i += 8 if wire == 1 else 4
            if i > n:
                raise DecodeError("truncated fixed-width field")
            out += body[start:i]
        elif wire == 2:
            length, j = _varint(body, i)
            if j + length > n:
                raise DecodeError("truncated length-delimited field")
            data = body[j:j + length]
            i = j + length
            field = descriptor.fields_by_number.get(number)
            if field is not None and field.type == field.TYPE_STRING:
                data = data.decode("utf-8", "replace").encode("utf-8")
            elif field is not None and field.type == field.TYPE_MESSAGE and depth < _MAX_DEPTH:
                data = repair_protobuf(data, field.message_type, depth + 1)
            out += _encode_varint(key) + _encode_varint(len(data)) + data
        else:
            raise DecodeError(f"unsupported wire type {wire}")
    return bytes(out)


def repair_json(body: bytes) -> bytes:
    """``body`` with each invalid UTF-8 sequence replaced by U+FFFD."""
    return body.decode("utf-8", "replace").encode("utf-8")
