"""OTLP request bodies -> per-trace protobuf payloads, without decoding attributes.

The live receiver stores each trace's part of a request apart, and decodes it only when
the trace closes (:func:`~ek_otel.ingest.otlp.decode` with ``fmt="protobuf"``). So
:func:`split_traces` / :func:`split_logs` only parse and group by trace id: each trace's
records become a small serialized request that keeps their resource and scope, and no
Python object is built for an attribute. JSON bodies are converted to protobuf payloads.
Records with invalid ids are left out and counted (for ``partial_success``); a body that
cannot be decoded at all raises :class:`~ek_otel.errors.DecodeError`.

Example:
    >>> body = (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c",'
    ...         b'"spanId":"b7ad6b7169203331","name":"chat"}]}]}]}')
    >>> from ek_otel.ingest.otlp import decode
    >>> chunk = split_traces(body, "json").chunks[0]
    >>> chunk.trace_id, chunk.root_span_ids, [s.name for s in decode(chunk.payload, "protobuf", signal="traces")]
    ('0af7651916cd43dd8448eb211c80319c', ('b7ad6b7169203331',), ['chat'])
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError
from .anyvalue import BadValue
from .bad_input import INVALID_ID, INVALID_UTF8, MALFORMED_RECORD
from .formats import LOGS, PROTOBUF, TRACES, normalize_format
from .ids import log_ids_of, span_ids_of
from .otlp import parse_json, parse_logs_request, parse_trace_request
from .otlp_json import logs_json_to_pb, traces_json_to_pb
from .wire import encode_varint

__all__ = [
    "TraceChunk",
    "SplitTraces",
    "LogChunk",
    "SplitLogs",
    "split_traces",
    "split_logs",
]


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


def split_traces(body: bytes, fmt: str) -> SplitTraces:
    """Group the spans of an ``ExportTraceServiceRequest`` body by trace id.

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
        >>> from ek_otel.ingest.otlp import decode
        >>> decode(split.chunks[0].payload, "protobuf", signal="traces")[1].resource
        {'service.name': 'agent'}
    """
    groups, problems = _split(body, fmt, TRACES)
    chunks = []
    for trace_id, entries, payload in groups:
        span_ids = tuple([entry[3][1].hex() for entry in entries])
        roots = tuple([span_id for span_id, entry in zip(span_ids, entries) if not entry[3][2]])
        chunks.append(TraceChunk(trace_id.hex(), span_ids, roots, payload))
    return SplitTraces(tuple(chunks), _count_rejected(problems), _problem_message(problems))


def split_logs(body: bytes, fmt: str) -> SplitLogs:
    """Group the records of an ``ExportLogsServiceRequest`` body by trace id.

    Records without a trace id form one chunk with ``trace_id == ""``. Records with an
    invalid id are rejected and counted. Raises DecodeError for an undecodable body.

    Example:
        >>> body = (b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"a"},'
        ...   b'{"eventName":"b","traceId":"0af7651916cd43dd8448eb211c80319c"}]}]}]}')
        >>> from ek_otel.ingest.otlp import decode
        >>> split = split_logs(body, "json")
        >>> [(c.trace_id[:4], [r.event_name for r in decode(c.payload, "protobuf", signal="logs")])
        ...  for c in split.chunks]
        [('', ['a']), ('0af7', ['b'])]
    """
    groups, problems = _split(body, fmt, LOGS)
    chunks = tuple(LogChunk(trace_id.hex(), payload) for trace_id, _, payload in groups)
    return SplitLogs(chunks, _count_rejected(problems), _problem_message(problems))


# ---------------------------------------------------------------------------
# The one implementation
# ---------------------------------------------------------------------------


#: signal -> (protobuf parser, JSON converter, batches, scoped batches, records, record ->
#: its ids (the trace id first) or why they are invalid, what an error calls a request).
_SIGNALS = {
    TRACES: (parse_trace_request, traces_json_to_pb, "resource_spans", "scope_spans", "spans",
             span_ids_of, "trace"),
    LOGS: (parse_logs_request, logs_json_to_pb, "resource_logs", "scope_logs", "log_records",
           log_ids_of, "logs"),
}


def _split(body: bytes, fmt: str, signal: str) -> tuple:
    """``([(trace id bytes, [(batch, scope, record message, ids)], payload)], problems)``:
    the records of a request grouped by trace id in order of first appearance, each group
    serialized as a request of its own; ``problems`` lists ``(reason, detail)``."""
    parse, from_json, batches_field, scoped_field, records_field, ids_of, what = _SIGNALS[signal]
    problems: list = []
    if normalize_format(fmt) == PROTOBUF:
        request = parse(body, problems)
    else:
        try:
            request, converted = from_json(parse_json(body, problems))
            problems += converted
        except (BadValue, TypeError, AttributeError, ValueError) as exc:
            raise DecodeError(f"not an OTLP {what} request: {exc}") from None
    groups: dict = {}
    outer: list = []
    inner: list = []
    for outer_index, batch in enumerate(getattr(request, batches_field)):
        outer.append((batch.resource.SerializeToString(), batch.schema_url.encode()))
        scopes: list = []
        inner.append(scopes)
        for inner_index, scoped in enumerate(getattr(batch, scoped_field)):
            scopes.append((scoped.scope.SerializeToString(), scoped.schema_url.encode()))
            for record in getattr(scoped, records_field):
                ids = ids_of(record)
                if type(ids) is str:
                    problems.append((INVALID_ID, ids))
                    continue
                entries = groups.get(ids[0])
                if entries is None:
                    entries = groups[ids[0]] = []
                entries.append((outer_index, inner_index, record, ids))
    return [(trace_id, entries, _encode_batches(entries, outer, inner))
            for trace_id, entries in groups.items()], problems


# Wire tags of the length-delimited fields used below: field 1, 2 and 3.
_TAG1, _TAG2, _TAG3 = b"\x0a", b"\x12", b"\x1a"
# The one-byte varints (lengths below 128).
_ONE_BYTE = tuple(bytes((n,)) for n in range(0x80))


def _add_field(parts: list, tag: bytes, payload: bytes) -> int:
    """Append a length-delimited field to ``parts``; return its encoded size."""
    length = encode_varint(len(payload))
    parts.append(tag)
    parts.append(length)
    parts.append(payload)
    return 1 + len(length) + len(payload)


def _encode_batches(entries: list, outer: list, inner: list) -> bytes:
    """Serialize ``[(outer index, inner index, record message, ...)]`` (in input order) as
    a request.

    ``outer[i] = (resource bytes, schema url bytes)``; ``inner[i][j] = (scope bytes, schema
    url bytes)``. Records of the same (outer, inner) batch are contiguous in ``entries``.
    The pieces are collected in one list and joined once (no nested copies). The loop over
    records, run once per span, is written out (no call per field).
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
            add = inner_parts.extend
            while index < count:
                entry = entries[index]
                if entry[0] != outer_index or entry[1] != inner_index:
                    break
                record = entry[2].SerializeToString()
                size = len(record)
                length = (_ONE_BYTE[size] if size < 0x80
                          else bytes(((size & 0x7F) | 0x80, size >> 7)) if size < 0x4000
                          else encode_varint(size))
                add((_TAG2, length, record))
                inner_size += 1 + len(length) + size
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
