"""OTLP request bodies (protobuf or JSON) -> records, or -> per-trace protobuf payloads.

Two ways in:

- :func:`decode_traces` / :func:`decode_logs` decode a whole request into
  :class:`~ek_otel.ingest.records.SpanRecord` / :class:`~ek_otel.ingest.records.LogRecord`
  (the dump readers use these);
- :func:`split_traces` / :func:`split_logs` only parse and group by trace id, keeping each
  trace's spans as a small serialized protobuf request (the live receiver uses these, so it
  never builds Python objects for attributes until a trace closes; see the decode floor in
  ``otlp.md``). :func:`decode_payload` / :func:`decode_logs_payload` decode such a payload.

A body that cannot be decoded at all raises :class:`~ek_otel.errors.DecodeError` (a
permanent error: HTTP 400). Inside a decodable request, a span with an invalid id is
skipped (and counted as rejected), an attribute of an unexpected type is dropped, and an
``AnyValue`` nested deeper than :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` is replaced by
:data:`~ek_otel.ingest.anyvalue.DEPTH_MARKER` (the span is kept); each case is added to the
optional :class:`~ek_otel.ingest.bad_input.BadInputReport`. That holds past the parsers'
own limits too (upb refuses a whole request past ~100 message levels, orjson a whole text
past 1024): the too-deep values are cut before parsing and the rest of the body is kept.
Likewise a string holding invalid UTF-8, which both parsers refuse (the Collector forwards
and dumps such bytes as they are): its bad bytes become U+FFFD, reported as
:data:`~ek_otel.ingest.bad_input.INVALID_UTF8`, and the rest of the request is kept.

Example:
    >>> body = (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c",'
    ...         b'"spanId":"b7ad6b7169203331","name":"chat"}]}]}]}')
    >>> [s.name for s in decode_traces(body, "json")]
    ['chat']
    >>> split = split_traces(body, "json")
    >>> chunk = split.chunks[0]
    >>> chunk.trace_id, chunk.root_span_ids, [s.name for s in decode_payload(chunk.payload)]
    ('0af7651916cd43dd8448eb211c80319c', ('b7ad6b7169203331',), ['chat'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ..errors import DecodeError
from .anyvalue import BadValue
from .bad_input import (
    INVALID_ID,
    INVALID_JSON,
    INVALID_UTF8,
    MALFORMED_RECORD,
    UNDECODABLE_PROTOBUF,
    BadInputReport,
)
from .otlp_json import cap_json_nesting, logs_from_json, logs_json_to_pb, spans_from_json, traces_json_to_pb
from .otlp_pb import (
    cap_deep_values,
    is_depth_error,
    log_id_problem,
    logs_from_request,
    repair_utf8,
    span_id_problem,
    spans_from_request,
)
from .records import LogRecord, Origin, SpanRecord
from .wire import encode_varint

try:  # orjson is about 2x faster than json on OTLP bodies
    import orjson as _orjson

    _json_loads: Callable[[Any], Any] = _orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency, json is the fallback
    import json as _json

    _json_loads = _json.loads

__all__ = [
    "PROTOBUF",
    "JSON",
    "normalize_format",
    "BodyDecodeError",
    "parse_json",
    "parse_trace_request",
    "parse_logs_request",
    "decode_traces",
    "decode_logs",
    "decode_payload",
    "decode_logs_payload",
    "TraceChunk",
    "SplitTraces",
    "LogChunk",
    "SplitLogs",
    "split_traces",
    "split_logs",
]

PROTOBUF = "protobuf"
JSON = "json"

_FORMATS = {
    "protobuf": PROTOBUF,
    "proto": PROTOBUF,
    "pb": PROTOBUF,
    "application/x-protobuf": PROTOBUF,
    "application/protobuf": PROTOBUF,
    "json": JSON,
    "application/json": JSON,
}


def normalize_format(fmt: str) -> str:
    """``"protobuf"`` or ``"json"`` from a format name or content type; else DecodeError.

    Example:
        >>> normalize_format("application/x-protobuf; charset=utf-8"), normalize_format("JSON")
        ('protobuf', 'json')
    """
    key = fmt.split(";", 1)[0].strip().lower()
    try:
        return _FORMATS[key]
    except KeyError:
        raise DecodeError(f"unknown OTLP format {fmt!r} (expected protobuf or json)") from None


class BodyDecodeError(DecodeError):
    """A body that does not parse as JSON or protobuf.

    ``detail`` is the message without its bad-input reason in front (``"invalid JSON"``,
    ``"undecodable protobuf"``), for a report that names the reason itself.

    Example:
        >>> error = BodyDecodeError("invalid JSON", "unexpected end")
        >>> str(error), error.detail
        ('invalid JSON: unexpected end', 'unexpected end')
    """

    def __init__(self, reason: str, detail: str, *, separator: str = ": "):
        super().__init__(f"{reason}{separator}{detail}")
        self.reason = reason
        self.detail = detail


def _is_json_depth_error(exc: BaseException) -> bool:
    return isinstance(exc, RecursionError) or "depth limit" in str(exc)


def _repair_json_utf8(body: Any) -> Optional[tuple]:
    """``(body with each invalid UTF-8 sequence replaced by U+FFFD, detail)``, or None
    when ``body`` is not bytes or is valid UTF-8."""
    if not isinstance(body, (bytes, bytearray, memoryview)):
        return None
    try:
        bytes(body).decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        first = exc.start
    text = bytes(body).decode("utf-8", "replace")
    count = text.count("\ufffd") - bytes(body).count("\ufffd".encode())
    plural = "s" if count != 1 else ""
    return text.encode("utf-8"), f"{count} invalid byte sequence{plural} replaced with U+FFFD (first at byte {first})"


def parse_json(body: Any, issues: Optional[list] = None) -> Any:
    """Parse JSON text (bytes or str) with orjson when installed; raises DecodeError.

    Text nested deeper than the parser accepts is not refused whole: arrays and objects
    deeper than :data:`~ek_otel.ingest.otlp_json.MAX_JSON_NESTING` are replaced by
    :data:`~ek_otel.ingest.anyvalue.DEPTH_MARKER` (see
    :func:`~ek_otel.ingest.otlp_json.cap_json_nesting`) and the rest is parsed, so one
    absurdly deep attribute loses only its own value. Text refused only for invalid UTF-8
    (a cut multi-byte character in one string) is parsed with each bad sequence replaced
    by U+FFFD, and ``(INVALID_UTF8, detail)`` is added to ``issues``.

    Example:
        >>> parse_json(b'{"a": 1}')
        {'a': 1}
        >>> parse_json(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b', "b": 2}')["b"]
        2
        >>> issues = []
        >>> parse_json(b'{"name": "caf\\xc3"}', issues), issues
        ({'name': 'caf\ufffd'}, [('invalid UTF-8', '1 invalid byte sequence replaced with U+FFFD (first at byte 13)')])
        >>> parse_json(b"{")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: invalid JSON: unexpected end of data: ...
    """
    try:
        return _json_loads(body)
    except (ValueError, RecursionError, TypeError) as exc:
        if _is_json_depth_error(exc):
            try:
                return _json_loads(cap_json_nesting(body)[0])
            except (ValueError, RecursionError, TypeError):
                pass
        repaired = _repair_json_utf8(body)
        if repaired is not None:
            try:
                parsed = parse_json(repaired[0])
            except DecodeError:
                pass
            else:
                if issues is not None:
                    issues.append((INVALID_UTF8, repaired[1]))
                return parsed
        raise BodyDecodeError(INVALID_JSON, str(exc)[:200]) from None


def _parse_pb(message: Any, body: bytes, what: str, issues: Optional[list]) -> Any:
    try:
        message.ParseFromString(body)
        return message
    except Exception as exc:  # upb raises DecodeError, but never let bad bytes crash us
        error = first_error = exc
    # upb refuses the whole request for a value past ~100 levels (a limit Python cannot
    # raise) or for one string of invalid UTF-8: fix that at the wire level, parse the rest.
    found: list = []
    fixes = [cap_deep_values, repair_utf8]
    while fixes:
        fix = fixes.pop(0 if is_depth_error(error) else -1)
        try:
            fixed = fix(body, message.DESCRIPTOR, found)
        except ValueError:  # not wire data after all: report the parse error
            break
        if fixed is body:
            continue
        body = fixed
        try:
            message = type(message).FromString(body)
        except Exception as exc:  # noqa: BLE001 - the other problem too, or another one
            error = exc
            continue
        if issues is not None:
            issues.extend(found)
        return message
    raise BodyDecodeError(UNDECODABLE_PROTOBUF, f"{what}: {str(first_error)[:200]}", separator=" ") from None


def parse_trace_request(body: bytes, issues: Optional[list] = None) -> ExportTraceServiceRequest:
    """Parse a protobuf ``ExportTraceServiceRequest``; raises DecodeError.

    A value nested deeper than the parser accepts is cut (see
    :func:`~ek_otel.ingest.otlp_pb.cap_deep_values`) and ``(DEEP_NESTING, detail)`` is
    added to ``issues``; the rest of the request is kept.

    Example:
        >>> len(parse_trace_request(b"").resource_spans)
        0
    """
    return _parse_pb(ExportTraceServiceRequest(), body, "ExportTraceServiceRequest", issues)


def parse_logs_request(body: bytes, issues: Optional[list] = None) -> ExportLogsServiceRequest:
    """Parse a protobuf ``ExportLogsServiceRequest``; raises DecodeError (deep values: as
    :func:`parse_trace_request`).

    Example:
        >>> parse_logs_request(b"\\x0a\\x05")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: undecodable protobuf ExportLogsServiceRequest: ...
    """
    return _parse_pb(ExportLogsServiceRequest(), body, "ExportLogsServiceRequest", issues)


def _report_cut_values(report: Optional[BadInputReport], issues: list, origin: Optional[Origin]) -> None:
    if report is not None:
        for reason, detail in issues:
            report.add(reason, detail, origin)


def decode_traces(
    body: bytes,
    fmt: str,
    *,
    origin: Optional[Origin] = None,
    report: Optional[BadInputReport] = None,
) -> list[SpanRecord]:
    """Decode an ``ExportTraceServiceRequest`` body into span records.

    Args:
        body: The (decompressed) request body.
        fmt: ``"protobuf"`` or ``"json"`` (a content type works too).
        origin: Stamped on every record (file and line, or the request).
        report: Where skipped spans, dropped attributes and deep values are reported.

    Raises:
        DecodeError: The body cannot be decoded at all.

    Example:
        >>> decode_traces(b"\\x0a\\x02\\x12", "protobuf")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: undecodable protobuf ExportTraceServiceRequest: ...
    """
    return _decode(body, fmt, parse_trace_request, spans_from_request, spans_from_json, "trace",
                   origin, report)


def decode_logs(
    body: bytes,
    fmt: str,
    *,
    origin: Optional[Origin] = None,
    report: Optional[BadInputReport] = None,
) -> list[LogRecord]:
    """Decode an ``ExportLogsServiceRequest`` body into log records.

    ``event_name`` comes from the record's ``event_name`` field, else its ``event.name``
    attribute. Raises DecodeError when the body cannot be decoded at all.

    Example:
        >>> body = (b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":'
        ...         b'[{"key":"event.name","value":{"stringValue":"gen_ai.choice"}}]}]}]}]}')
        >>> [r.event_name for r in decode_logs(body, "json")]
        ['gen_ai.choice']
    """
    return _decode(body, fmt, parse_logs_request, logs_from_request, logs_from_json, "logs",
                   origin, report)


def _decode(body: bytes, fmt: str, parse_request: Callable, from_request: Callable,
            from_json: Callable, what: str, origin: Optional[Origin],
            report: Optional[BadInputReport]) -> list:
    """:func:`decode_traces` / :func:`decode_logs`, given the parser and record readers."""
    issues: list = []
    if normalize_format(fmt) == PROTOBUF:
        request = parse_request(body, issues)
        _report_cut_values(report, issues, origin)
        return list(from_request(request, origin, report))
    try:
        parsed = parse_json(body, issues)
        _report_cut_values(report, issues, origin)
        return list(from_json(parsed, origin, report))
    except (BadValue, TypeError, AttributeError) as exc:
        raise DecodeError(f"not an OTLP {what} request: {exc}") from None


def decode_payload(payload: bytes, *, origin: Optional[Origin] = None,
                   report: Optional[BadInputReport] = None) -> list[SpanRecord]:
    """Decode a :attr:`TraceChunk.payload` (a protobuf ``ExportTraceServiceRequest``).

    Example:
        >>> decode_payload(b"")
        []
    """
    return decode_traces(payload, PROTOBUF, origin=origin, report=report)


def decode_logs_payload(payload: bytes, *, origin: Optional[Origin] = None,
                        report: Optional[BadInputReport] = None) -> list[LogRecord]:
    """Decode a :attr:`LogChunk.payload` (a protobuf ``ExportLogsServiceRequest``).

    Example:
        >>> decode_logs_payload(b"")
        []
    """
    return decode_logs(payload, PROTOBUF, origin=origin, report=report)


# ---------------------------------------------------------------------------
# Split by trace id (parse + group, no attribute decoding)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TraceChunk:
    """The spans of one trace from one request, as a serialized ``ExportTraceServiceRequest``.

    ``payload`` keeps each span's resource and scope; ``root_span_ids`` lists the spans
    that name no parent.

    Example:
        >>> TraceChunk("0af7" * 8, ("b7ad6b7169203331",), (), b"").root_span_ids
        ()
    """

    trace_id: str
    span_ids: tuple[str, ...]
    root_span_ids: tuple[str, ...]
    payload: bytes


@dataclass(frozen=True)
class SplitTraces:
    """A trace request split by trace id, with what was rejected (for ``partial_success``).

    Example:
        >>> SplitTraces(chunks=(), rejected_spans=2, error_message="invalid id: ...").rejected_spans
        2
    """

    chunks: tuple[TraceChunk, ...]
    rejected_spans: int = 0
    error_message: str = ""


@dataclass(frozen=True)
class LogChunk:
    """The log records of one trace (``trace_id`` ``""``: records with no trace) as a
    serialized ``ExportLogsServiceRequest``.

    Example:
        >>> LogChunk("", b"").trace_id
        ''
    """

    trace_id: str
    payload: bytes


@dataclass(frozen=True)
class SplitLogs:
    """A logs request split by trace id, with what was rejected (for ``partial_success``).

    Example:
        >>> SplitLogs(chunks=()).rejected
        0
    """

    chunks: tuple[LogChunk, ...]
    rejected: int = 0
    error_message: str = ""


_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


# Wire tags of the length-delimited fields used below: field 1, 2 and 3.
_TAG1, _TAG2, _TAG3 = b"\x0a", b"\x12", b"\x1a"


def _add_field(parts: list, tag: bytes, payload: bytes) -> int:
    """Append a length-delimited field to ``parts``; return its encoded size."""
    length = encode_varint(len(payload))
    parts.append(tag)
    parts.append(length)
    parts.append(payload)
    return 1 + len(length) + len(payload)


def _encode_batches(entries: list, outer: list, inner: list) -> bytes:
    """Serialize ``[(outer index, inner index, record bytes)]`` (in input order) as a request.

    ``outer[i] = (resource bytes, schema url bytes)``; ``inner[i][j] = (scope bytes, schema
    url bytes)``. Records of the same (outer, inner) batch are contiguous in ``entries``.
    The pieces are collected in one list and joined once (no nested copies).
    """
    request_parts: list = []
    index = 0
    count = len(entries)
    while index < count:
        outer_index = entries[index][0]
        resource, outer_schema = outer[outer_index]
        outer_parts: list = []
        outer_size = _add_field(outer_parts, _TAG1, resource) if resource else 0
        while index < count and entries[index][0] == outer_index:
            inner_index = entries[index][1]
            scope, inner_schema = inner[outer_index][inner_index]
            inner_parts: list = []
            inner_size = _add_field(inner_parts, _TAG1, scope) if scope else 0
            while index < count and entries[index][0] == outer_index and entries[index][1] == inner_index:
                inner_size += _add_field(inner_parts, _TAG2, entries[index][2])
                index += 1
            if inner_schema:
                inner_size += _add_field(inner_parts, _TAG3, inner_schema)
            length = encode_varint(inner_size)
            outer_parts.append(_TAG2)
            outer_parts.append(length)
            outer_parts.extend(inner_parts)
            outer_size += 1 + len(length) + inner_size
        if outer_schema:
            outer_size += _add_field(outer_parts, _TAG3, outer_schema)
        request_parts.append(_TAG1)
        request_parts.append(encode_varint(outer_size))
        request_parts.extend(outer_parts)
    return b"".join(request_parts)


#: How ``partial_success.error_message`` says a reason that it does not detail.
_PROBLEM_TEXT = {INVALID_UTF8: "invalid UTF-8 in string values was replaced with U+FFFD"}


def _problem_message(problems: list) -> str:
    counts: dict = {}
    for reason, detail in problems:
        key = f"{reason}: {detail}" if reason in (INVALID_ID, MALFORMED_RECORD) else _PROBLEM_TEXT.get(reason, reason)
        counts[key] = counts.get(key, 0) + 1
    parts = [f"{key} (x{n})" if n > 1 else key for key, n in list(counts.items())[:5]]
    if len(counts) > 5:
        parts.append(f"... {len(counts) - 5} more kinds")
    return "; ".join(parts)


def _count_rejected(problems: list) -> int:
    return sum(1 for reason, _ in problems if reason in (INVALID_ID, MALFORMED_RECORD))


def _group_spans(request: ExportTraceServiceRequest, problems: list) -> tuple:
    groups: dict = {}
    outer: list = []
    inner: list = []
    for outer_index, resource_spans in enumerate(request.resource_spans):
        outer.append((resource_spans.resource.SerializeToString(), resource_spans.schema_url.encode()))
        scopes: list = []
        inner.append(scopes)
        for inner_index, scope_spans in enumerate(resource_spans.scope_spans):
            scopes.append((scope_spans.scope.SerializeToString(), scope_spans.schema_url.encode()))
            for span in scope_spans.spans:
                trace_id, span_id, parent_id = span.trace_id, span.span_id, span.parent_span_id
                if not (len(trace_id) == 16 and len(span_id) == 8 and len(parent_id) in (0, 8)
                        and trace_id != _ZERO_TRACE and span_id != _ZERO_SPAN):
                    problems.append((INVALID_ID, span_id_problem(trace_id, span_id, parent_id)))
                    continue
                group = groups.get(trace_id)
                if group is None:
                    group = groups[trace_id] = ([], [], [])
                group[0].append((outer_index, inner_index, span.SerializeToString()))
                span_hex = span_id.hex()
                group[1].append(span_hex)
                if not parent_id:
                    group[2].append(span_hex)
    chunks = tuple(
        TraceChunk(trace_id.hex(), tuple(span_ids), tuple(roots), _encode_batches(entries, outer, inner))
        for trace_id, (entries, span_ids, roots) in groups.items()
    )
    return chunks


def split_traces(body: bytes, fmt: str) -> SplitTraces:
    """Group the spans of an ``ExportTraceServiceRequest`` body by trace id.

    Only parses and groups (attributes are not decoded). JSON bodies are converted to
    protobuf payloads. Spans with invalid ids are rejected and counted.

    Raises:
        DecodeError: The body cannot be decoded at all.

    Example:
        >>> body = (b'{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name",'
        ...   b'"value":{"stringValue":"agent"}}]},"scopeSpans":[{"spans":['
        ...   b'{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331"},'
        ...   b'{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7",'
        ...   b'"parentSpanId":"b7ad6b7169203331"},{"traceId":"short","spanId":"00f067aa0ba902b7"}]}]}]}')
        >>> split = split_traces(body, "json")
        >>> len(split.chunks), split.chunks[0].span_ids, split.rejected_spans
        (1, ('b7ad6b7169203331', '00f067aa0ba902b7'), 1)
        >>> split.error_message
        "invalid id: trace id 'short' is not 16 bytes of hex"
        >>> decode_payload(split.chunks[0].payload)[1].resource
        {'service.name': 'agent'}
    """
    problems: list = []
    if normalize_format(fmt) == PROTOBUF:
        request = parse_trace_request(body, problems)
    else:
        try:
            request, converted = traces_json_to_pb(parse_json(body, problems))
            problems += converted
        except (BadValue, TypeError, AttributeError, ValueError) as exc:
            raise DecodeError(f"not an OTLP trace request: {exc}") from None
    chunks = _group_spans(request, problems)
    return SplitTraces(chunks, _count_rejected(problems), _problem_message(problems))


def _group_logs(request: ExportLogsServiceRequest, problems: list) -> tuple:
    groups: dict = {}
    outer: list = []
    inner: list = []
    for outer_index, resource_logs in enumerate(request.resource_logs):
        outer.append((resource_logs.resource.SerializeToString(), resource_logs.schema_url.encode()))
        scopes: list = []
        inner.append(scopes)
        for inner_index, scope_logs in enumerate(resource_logs.scope_logs):
            scopes.append((scope_logs.scope.SerializeToString(), scope_logs.schema_url.encode()))
            for log in scope_logs.log_records:
                trace_id = log.trace_id
                problem = log_id_problem(trace_id, log.span_id)
                if problem:
                    problems.append((INVALID_ID, problem))
                    continue
                groups.setdefault(trace_id, []).append((outer_index, inner_index, log.SerializeToString()))
    return tuple(
        LogChunk(trace_id.hex(), _encode_batches(entries, outer, inner)) for trace_id, entries in groups.items()
    )


def split_logs(body: bytes, fmt: str) -> SplitLogs:
    """Group the records of an ``ExportLogsServiceRequest`` body by trace id.

    Records without a trace id form one chunk with ``trace_id == ""``. Records with an
    invalid id are rejected and counted. Raises DecodeError for an undecodable body.

    Example:
        >>> body = (b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"a"},'
        ...   b'{"eventName":"b","traceId":"0af7651916cd43dd8448eb211c80319c"}]}]}]}')
        >>> split = split_logs(body, "json")
        >>> [(c.trace_id[:4], [r.event_name for r in decode_logs_payload(c.payload)])
        ...  for c in split.chunks]
        [('', ['a']), ('0af7', ['b'])]
    """
    problems: list = []
    if normalize_format(fmt) == PROTOBUF:
        request = parse_logs_request(body, problems)
    else:
        try:
            request, converted = logs_json_to_pb(parse_json(body, problems))
            problems += converted
        except (BadValue, TypeError, AttributeError, ValueError) as exc:
            raise DecodeError(f"not an OTLP logs request: {exc}") from None
    chunks = _group_logs(request, problems)
    return SplitLogs(chunks, _count_rejected(problems), _problem_message(problems))
