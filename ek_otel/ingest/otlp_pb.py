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

from typing import Any, Callable, Iterator, Optional

from opentelemetry.proto.common.v1 import common_pb2

from .anyvalue import DEPTH_MARKER, MAX_DEPTH, attributes_from_pb, value_from_pb
from .bad_input import DEEP_NESTING, INVALID_ID, INVALID_UTF8, BadInputReport, report_issues
from .ids import log_ids_of, span_ids_of
from .otlp_records import span_record
from .records import EVENT_NAME_ATTRIBUTE, LogRecord, Origin, SpanEvent, SpanLink, SpanRecord
from .wire import encode_varint, read_varint, skip_field

__all__ = [
    "spans_from_request",
    "logs_from_request",
    "MAX_MESSAGE_LEVEL",
    "is_depth_error",
    "cap_deep_values",
    "repair_utf8",
]

def _records_from_pb(
    batches: Any, scoped_field: str, records_field: str, build: Callable,
    origin: Optional[Origin], report: Optional[BadInputReport], shard: Any = None,
) -> Iterator:
    """The one resource -> scope -> record walk of a parsed request: for each
    ``scoped_field`` batch of ``batches``, yield what ``build(its records_field entries,
    resource, scope name, scope version, origin, report, issues, shard)`` yields. The records
    of one scope are read in one call (a call per record costs 4% of the walk); every problem
    met while reading a resource or a record is reported where it was.

    With a :class:`~ek_otel.ingest.shard.Shard`, each batch and each record ticks it, and
    the records of other shards' traces are read light (:func:`_light_span`)."""
    issues: list = []
    for batch in batches:
        if shard is not None:
            shard.unit()
        resource = attributes_from_pb(batch.resource.attributes, issues)
        report_issues(report, issues, origin, "resource")
        for scoped in getattr(batch, scoped_field):
            scope = scoped.scope
            yield from build(getattr(scoped, records_field), resource, scope.name, scope.version,
                             origin, report, issues, shard)


def _reject(report: Optional[BadInputReport], detail: str, origin: Optional[Origin]) -> None:
    """Report a record skipped for an invalid id."""
    if report is not None:
        report.add(INVALID_ID, detail, origin)


#: The attributes of a record read light (never written to).
_NO_ATTRIBUTES: dict = {}


def _light_span(trace_id: str, span_id: bytes, parent_id: bytes, resource: dict, scope_name: str,
                scope_version: str, origin: Optional[Origin]) -> SpanRecord:
    """A span of another shard's trace: what grouping and the own-output check read."""
    return span_record(trace_id, span_id.hex(), parent_id.hex(), "", 0, 0, 0, 0, "", _NO_ATTRIBUTES,
                       (), (), resource, scope_name, scope_version, origin)


def _spans(spans: Any, resource: dict, scope_name: str, scope_version: str, origin: Optional[Origin],
           report: Optional[BadInputReport], issues: list, shard: Any = None) -> Iterator[SpanRecord]:
    """The protobuf spans of one scope as :class:`SpanRecord`; one with an invalid id is
    reported and skipped."""
    for span in spans:
        ids = span_ids_of(span)
        if type(ids) is str:
            if shard is not None:
                shard.item("")
            _reject(report, f"span {span.name[:60]!r}: {ids}", origin)
            continue
        trace_id, span_id, parent_id = ids
        trace_hex = trace_id.hex()
        if shard is not None and not shard.item(trace_hex):
            yield _light_span(trace_hex, span_id, parent_id, resource, scope_name, scope_version, origin)
            continue
        status = span.status
        events = span.events
        links = span.links
        record = span_record(  # SpanRecord(...), fields in order
            trace_hex,
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
                SpanLink(l.trace_id.hex(), l.span_id.hex(), attributes_from_pb(l.attributes, issues))
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
            report_issues(report, issues, origin, f"span {record.span_id}")
        yield record


def _logs(logs: Any, resource: dict, scope_name: str, scope_version: str, origin: Optional[Origin],
          report: Optional[BadInputReport], issues: list, shard: Any = None) -> Iterator[LogRecord]:
    """The protobuf log records of one scope as :class:`LogRecord`; one with an invalid id
    is reported and skipped."""
    for log in logs:
        ids = log_ids_of(log)
        if type(ids) is str:
            if shard is not None:
                shard.item("")
            _reject(report, f"log record: {ids}", origin)
            continue
        trace_id, span_id = ids
        if shard is not None and not shard.item(trace_id.hex()):
            yield LogRecord(trace_id=trace_id.hex(), span_id=span_id.hex(), resource=resource,
                            scope_name=scope_name, scope_version=scope_version, origin=origin)
            continue
        attributes = attributes_from_pb(log.attributes, issues)
        event_name = log.event_name or attributes.get(EVENT_NAME_ATTRIBUTE) or ""
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
            report_issues(report, issues, origin, "log record")
        yield record


def spans_from_request(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
    shard: Any = None,
) -> Iterator[SpanRecord]:
    """Yield the spans of a parsed ``ExportTraceServiceRequest`` as :class:`SpanRecord`
    (with a :class:`~ek_otel.ingest.shard.Shard`: those of other shards' traces read light).

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> req = ExportTraceServiceRequest()
        >>> _ = req.resource_spans.add().scope_spans.add().spans.add(trace_id=b"x", span_id=b"y")
        >>> r = BadInputReport()
        >>> list(spans_from_request(req, report=r)), r.counts
        ([], {'invalid id': 1})
    """
    return _records_from_pb(request.resource_spans, "scope_spans", "spans", _spans, origin, report, shard)


def logs_from_request(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
    shard: Any = None,
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
    return _records_from_pb(request.resource_logs, "scope_logs", "log_records", _logs, origin, report, shard)


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
_STRING = common_pb2.KeyValue.DESCRIPTOR.fields_by_name["key"].TYPE_STRING
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


def _wire_fields(descriptor: Any) -> dict:
    """number -> field, for the string and message fields of ``descriptor`` (cached)."""
    fields = _MESSAGE_FIELDS.get(descriptor.full_name)
    if fields is None:
        fields = {f.number: f for f in descriptor.fields if f.type == _STRING or f.message_type is not None}
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
        tag, pos = read_varint(data, pos, end)
        wire = tag & 7
        if wire == 2 and tag >> 3 in _CONTAINER_FIELDS:
            return True
        pos = skip_field(data, pos, end, wire)
    return False


def _rewrite_message(data: bytes, start: int, end: int, descriptor: Any, level: int, depth: int,
                     notes: list, rewrite_field: Callable) -> Optional[bytes]:
    """The content of ``data[start:end]`` (a ``descriptor`` message at ``level``, inside
    ``depth`` AnyValues) with each string or message field replaced by
    ``rewrite_field(field, data, start, end, level, depth, notes)`` where that returns bytes,
    or None if nothing changed. Notes added below a span, event, attribute... are prefixed
    with where they were (``_LABELS``)."""
    name = descriptor.full_name
    fields = _wire_fields(descriptor)
    label = _LABELS.get(name)
    if label is None and name == _KEY_VALUE and depth == 0:
        label = _ATTRIBUTE_LABEL
    sub_depth = depth + 1 if name == _ANY_VALUE else depth
    first_note = len(notes)
    label_value = b""
    parts: Optional[list] = None
    last = pos = start
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        wire, number = tag & 7, tag >> 3
        if wire != 2:
            pos = skip_field(data, pos, end, wire)
            continue
        tag_end = pos
        length, pos = read_varint(data, pos, end)
        sub_start, pos = pos, pos + length
        if pos > end:
            raise ValueError("truncated field")
        if label is not None and number == label[0]:
            label_value = data[sub_start:pos]
        field = fields.get(number)
        if field is None:
            continue
        new = rewrite_field(field, data, sub_start, pos, level + 1, sub_depth, notes)
        if new is not None:
            if parts is None:
                parts = []
            parts += (data[last:tag_end], encode_varint(len(new)), new)
            last = pos
    if label is not None and len(notes) > first_note:
        where = label[1](label_value)
        notes[first_note:] = [f"{where}: {note}" for note in notes[first_note:]]
    if parts is None:
        return None
    parts.append(data[last:end])
    return b"".join(parts)


def _cap_field(field: Any, data: bytes, start: int, end: int, level: int, depth: int,
               notes: list) -> Optional[bytes]:
    """A message field with too-deep containers cut (a ``_rewrite_message`` rule)."""
    descriptor = field.message_type
    if descriptor is None or _too_small(end - start, level, depth):
        return None
    if descriptor.full_name == _ANY_VALUE and (depth >= MAX_DEPTH or level + 3 > MAX_MESSAGE_LEVEL):
        if not _holds_container(data, start, end):
            return None
        notes.append(f"more than {MAX_DEPTH} levels" if depth >= MAX_DEPTH
                     else f"more than {depth} levels (the most protobuf parses here)")
        return _MARKER_VALUE
    return _rewrite_message(data, start, end, descriptor, level, depth, notes, _cap_field)


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
        >>> def field(tag, payload): return bytes([tag]) + encode_varint(len(payload)) + payload
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
    new = _rewrite_message(body, 0, len(body), descriptor, 0, 0, notes, _cap_field)
    issues.extend((DEEP_NESTING, note) for note in notes)
    return body if new is None else new


# ---------------------------------------------------------------------------
# Strings that are not valid UTF-8
# ---------------------------------------------------------------------------

def _repair_field(field: Any, data: bytes, start: int, end: int, level: int, depth: int,
                  notes: list) -> Optional[bytes]:
    """A string field with invalid UTF-8 replaced, or a message field with its strings
    repaired (a ``_rewrite_message`` rule)."""
    if field.type == _STRING:
        raw = data[start:end]
        try:
            raw.decode("utf-8")
            return None
        except UnicodeDecodeError:
            notes.append(field.name)
            return raw.decode("utf-8", "replace").encode("utf-8")
    if level > MAX_MESSAGE_LEVEL:  # too deep to parse anyway: cap_deep_values cuts it
        return None
    return _rewrite_message(data, start, end, field.message_type, level, depth, notes, _repair_field)


def repair_utf8(body: bytes, descriptor: Any, issues: list) -> bytes:
    """Rewrite a serialized request so that every ``string`` field is valid UTF-8.

    protobuf (upb) refuses a whole request for one proto3 ``string`` holding invalid UTF-8,
    but the Collector does not validate strings (its pdata marshaller copies bytes), so a
    batch it forwards, or dumps with its file exporter, can hold one span with a truncated
    multi-byte character. Each invalid sequence becomes U+FFFD (as
    ``bytes.decode("utf-8", "replace")`` does), every repaired string adds an
    ``(INVALID_UTF8, detail)`` pair to ``issues`` saying where it was, and everything else is
    copied byte for byte. Raises ValueError for a body that is not protobuf wire data.

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> req = ExportTraceServiceRequest()
        >>> span = req.resource_spans.add().scope_spans.add().spans.add()
        >>> span.span_id, span.name = b"\\x02" * 8, "cafe!"
        >>> bad = req.SerializeToString().replace(b"cafe!", b"caf\\xc3!")   # a cut character
        >>> issues = []
        >>> fixed = repair_utf8(bad, ExportTraceServiceRequest.DESCRIPTOR, issues)
        >>> ExportTraceServiceRequest.FromString(fixed).resource_spans[0].scope_spans[0].spans[0].name
        'caf\\ufffd!'
        >>> issues
        [('invalid UTF-8', 'span 0202020202020202: name')]
    """
    notes: list = []
    new = _rewrite_message(body, 0, len(body), descriptor, 0, 0, notes, _repair_field)
    issues.extend((INVALID_UTF8, note) for note in notes)
    return body if new is None else new
