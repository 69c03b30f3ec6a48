"""Decoded OTLP protobuf requests -> :class:`SpanRecord` / :class:`LogRecord`.

The resource and scope of each batch are decoded once and shared by its records. Spans
with an invalid id are reported and skipped; everything else in the request is kept.

Example:
    >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ...     ExportTraceServiceRequest)
    >>> req = ExportTraceServiceRequest()
    >>> span = req.resource_spans.add().scope_spans.add().spans.add()
    >>> span.trace_id, span.span_id, span.name = b"\\x01" * 16, b"\\x02" * 8, "chat"
    >>> [(s.trace_id[:4], s.span_id[:4], s.name) for s in spans_from_request(req)]
    [('0101', '0202', 'chat')]
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from opentelemetry.proto.common.v1 import common_pb2

from .anyvalue import DEPTH_MARKER, MAX_DEPTH, attributes_from_pb, value_from_pb
from .bad_input import DEEP_NESTING, INVALID_ID, BadInputReport
from .otlp_records import span_record
from .records import LogRecord, Origin, SpanEvent, SpanLink, SpanRecord

__all__ = [
    "spans_from_request",
    "logs_from_request",
    "span_id_problem",
    "log_id_problem",
    "MAX_MESSAGE_LEVEL",
    "is_depth_error",
    "cap_deep_values",
]

_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


def span_id_problem(trace_id: bytes, span_id: bytes, parent_span_id: bytes) -> str:
    """Why a span's ids are invalid, or ``""`` when they are fine.

    Example:
        >>> span_id_problem(b"\\x01" * 16, b"\\x02" * 8, b"")
        ''
        >>> span_id_problem(b"\\x01" * 15, b"\\x02" * 8, b"")
        'trace id of 15 bytes'
    """
    if len(trace_id) != 16:
        return f"trace id of {len(trace_id)} bytes"
    if trace_id == _ZERO_TRACE:
        return "all-zero trace id"
    if len(span_id) != 8:
        return f"span id of {len(span_id)} bytes"
    if span_id == _ZERO_SPAN:
        return "all-zero span id"
    if parent_span_id and len(parent_span_id) != 8:
        return f"parent span id of {len(parent_span_id)} bytes"
    return ""


def log_id_problem(trace_id: bytes, span_id: bytes) -> str:
    """Why a log record's (optional) ids are invalid, or ``""`` when they are fine.

    Example:
        >>> log_id_problem(b"", b""), log_id_problem(b"\\x01" * 3, b"")
        ('', 'trace id of 3 bytes')
    """
    if trace_id and len(trace_id) != 16:
        return f"trace id of {len(trace_id)} bytes"
    if span_id and len(span_id) != 8:
        return f"span id of {len(span_id)} bytes"
    return ""


def _report_issues(report: Optional[BadInputReport], issues: list, what: str, origin) -> None:
    if report is not None:
        for reason, detail in issues:
            report.add(reason, f"{what}: {detail}", origin)
    issues.clear()


def spans_from_request(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None
) -> Iterator[SpanRecord]:
    """Yield the spans of a parsed ``ExportTraceServiceRequest`` as :class:`SpanRecord`.

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> req = ExportTraceServiceRequest()
        >>> _ = req.resource_spans.add().scope_spans.add().spans.add(trace_id=b"x", span_id=b"y")
        >>> r = BadInputReport()
        >>> list(spans_from_request(req, report=r)), r.counts
        ([], {'invalid id': 1})
    """
    issues: list = []
    for resource_spans in request.resource_spans:
        resource = attributes_from_pb(resource_spans.resource.attributes, issues)
        _report_issues(report, issues, "resource", origin)
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope
            scope_name, scope_version = scope.name, scope.version
            for span in scope_spans.spans:
                trace_id, span_id, parent_id = span.trace_id, span.span_id, span.parent_span_id
                problem = span_id_problem(trace_id, span_id, parent_id)
                if problem:
                    if report is not None:
                        report.add(INVALID_ID, f"span {span.name[:60]!r}: {problem}", origin)
                    continue
                status = span.status
                events = span.events
                links = span.links
                record = span_record(  # SpanRecord(...), fields in order
                    trace_id.hex(),
                    span_id.hex(),
                    parent_id.hex(),
                    span.name,
                    span.kind,
                    span.start_time_unix_nano,
                    span.end_time_unix_nano,
                    status.code,
                    status.message,
                    attributes_from_pb(span.attributes, issues),
                    tuple(
                        SpanEvent(e.name, e.time_unix_nano, attributes_from_pb(e.attributes, issues))
                        for e in events
                    )
                    if events
                    else (),
                    tuple(
                        SpanLink(
                            l.trace_id.hex(), l.span_id.hex(), attributes_from_pb(l.attributes, issues)
                        )
                        for l in links
                    )
                    if links
                    else (),
                    resource,
                    scope_name,
                    scope_version,
                    origin,
                )
                if issues:
                    _report_issues(report, issues, f"span {record.span_id}", origin)
                yield record


def logs_from_request(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None
) -> Iterator[LogRecord]:
    """Yield the records of a parsed ``ExportLogsServiceRequest`` as :class:`LogRecord`.

    ``event_name`` is the record's ``event_name`` field, else its ``event.name`` attribute;
    ``time_ns`` is its time, else its observed time.

    Example:
        >>> from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ...     ExportLogsServiceRequest)
        >>> req = ExportLogsServiceRequest()
        >>> rec = req.resource_logs.add().scope_logs.add().log_records.add()
        >>> rec.attributes.add(key="event.name").value.string_value = "gen_ai.choice"
        >>> [(r.event_name, r.trace_id) for r in logs_from_request(req)]
        [('gen_ai.choice', '')]
    """
    issues: list = []
    for resource_logs in request.resource_logs:
        resource = attributes_from_pb(resource_logs.resource.attributes, issues)
        _report_issues(report, issues, "resource", origin)
        for scope_logs in resource_logs.scope_logs:
            scope = scope_logs.scope
            scope_name, scope_version = scope.name, scope.version
            for log in scope_logs.log_records:
                trace_id, span_id = log.trace_id, log.span_id
                problem = log_id_problem(trace_id, span_id)
                if problem:
                    if report is not None:
                        report.add(INVALID_ID, f"log record: {problem}", origin)
                    continue
                attributes = attributes_from_pb(log.attributes, issues)
                event_name = log.event_name or attributes.get("event.name") or ""
                record = LogRecord(
                    trace_id=trace_id.hex(),
                    span_id=span_id.hex(),
                    time_ns=log.time_unix_nano or log.observed_time_unix_nano,
                    event_name=event_name if isinstance(event_name, str) else str(event_name),
                    body=value_from_pb(log.body, issues) if log.HasField("body") else None,
                    attributes=attributes,
                    resource=resource,
                    scope_name=scope_name,
                    scope_version=scope_version,
                    severity_number=log.severity_number,
                    origin=origin,
                )
                if issues:
                    _report_issues(report, issues, "log record", origin)
                yield record


# ---------------------------------------------------------------------------
# Values nested deeper than the protobuf parser accepts
# ---------------------------------------------------------------------------

#: The deepest message nesting (the request is level 0) a capped request keeps. upb refuses
#: a whole request past about 100 levels ("Exceeded upb_DecodeOptions_MaxDepth"), and its
#: limit cannot be raised from Python; a kvlist costs 3 levels, so 32 of them (the
#: :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` cap) under a span already reach 101.
MAX_MESSAGE_LEVEL = 96

_ANY_VALUE = common_pb2.AnyValue.DESCRIPTOR.full_name
_CONTAINER_FIELDS = (5, 6)  # AnyValue.array_value, AnyValue.kvlist_value
_MARKER_BYTES = DEPTH_MARKER.encode()
_MARKER_VALUE = bytes((0x0A, len(_MARKER_BYTES))) + _MARKER_BYTES  # AnyValue{string_value}
_MESSAGE_FIELDS: dict = {}
# Messages that say where a cut value was: full name -> (field read, label made of it).
_LABELS = {
    "opentelemetry.proto.trace.v1.Span": (2, lambda raw: f"span {raw.hex()}"),
    "opentelemetry.proto.trace.v1.Span.Event": (2, lambda raw: f"event {_text(raw)!r}"),
    "opentelemetry.proto.trace.v1.Span.Link": (0, lambda raw: "link"),
    "opentelemetry.proto.logs.v1.LogRecord": (0, lambda raw: "log record"),
    "opentelemetry.proto.resource.v1.Resource": (0, lambda raw: "resource"),
    "opentelemetry.proto.common.v1.InstrumentationScope": (0, lambda raw: "scope"),
}
_ATTRIBUTE_LABEL = (1, lambda raw: repr(_text(raw)))  # a KeyValue at depth 0: its key
_KEY_VALUE = common_pb2.KeyValue.DESCRIPTOR.full_name


def is_depth_error(exc: BaseException) -> bool:
    """Whether a protobuf parse failed only because the message nests too deep.

    Example:
        >>> is_depth_error(ValueError("Exceeded upb_DecodeOptions_MaxDepth")), is_depth_error(ValueError("x"))
        (True, False)
    """
    text = str(exc)
    return "MaxDepth" in text or "too many levels of nesting" in text


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")[:60]


def _read_varint(data: bytes, pos: int, end: int) -> tuple:
    result = shift = 0
    while True:
        if pos >= end:
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _encode_varint(number: int) -> bytes:
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _message_fields(descriptor: Any) -> dict:
    fields = _MESSAGE_FIELDS.get(descriptor.full_name)
    if fields is None:
        fields = {f.number: f.message_type for f in descriptor.fields if f.message_type is not None}
        _MESSAGE_FIELDS[descriptor.full_name] = fields
    return fields


def _too_small(size: int, level: int, depth: int) -> bool:
    """True when ``size`` bytes at (level, depth) cannot hold a container that must be cut.

    Each message level takes at least 2 bytes (tag, length) and each container 2 levels.
    """
    return size < 2 + 2 * min(2 * (MAX_DEPTH - depth), MAX_MESSAGE_LEVEL - 2 - level)


def _holds_container(data: bytes, start: int, end: int) -> bool:
    pos = start
    while pos < end:
        tag, pos = _read_varint(data, pos, end)
        wire = tag & 7
        if wire == 2 and tag >> 3 in _CONTAINER_FIELDS:
            return True
        pos = _skip_field(data, pos, end, wire)
    return False


def _skip_field(data: bytes, pos: int, end: int, wire: int) -> int:
    if wire == 0:
        return _read_varint(data, pos, end)[1]
    if wire == 1:
        pos += 8
    elif wire == 5:
        pos += 4
    elif wire == 2:
        length, pos = _read_varint(data, pos, end)
        pos += length
    else:
        raise ValueError(f"wire type {wire}")
    if pos > end:
        raise ValueError("truncated field")
    return pos


def _cap_message(data: bytes, start: int, end: int, descriptor: Any, level: int, depth: int,
                 notes: list) -> Optional[bytes]:
    """The content of ``data[start:end]`` with too-deep containers cut, or None if unchanged."""
    name = descriptor.full_name
    if name == _ANY_VALUE and (depth >= MAX_DEPTH or level + 3 > MAX_MESSAGE_LEVEL):
        if not _holds_container(data, start, end):
            return None
        notes.append(f"more than {MAX_DEPTH} levels" if depth >= MAX_DEPTH
                     else f"more than {depth} levels (the most protobuf parses here)")
        return _MARKER_VALUE
    fields = _message_fields(descriptor)
    label = _LABELS.get(name)
    if label is None and name == _KEY_VALUE and depth == 0:
        label = _ATTRIBUTE_LABEL
    first_note = len(notes)
    label_value = b""
    parts: Optional[list] = None
    last = pos = start
    while pos < end:
        tag, pos = _read_varint(data, pos, end)
        wire, number = tag & 7, tag >> 3
        if wire != 2:
            pos = _skip_field(data, pos, end, wire)
            continue
        tag_end = pos
        length, pos = _read_varint(data, pos, end)
        sub_start, pos = pos, pos + length
        if pos > end:
            raise ValueError("truncated field")
        if label is not None and number == label[0]:
            label_value = data[sub_start:pos]
        sub = fields.get(number)
        if sub is None:
            continue
        sub_depth = depth + 1 if name == _ANY_VALUE else depth
        if _too_small(length, level + 1, sub_depth):
            continue
        new = _cap_message(data, sub_start, pos, sub, level + 1, sub_depth, notes)
        if new is not None:
            if parts is None:
                parts = []
            parts += (data[last:tag_end], _encode_varint(len(new)), new)
            last = pos
    if label is not None and len(notes) > first_note:
        where = label[1](label_value)
        notes[first_note:] = [f"{where}: {note}" for note in notes[first_note:]]
    if parts is None:
        return None
    parts.append(data[last:end])
    return b"".join(parts)


def cap_deep_values(body: bytes, descriptor: Any, issues: list) -> bytes:
    """Rewrite a serialized request so that every ``AnyValue`` fits the nesting caps.

    A container nested :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` deep (as
    :func:`~ek_otel.ingest.anyvalue.value_from_pb` counts), or past
    :data:`MAX_MESSAGE_LEVEL`, is replaced by
    :data:`~ek_otel.ingest.anyvalue.DEPTH_MARKER`; each cut adds a
    ``(DEEP_NESTING, detail)`` pair to ``issues``. Everything else is copied byte for byte,
    so the result parses where the body did not ("Exceeded upb_DecodeOptions_MaxDepth")
    and only the too-deep value is lost. Work is linear in the body size and the walk never
    goes below the caps. Raises ValueError for a body that is not protobuf wire data.

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> def field(tag, payload): return bytes([tag]) + _encode_varint(len(payload)) + payload
        >>> value = field(0x0A, b"leaf")  # AnyValue{string_value}
        >>> for _ in range(60):  # AnyValue{array_value{values{...}}}: too deep for upb
        ...     value = field(0x2A, field(0x0A, value))
        >>> span = field(0x12, b"\\x02" * 8) + field(0x4A, field(0x0A, b"deep") + field(0x12, value))
        >>> body = field(0x0A, field(0x12, field(0x12, span)))
        >>> issues = []
        >>> capped = cap_deep_values(body, ExportTraceServiceRequest.DESCRIPTOR, issues)
        >>> ExportTraceServiceRequest.FromString(capped).resource_spans[0].scope_spans[0].spans[0].span_id
        b'\\x02\\x02\\x02\\x02\\x02\\x02\\x02\\x02'
        >>> issues
        [('nesting too deep', "span 0202020202020202: 'deep': more than 32 levels")]
    """
    notes: list = []
    new = _cap_message(body, 0, len(body), descriptor, 0, 0, notes)
    issues.extend((DEEP_NESTING, note) for note in notes)
    return body if new is None else new
