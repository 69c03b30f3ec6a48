"""Trace and span ids: the one rule every decoder checks them against.

OTLP ids are 16 bytes (trace) and 8 bytes (span), never all zeros; a span's parent id is
absent or 8 bytes; a log record's ids are both optional. Protobuf carries them as bytes
(:func:`span_id_problem`, :func:`log_id_problem`), OTLP JSON as hex text
(:func:`hex_id`, :func:`json_span_ids`). A record with a bad id is skipped and reported as
:data:`~ek_otel.ingest.bad_input.INVALID_ID` by every reader, and rejected (counted in
``partial_success``) by the receivers.

Example:
    >>> span_id_problem(b"\\x01" * 16, b"\\x02" * 8, b""), span_id_problem(ZERO_TRACE_ID, b"\\x02" * 8, b"")
    ('', 'all-zero trace id')
    >>> json_span_ids({"traceId": "0AF7651916CD43DD8448EB211C80319C", "spanId": "b7ad6b7169203331"})
    ('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', '')
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Union

__all__ = [
    "TRACE_ID_BYTES",
    "SPAN_ID_BYTES",
    "ZERO_TRACE_ID",
    "ZERO_SPAN_ID",
    "InvalidId",
    "span_id_problem",
    "log_id_problem",
    "span_ids_of",
    "log_ids_of",
    "hex_id",
    "json_span_ids",
]

TRACE_ID_BYTES = 16
SPAN_ID_BYTES = 8
ZERO_TRACE_ID = bytes(TRACE_ID_BYTES)
ZERO_SPAN_ID = bytes(SPAN_ID_BYTES)


class InvalidId(ValueError):
    """A trace or span id that is not 16/8 bytes of hex."""


def span_id_problem(trace_id: bytes, span_id: bytes, parent_span_id: bytes) -> str:
    """Why a span's ids are invalid, or ``""`` when they are fine.

    Example:
        >>> span_id_problem(b"\\x01" * 16, b"\\x02" * 8, b"")
        ''
        >>> span_id_problem(b"\\x01" * 15, b"\\x02" * 8, b"")
        'trace id of 15 bytes'
    """
    if len(trace_id) != TRACE_ID_BYTES:
        return f"trace id of {len(trace_id)} bytes"
    if trace_id == ZERO_TRACE_ID:
        return "all-zero trace id"
    if len(span_id) != SPAN_ID_BYTES:
        return f"span id of {len(span_id)} bytes"
    if span_id == ZERO_SPAN_ID:
        return "all-zero span id"
    if parent_span_id and len(parent_span_id) != SPAN_ID_BYTES:
        return f"parent span id of {len(parent_span_id)} bytes"
    return ""


def log_id_problem(trace_id: bytes, span_id: bytes) -> str:
    """Why a log record's (optional) ids are invalid, or ``""`` when they are fine.

    Example:
        >>> log_id_problem(b"", b""), log_id_problem(b"\\x01" * 3, b"")
        ('', 'trace id of 3 bytes')
    """
    if trace_id and len(trace_id) != TRACE_ID_BYTES:
        return f"trace id of {len(trace_id)} bytes"
    if span_id and len(span_id) != SPAN_ID_BYTES:
        return f"span id of {len(span_id)} bytes"
    return ""


def span_ids_of(span: Any) -> Union[tuple, str]:
    """``(trace id, span id, parent span id)`` (bytes) of a protobuf ``Span``, or the
    :func:`span_id_problem` text when they are invalid (a ``str``).

    What the hot paths call: valid ids cost one call and one test.

    Example:
        >>> from opentelemetry.proto.trace.v1.trace_pb2 import Span
        >>> span_ids_of(Span(trace_id=b"\\x01" * 16, span_id=b"\\x02" * 8))[1]
        b'\\x02\\x02\\x02\\x02\\x02\\x02\\x02\\x02'
        >>> span_ids_of(Span(trace_id=b"\\x01" * 16, span_id=b"\\x02" * 8, parent_span_id=b"\\x03"))
        'parent span id of 1 bytes'
    """
    trace_id, span_id, parent_id = span.trace_id, span.span_id, span.parent_span_id
    if (len(trace_id) == TRACE_ID_BYTES and len(span_id) == SPAN_ID_BYTES
            and (not parent_id or len(parent_id) == SPAN_ID_BYTES)
            and trace_id != ZERO_TRACE_ID and span_id != ZERO_SPAN_ID):
        return trace_id, span_id, parent_id
    return span_id_problem(trace_id, span_id, parent_id)


def log_ids_of(log: Any) -> Union[tuple, str]:
    """``(trace id, span id)`` (bytes, each may be empty) of a protobuf ``LogRecord``, or
    the :func:`log_id_problem` text when they are invalid (a ``str``).

    Example:
        >>> from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
        >>> log_ids_of(LogRecord()), log_ids_of(LogRecord(span_id=b"\\x02"))
        ((b'', b''), 'span id of 1 bytes')
    """
    trace_id, span_id = log.trace_id, log.span_id
    problem = log_id_problem(trace_id, span_id)
    return problem if problem else (trace_id, span_id)


def hex_id(value: Any, size: int, what: str) -> str:
    """Normalize a JSON id to lowercase hex of ``size`` bytes (``""`` when absent).

    Raises :class:`InvalidId` for anything else (wrong length, not hex, all zeros). Base64
    of the right length is tolerated too, since some dumps were written with
    ``json_format.MessageToJson``.

    Example:
        >>> hex_id("B7AD6B7169203331", SPAN_ID_BYTES, "span id"), hex_id("", SPAN_ID_BYTES, "parent id")
        ('b7ad6b7169203331', '')
        >>> hex_id("t7ad6b7169203331", SPAN_ID_BYTES, "span id")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.ids.InvalidId: span id 't7ad6b7169203331' is not 8 bytes of hex
    """
    if value is None or value == "":
        return ""
    if type(value) is str:
        if len(value) == 2 * size:
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raw = b""
            if len(raw) == size:
                if not any(raw):
                    raise InvalidId(f"{what} is all zeros")
                return value if value.islower() or value.isdigit() else raw.hex()
        else:  # tolerate base64 ids written by json_format.MessageToJson
            try:
                raw = base64.b64decode(value, validate=True) if len(value) < 2 * size else b""
            except (binascii.Error, ValueError):
                raw = b""
            if len(raw) == size:
                if not any(raw):
                    raise InvalidId(f"{what} is all zeros")
                return raw.hex()
    raise InvalidId(f"{what} {str(value)[:40]!r} is not {size} bytes of hex")


def json_span_ids(span: dict) -> tuple:
    """``(trace id, span id, parent span id)`` of an OTLP-JSON span, as lowercase hex;
    :class:`InvalidId` when one is bad or the trace or span id is missing.

    Example:
        >>> json_span_ids({"trace_id": "0af7651916cd43dd8448eb211c80319c"})
        Traceback (most recent call last):
        ...
        ek_otel.ingest.ids.InvalidId: missing span id
    """
    get = span.get
    trace_id = hex_id(get("traceId") or get("trace_id"), TRACE_ID_BYTES, "trace id")
    span_id = hex_id(get("spanId") or get("span_id"), SPAN_ID_BYTES, "span id")
    if not trace_id or not span_id:
        raise InvalidId("missing trace id" if not trace_id else "missing span id")
    parent_id = hex_id(get("parentSpanId") or get("parent_span_id"), SPAN_ID_BYTES, "parent span id")
    return trace_id, span_id, parent_id
