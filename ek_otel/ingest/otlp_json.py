"""OTLP JSON (already parsed by json/orjson) -> records, or -> protobuf requests.

A hand walk, not ``json_format.Parse``: the OTLP JSON encoding writes ids as hex, where
protobuf's JSON mapping (and so ``json_format.Parse``) reads bytes as base64. So:

- ids are hex, case-insensitive (base64 of the right length is tolerated too, since some
  dumps were written with ``json_format.MessageToJson``);
- int64/fixed64 may be strings or numbers; enums may be integers or names;
- keys may be lowerCamelCase or snake_case; unknown fields are ignored.

A span or log record with a bad id or a bad shape is reported and skipped; an attribute of
an unexpected type is dropped and reported; the rest of the request is kept.

Example:
    >>> body = {"resourceSpans": [{"scopeSpans": [{"spans": [{
    ...     "traceId": "0AF7651916CD43DD8448EB211C80319C", "spanId": "b7ad6b7169203331",
    ...     "name": "chat", "kind": "SPAN_KIND_CLIENT", "startTimeUnixNano": "5",
    ...     "attributes": [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}}]}]}]}]}
    >>> [(s.trace_id, s.kind, s.start_ns, dict(s.attributes)) for s in spans_from_json(body)]
    [('0af7651916cd43dd8448eb211c80319c', 3, 5, {'gen_ai.usage.input_tokens': 12})]
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Optional

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from .anyvalue import (
    DEPTH_MARKER,
    BadValue,
    attributes_from_json,
    attributes_to_pb,
    json_int64,
    value_from_json,
    value_to_pb,
)
from ..limits import MAX_JSON_NESTING as _MAX_JSON_NESTING
from .bad_input import INVALID_ID, MALFORMED_RECORD, BadInputReport, report_issues
from .ids import SPAN_ID_BYTES, TRACE_ID_BYTES, InvalidId, hex_id, json_span_ids
from .otlp_records import span_record
from .records import EVENT_NAME_ATTRIBUTE, LogRecord, Origin, SpanEvent, SpanLink, SpanRecord

__all__ = [
    "spans_from_json",
    "logs_from_json",
    "traces_json_to_pb",
    "logs_json_to_pb",
    "MAX_JSON_NESTING",
    "cap_json_nesting",
]


def _enum_names(enum_type: Any) -> dict:
    return {value.name: value.number for value in enum_type.DESCRIPTOR.values}


_SPAN_KINDS = _enum_names(trace_pb2.Span.SpanKind)
_STATUS_CODES = _enum_names(trace_pb2.Status.StatusCode)
_SEVERITIES = _enum_names(logs_pb2.SeverityNumber)


def _get(obj: dict, camel: str, snake: str, default: Any = None) -> Any:
    value = obj.get(camel)
    if value is None:
        value = obj.get(snake)
    return default if value is None else value


def _list(obj: dict, camel: str, snake: str, *aliases: str) -> list:
    """The list under a key (camelCase, snake_case, or an alias), ``[]`` when absent."""
    value = _get(obj, camel, snake)
    for alias in aliases:
        if value is None:
            value = obj.get(alias)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadValue(f"{camel} is a {type(value).__name__}, not a list")
    return value


def _object(obj: dict, camel: str, snake: str, *aliases: str) -> dict:
    value = _get(obj, camel, snake)
    for alias in aliases:
        if value is None:
            value = obj.get(alias)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadValue(f"{camel} is a {type(value).__name__}, not an object")
    return value


def _str(obj: dict, camel: str, snake: str = "") -> str:
    value = _get(obj, camel, snake or camel, "")
    if not isinstance(value, str):
        raise BadValue(f"{camel} is a {type(value).__name__}, not a string")
    return value


_INT64_END = 1 << 63


def _u64(obj: dict, camel: str, snake: str) -> int:
    value = obj.get(camel)
    if type(value) is str and len(value) <= 19 and value.isascii() and value.isdigit():  # fast path: a timestamp string
        number = int(value)
        if number < _INT64_END:  # nanoseconds since 1970 have 19 digits: in range until 2262
            return number
    if value is None:
        value = obj.get(snake)
    if value is None:
        return 0
    number = json_int64(value)
    if number < 0:
        raise BadValue(f"{camel} {value!r} is negative")
    return number


def _enum(obj: dict, camel: str, snake: str, names: dict) -> int:
    value = _get(obj, camel, snake)
    if value is None:
        return 0
    if isinstance(value, str):
        number = names.get(value)
        if number is not None:
            return number
    number = json_int64(value)
    if not -(2**31) <= number < 2**31:
        raise BadValue(f"{camel} {value!r} is out of the enum range")
    return number


def _scope_of(scoped: dict) -> dict:
    return _object(scoped, "scope", "scope", "instrumentationLibrary", "instrumentation_library")


def _no_attributes(key_values: Any, issues: list) -> dict:
    """What a record read light gets for its attributes (they are not walked)."""
    return _NO_ATTRIBUTES


#: The attributes of a record read light (never written to).
_NO_ATTRIBUTES: dict = {}


def _span_record(span: dict, resource: dict, scope: tuple, origin, issues: list,
                 light: bool = False) -> SpanRecord:
    """The record of one JSON span; ``light``: without its attributes (nothing else is
    skipped, so a light read refuses exactly the spans a full read refuses)."""
    attributes_of = _no_attributes if light else attributes_from_json
    trace_id, span_id, parent_id = json_span_ids(span)
    status = _object(span, "status", "status")
    events = span.get("events")
    if events:
        events = tuple(
            SpanEvent(
                _str(event, "name"),
                _u64(event, "timeUnixNano", "time_unix_nano"),
                attributes_of(event.get("attributes"), issues),
            )
            for event in _list(span, "events", "events")
        )
    links = span.get("links")
    if links:
        links = tuple(
            SpanLink(
                hex_id(_get(link, "traceId", "trace_id"), TRACE_ID_BYTES, "link trace id"),
                hex_id(_get(link, "spanId", "span_id"), SPAN_ID_BYTES, "link span id"),
                attributes_of(link.get("attributes"), issues),
            )
            for link in _list(span, "links", "links")
        )
    name = span.get("name", "")
    if type(name) is not str:
        raise BadValue(f"name is a {type(name).__name__}, not a string")
    kind = span.get("kind", 0)
    return span_record(  # SpanRecord(...), fields in order
        trace_id,
        span_id,
        parent_id,
        name,
        kind if type(kind) is int and 0 <= kind < 2**31 else _enum(span, "kind", "kind", _SPAN_KINDS),
        _u64(span, "startTimeUnixNano", "start_time_unix_nano"),
        _u64(span, "endTimeUnixNano", "end_time_unix_nano"),
        _enum(status, "code", "code", _STATUS_CODES),
        _str(status, "message"),
        attributes_of(span.get("attributes"), issues),
        events or (),
        links or (),
        resource,
        scope[0],
        scope[1],
        origin,
    )


def _skip(report: Optional[BadInputReport], exc: Exception, what: str, origin) -> None:
    if report is not None:
        reason = INVALID_ID if isinstance(exc, InvalidId) else MALFORMED_RECORD
        report.add(reason, f"{what}: {exc}", origin)


def _batches(request: Any, outer: tuple, inner: tuple, records: tuple) -> Iterator[tuple]:
    """Yield (resource attributes source, scope dict, records list) per scope batch."""
    if not isinstance(request, dict):
        raise BadValue(f"the request is a {type(request).__name__}, not an object")
    for batch in _list(request, *outer):
        if not isinstance(batch, dict):
            raise BadValue(f"{outer[0]} entry is a {type(batch).__name__}, not an object")
        resource = _object(batch, "resource", "resource")
        for scoped in _list(batch, *inner):
            if not isinstance(scoped, dict):
                raise BadValue(f"{inner[0]} entry is a {type(scoped).__name__}, not an object")
            yield resource, _scope_of(scoped), _list(scoped, *records)


_TRACE_KEYS = (
    ("resourceSpans", "resource_spans"),
    ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans"),
    ("spans", "spans"),
)
_LOG_KEYS = (
    ("resourceLogs", "resource_logs"),
    ("scopeLogs", "scope_logs", "instrumentationLibraryLogs", "instrumentation_library_logs"),
    ("logRecords", "log_records"),
)


def spans_from_json(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
    shard: Any = None,
) -> Iterator[SpanRecord]:
    """Yield the spans of a parsed OTLP-JSON ``ExportTraceServiceRequest`` (with a
    :class:`~ek_otel.ingest.shard.Shard`: those of other shards' traces read light).

    Raises :class:`~ek_otel.ingest.anyvalue.BadValue` when the request itself has the wrong
    shape; a bad span is reported and skipped.

    Example:
        >>> r = BadInputReport()
        >>> list(spans_from_json({"resourceSpans": [{"scopeSpans": [{"spans": [
        ...     {"traceId": "zz", "spanId": "b7ad6b7169203331"}]}]}]}, report=r)), r.counts
        ([], {'invalid id': 1})
    """
    return _walk_json(request, _TRACE_KEYS, "span", _span_record, origin, report, shard)


def logs_from_json(
    request: Any, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
    shard: Any = None,
) -> Iterator[LogRecord]:
    """Yield the records of a parsed OTLP-JSON ``ExportLogsServiceRequest``.

    Example:
        >>> req = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "gen_ai.choice",
        ...     "severityNumber": "SEVERITY_NUMBER_INFO", "body": {"stringValue": "hi"}}]}]}]}
        >>> [(r.event_name, r.severity_number, r.body) for r in logs_from_json(req)]
        [('gen_ai.choice', 9, 'hi')]
    """
    return _walk_json(request, _LOG_KEYS, "log record", _log_record, origin, report, shard)


def _walk_json(request: Any, keys: tuple, kind: str, build: Callable,
               origin: Optional[Origin], report: Optional[BadInputReport], shard: Any = None) -> Iterator:
    """The records of a parsed request: ``build(item, resource, scope, origin, issues, light)``
    for each span or log record (``kind``) of its batches; a bad one is reported and skipped.

    With a :class:`~ek_otel.ingest.shard.Shard`, each batch and each record ticks it, and the
    records of other shards' traces are built ``light``: the same checks, no attribute walk.
    A record is its trace's (:data:`_TRACE_OF`), a record without a valid trace id shard 0's."""
    issues: list = []
    resources: dict = {}
    trace_of = _TRACE_OF[kind]
    for resource_json, scope_json, items in _batches(request, *keys):
        if shard is not None:
            shard.unit()
        key = id(resource_json)
        if key not in resources:
            resources[key] = attributes_from_json(resource_json.get("attributes"), issues)
            report_issues(report, issues, origin, "resource")
        resource = resources[key]
        scope = (_str(scope_json, "name"), _str(scope_json, "version"))
        for item in items:
            light = False
            if shard is not None:
                trace_id = trace_of(item)
                light = not shard.item(trace_id)
            try:
                if not isinstance(item, dict):
                    raise BadValue(f"{kind} is a {type(item).__name__}, not an object")
                record = build(item, resource, scope, origin, issues, light)
            except (ValueError, TypeError, AttributeError) as exc:  # BadValue, InvalidId too
                issues.clear()
                _skip(report, exc, kind, origin)
                continue
            if shard is not None and record.trace_id != trace_id:  # the owner rule and the record disagree
                raise RuntimeError(f"{kind} of trace {record.trace_id!r} sharded as {trace_id!r}")
            if issues:
                report_issues(report, issues, origin, f"span {record.span_id}" if kind == "span" else kind)
            yield record


def _log_record(log: dict, resource: dict, scope: tuple, origin, issues: list,
                light: bool = False) -> LogRecord:
    """The record of one JSON log record; ``light``: without its attributes (as
    :func:`_span_record`)."""
    attributes = _NO_ATTRIBUTES if light else attributes_from_json(log.get("attributes"), issues)
    event_name = _str(log, "eventName", "event_name") or attributes.get(EVENT_NAME_ATTRIBUTE) or ""
    body = log.get("body")
    return LogRecord(
        trace_id=_log_trace_id(log),
        span_id=hex_id(_get(log, "spanId", "span_id"), SPAN_ID_BYTES, "span id"),
        time_ns=_u64(log, "timeUnixNano", "time_unix_nano")
        or _u64(log, "observedTimeUnixNano", "observed_time_unix_nano"),
        event_name=event_name if isinstance(event_name, str) else str(event_name),
        body=None if body is None else value_from_json(body, issues),
        attributes=attributes,
        resource=resource,
        scope_name=scope[0],
        scope_version=scope[1],
        severity_number=_enum(log, "severityNumber", "severity_number", _SEVERITIES),
        origin=origin,
    )


def _log_trace_id(log: dict) -> str:
    """A JSON log record's trace id (lowercase hex, ``""`` when it has none); InvalidId."""
    return hex_id(_get(log, "traceId", "trace_id"), TRACE_ID_BYTES, "trace id")


def _span_trace_of(span: Any) -> str:
    """The trace id a JSON span's record gets (:func:`~ek_otel.ingest.ids.json_span_ids`),
    ``""`` when it will be refused for a bad one."""
    if type(span) is not dict:
        return ""
    try:
        return hex_id(span.get("traceId") or span.get("trace_id"), TRACE_ID_BYTES, "trace id")
    except InvalidId:
        return ""


def _log_trace_of(log: Any) -> str:
    """The trace id a JSON log record's record gets, ``""`` when none or a bad one."""
    if type(log) is not dict:
        return ""
    try:
        return _log_trace_id(log)
    except InvalidId:
        return ""


#: kind -> the trace id that decides which shard reads a record in full.
_TRACE_OF = {"span": _span_trace_of, "log record": _log_trace_of}


# ---------------------------------------------------------------------------
# JSON -> protobuf requests (the live receiver keeps protobuf payloads)
# ---------------------------------------------------------------------------


def _fill_resource_and_scope(batch_pb: Any, scoped_pb: Any, resource: dict, scope: dict, issues) -> None:
    attributes_to_pb(attributes_from_json(resource.get("attributes"), issues), batch_pb.resource.attributes)
    scoped_pb.scope.name = _str(scope, "name")
    scoped_pb.scope.version = _str(scope, "version")
    attributes_to_pb(attributes_from_json(scope.get("attributes"), issues), scoped_pb.scope.attributes)


def traces_json_to_pb(request: Any) -> tuple:
    """Convert a parsed OTLP-JSON trace request to ``(ExportTraceServiceRequest, problems)``.

    Spans with a bad id or shape are left out; ``problems`` lists ``(reason, detail)`` for
    each span left out and each attribute dropped.

    Example:
        >>> req, problems = traces_json_to_pb({"resourceSpans": [{"scopeSpans": [{"spans": [
        ...     {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331",
        ...      "name": "chat", "status": {"code": 2}}, {"spanId": "x"}]}]}]})
        >>> [s.name for s in req.resource_spans[0].scope_spans[0].spans], problems[0][0]
        (['chat'], 'invalid id')
    """
    out = ExportTraceServiceRequest()
    problems: list = []
    for scoped_pb, span, record in _records_to_pb(
        request, _TRACE_KEYS, "span", out.resource_spans, "scope_spans",
        lambda span, issues: _span_record(span, {}, ("", ""), None, issues), problems,
    ):
        _span_to_pb(record, scoped_pb.spans.add(), span)
    return out, problems


def _records_to_pb(request: Any, keys: tuple, kind: str, batches_pb: Any, scoped_field: str,
                   build: Callable, problems: list) -> Iterator[tuple]:
    """Yield ``(scoped_pb, item, build(item, issues))`` for each span or log record (``kind``)
    of a parsed request, adding one ``batches_pb`` entry (and one ``scoped_field`` entry in
    it) per batch; a bad item is left out, and every problem goes to ``problems``."""
    issues: list = []
    for resource, scope, items in _batches(request, *keys):
        batch_pb = batches_pb.add()
        scoped_pb = getattr(batch_pb, scoped_field).add()
        _fill_resource_and_scope(batch_pb, scoped_pb, resource, scope, issues)
        problems.extend(issues)
        issues.clear()
        for item in items:
            try:
                if not isinstance(item, dict):
                    raise BadValue(f"{kind} is a {type(item).__name__}, not an object")
                built = build(item, issues)
            except (ValueError, TypeError, AttributeError) as exc:  # BadValue, InvalidId too
                issues.clear()
                problems.append((INVALID_ID if isinstance(exc, InvalidId) else MALFORMED_RECORD, str(exc)))
                continue
            problems.extend(issues)
            issues.clear()
            yield scoped_pb, item, built


def _span_to_pb(record: SpanRecord, span_pb: Any, span: dict) -> None:
    span_pb.trace_id = bytes.fromhex(record.trace_id)
    span_pb.span_id = bytes.fromhex(record.span_id)
    if record.parent_span_id:
        span_pb.parent_span_id = bytes.fromhex(record.parent_span_id)
    trace_state = _get(span, "traceState", "trace_state")
    if isinstance(trace_state, str):
        span_pb.trace_state = trace_state
    span_pb.name = record.name
    span_pb.kind = record.kind
    span_pb.start_time_unix_nano = record.start_ns
    span_pb.end_time_unix_nano = record.end_ns
    attributes_to_pb(record.attributes, span_pb.attributes)
    for event in record.events:
        event_pb = span_pb.events.add(name=event.name, time_unix_nano=event.time_ns)
        attributes_to_pb(event.attributes, event_pb.attributes)
    for link in record.links:
        link_pb = span_pb.links.add(trace_id=bytes.fromhex(link.trace_id), span_id=bytes.fromhex(link.span_id))
        attributes_to_pb(link.attributes, link_pb.attributes)
    if record.status_code or record.status_message:
        span_pb.status.code = record.status_code
        span_pb.status.message = record.status_message


def _log_to_pb_parts(log: dict, issues: list) -> tuple:
    """``(record, event name, severity text, observed time, time, flags)`` of a JSON log record."""
    return (
        _log_record(log, {}, ("", ""), None, issues),
        _str(log, "eventName", "event_name"),
        _str(log, "severityText", "severity_text"),
        _u64(log, "observedTimeUnixNano", "observed_time_unix_nano"),
        _u64(log, "timeUnixNano", "time_unix_nano"),
        _u64(log, "flags", "flags"),
    )


def logs_json_to_pb(request: Any) -> tuple:
    """Convert a parsed OTLP-JSON logs request to ``(ExportLogsServiceRequest, problems)``.

    Example:
        >>> req, problems = logs_json_to_pb({"resourceLogs": [{"scopeLogs": [{"logRecords": [
        ...     {"eventName": "gen_ai.choice", "body": {"kvlistValue": {"values": []}}}]}]}]})
        >>> req.resource_logs[0].scope_logs[0].log_records[0].event_name, problems
        ('gen_ai.choice', [])
    """
    out = ExportLogsServiceRequest()
    problems: list = []
    for scoped_pb, _, built in _records_to_pb(
        request, _LOG_KEYS, "log record", out.resource_logs, "scope_logs", _log_to_pb_parts, problems,
    ):
        record, event_name, severity_text, observed, time_ns, flags = built
        log_pb = scoped_pb.log_records.add(
            time_unix_nano=time_ns,
            observed_time_unix_nano=observed,
            severity_number=record.severity_number,
            severity_text=severity_text,
            event_name=event_name,
            flags=flags & 0xFFFFFFFF,
        )
        if record.trace_id:
            log_pb.trace_id = bytes.fromhex(record.trace_id)
        if record.span_id:
            log_pb.span_id = bytes.fromhex(record.span_id)
        if record.body is not None:
            value_to_pb(record.body, log_pb.body)
        attributes_to_pb(record.attributes, log_pb.attributes)
    return out, problems


# ---------------------------------------------------------------------------
# JSON nested deeper than the parser accepts
# ---------------------------------------------------------------------------

#: The JSON nesting :func:`cap_json_nesting` keeps. Well above what the readers look at (an
#: AnyValue is cut at :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` containers, at most 4 JSON
#: levels each, under a dozen levels of request), and well below orjson's limit of 1024.
MAX_JSON_NESTING = _MAX_JSON_NESTING  # ek_otel.limits.MAX_JSON_NESTING

# A JSON string (skipped whole, brackets inside it do not count) or a bracket.
_JSON_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_JSON_MARKER = b'"' + DEPTH_MARKER.encode() + b'"'
_OPENING = (0x5B, 0x7B)  # [ {


def cap_json_nesting(text: Any, limit: int = MAX_JSON_NESTING) -> tuple:
    """Replace every JSON array or object nested deeper than ``limit`` by a marker string.

    Returns ``(text, cuts)``: bytes that a JSON parser with a depth limit (orjson: 1024) or
    a recursion limit (json) reads, and how many values were replaced. One pass over the
    text, no recursion: safe on any input (malformed text stays malformed). The readers
    then see :data:`~ek_otel.ingest.anyvalue.DEPTH_MARKER` (a string) where the deep value
    was; a deep AnyValue is cut at :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` before it.

    Example:
        >>> cap_json_nesting(b'{"a": [[["]]]"]], 1]}', limit=2)
        (b'{"a": ["<ek-otel: value nested too deep>", 1]}', 1)
    """
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    elif not isinstance(text, bytes):
        text = bytes(text)
    parts: list = []
    depth = cuts = last = 0
    cut_start = -1
    for match in _JSON_TOKENS.finditer(text):
        char = text[match.start()]
        if char == 0x22:  # a string
            continue
        if char in _OPENING:
            depth += 1
            if depth == limit + 1 and cut_start < 0:
                cut_start = match.start()
        else:
            if depth == limit + 1 and cut_start >= 0:
                parts += (text[last:cut_start], _JSON_MARKER)
                last = match.end()
                cut_start = -1
                cuts += 1
            depth -= 1
    if cut_start >= 0:  # never closed: malformed, let the parser say so
        parts += (text[last:cut_start], _JSON_MARKER)
        last = len(text)
        cuts += 1
    if not parts:
        return text, 0
    parts.append(text[last:])
    return b"".join(parts), cuts
