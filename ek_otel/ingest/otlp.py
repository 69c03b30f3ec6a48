"""OTLP request bodies (protobuf or JSON, traces or logs) -> records: the one decoder.

:func:`decode` serves every way in: the dump readers (one JSON line, frame or file at a
time, ``strict=False``: bad input is reported and reading goes on) and the receivers
(one request, or one stored per-trace payload, ``strict=True``: a body that cannot be
decoded raises :class:`~ek_otel.errors.DecodeError`, a permanent error: HTTP 400). The
format and the signal are given, or read from the content
(:mod:`~ek_otel.ingest.formats`). Splitting a request by trace id without decoding it is
:mod:`~ek_otel.ingest.split`'s job.

Inside a decodable request, a span with an invalid id is skipped (and counted as
rejected), an attribute of an unexpected type is dropped, and an ``AnyValue`` nested deeper
than :data:`~ek_otel.ingest.anyvalue.MAX_DEPTH` is replaced by
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
    >>> [s.name for s in decode(body, "json", signal="traces")]
    ['chat']
    >>> [s.name for s in decode(body)]  # format and signal read from the content
    ['chat']
"""

from __future__ import annotations

import json as _json
from typing import Any, Callable, Iterable, Iterator, Optional, Union

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ..core.text import LONE_SURROGATE
from ..errors import DecodeError
from .anyvalue import BadValue
from .bad_input import (
    BAD_REQUEST,
    INVALID_JSON,
    INVALID_UTF8,
    UNDECODABLE_PROTOBUF,
    BadInputReport,
    report_issues,
)
from .formats import (AUTO, JSON, LOGS, PROTOBUF, SNIFF_BYTES, TRACES, as_otlp_json, content_kind,
                      is_logs_protobuf, normalize_format)
from .otlp_json import cap_json_nesting, logs_from_json, spans_from_json
from .otlp_pb import cap_deep_values, is_depth_error, logs_from_request, repair_utf8, spans_from_request
from .records import LogRecord, Origin, SpanRecord

try:  # orjson is about 2x faster than json on OTLP bodies
    import orjson as _orjson

    _json_loads: Callable[[Any], Any] = _orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency, json is the fallback
    _json_loads = _json.loads

__all__ = [
    "Record",
    "BodyDecodeError",
    "parse_json",
    "parse_trace_request",
    "parse_logs_request",
    "decode",
]

Record = Union[SpanRecord, LogRecord]


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


_LONE_SURROGATE = LONE_SURROGATE


def _without_lone_surrogates(body: Any) -> Optional[tuple]:
    """``(the value of body with each lone surrogate, escaped as ``\\ud800``, replaced by
    U+FFFD, detail)``, or None when the stdlib cannot parse it either. The stdlib reads such
    escapes, orjson refuses them; no writer can encode them (they are not UTF-8)."""
    try:
        value = _json.loads(bytes(body) if isinstance(body, (bytearray, memoryview)) else body)
    except (ValueError, RecursionError, TypeError):
        return None
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            if any(_LONE_SURROGATE.search(key) for key in item):
                pairs = [(_LONE_SURROGATE.subn("\ufffd", k), v) for k, v in item.items()]
                count += sum(n for (_, n), _ in pairs)
                item.clear()
                item.update((k, v) for (k, _), v in pairs)
            children = item.items()
        elif type(item) is list:
            children = enumerate(item)
        else:  # the document itself may be a scalar
            continue
        for key, child in children:  # replacing a value in place: the size never changes
            if type(child) is str:
                fixed, n = _LONE_SURROGATE.subn("\ufffd", child)
                if n:
                    item[key], count = fixed, count + n
            elif type(child) is list or type(child) is dict:
                stack.append(child)
    if count == 0:
        return None
    plural = "s" if count != 1 else ""
    return value, f"{count} lone surrogate escape{plural} replaced with U+FFFD"


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
        >>> issues = []
        >>> parse_json(b'{"name": "a\\\\ud800"}', issues), issues
        ({'name': 'a\ufffd'}, [('invalid UTF-8', '1 lone surrogate escape replaced with U+FFFD')])
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
        if "surrogate" in str(exc):
            repaired_value = _without_lone_surrogates(body)
            if repaired_value is not None:
                if issues is not None:
                    issues.append((INVALID_UTF8, repaired_value[1]))
                return repaired_value[0]
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


# ---------------------------------------------------------------------------
# The decoder
# ---------------------------------------------------------------------------

#: signal -> (protobuf parser, protobuf walker, JSON walker, what an error calls a
#: request).
_SIGNALS = {
    TRACES: (parse_trace_request, spans_from_request, spans_from_json, "trace"),
    LOGS: (parse_logs_request, logs_from_request, logs_from_json, "logs"),
}
_WALK_ERRORS = (BadValue, TypeError, AttributeError)
#: Top-level keys of the OTLP JSON requests of other signals (skipped without a word).
_OTHER_SIGNAL_KEYS = ("resourceMetrics", "resource_metrics", "resourceProfiles")


def decode(
    body: bytes,
    fmt: str = AUTO,
    *,
    signal: str = AUTO,
    origin: Optional[Origin] = None,
    report: Optional[BadInputReport] = None,
    strict: bool = True,
    shard: Any = None,
) -> Iterable[Record]:
    """Decode one OTLP request body into :class:`SpanRecord` and :class:`LogRecord`.

    Args:
        body: The (decompressed) body: one request, or (JSON, ``signal="auto"``) a JSON
            array of requests.
        fmt: ``"protobuf"`` or ``"json"`` (a content type works too), or ``"auto"``: read
            from the first bytes (:func:`~ek_otel.ingest.formats.content_kind`).
        signal: ``"traces"`` or ``"logs"``, or ``"auto"``: read from the content (the
            wire for protobuf; for JSON, each request's ``resourceSpans`` and
            ``resourceLogs``; requests of other signals, metrics or profiles, give nothing).
        origin: Stamped on every record and report case (file and line, or the request).
        report: Where skipped records, dropped attributes, cut and repaired values go.
        strict: True (the receivers): returns a list, and a body that cannot be decoded
            at all raises DecodeError. False (the dump readers): returns an iterator that
            decodes as it is read; such a body is reported (``invalid JSON``,
            ``undecodable protobuf``, ``not an OTLP request``) and gives no records (a
            request of the wrong shape: those before the problem).
        shard: A :class:`~ek_otel.ingest.shard.Shard` (one of several processes reading the
            same dump; ``report`` is then the shard): the records of other shards' traces
            are read light (ids, parent, resource and scope, no attribute walk), and the
            shard's clock ticks at the body, each batch and each record. None: every record
            in full.

    Raises:
        DecodeError: ``strict`` and the body cannot be decoded; or an unknown ``fmt``.

    Example:
        >>> decode(b"\\x0a\\x02\\x12", "protobuf", signal="traces")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: undecodable protobuf ExportTraceServiceRequest: ...
        >>> r = BadInputReport()
        >>> list(decode(b"\\x0a\\x05\\x12", origin=Origin("d.bin", 1), report=r, strict=False)), r.counts
        ([], {'undecodable protobuf': 1})
        >>> str(r.cases[0])  # the reason is said once
        "d.bin:1: undecodable protobuf: ExportTraceServiceRequest: Error parsing message ..."
        >>> body = (b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":'
        ...         b'[{"key":"event.name","value":{"stringValue":"gen_ai.choice"}}]}]}]}]}')
        >>> [r.event_name for r in decode(body, "application/json", signal="logs")]
        ['gen_ai.choice']
    """
    if fmt != AUTO:
        fmt = normalize_format(fmt)
    if signal != AUTO and signal not in _SIGNALS:
        raise DecodeError(f"unknown OTLP signal {signal!r} (expected traces or logs)")
    records = _records(body, fmt, signal, origin, report, strict, shard)
    return list(records) if strict else records


def _problem(reason: str, detail: str, origin: Optional[Origin], report: Optional[BadInputReport],
             strict: bool, message: str = "") -> None:
    """Raise DecodeError (``strict``), or report ``reason: detail`` and let reading go on."""
    if strict:
        raise DecodeError(message or detail)
    if report is not None:
        report.add(reason, detail, origin)


def _detail(exc: DecodeError) -> str:
    """The error without its reason in front (the report names the reason itself)."""
    return exc.detail if isinstance(exc, BodyDecodeError) else str(exc)


def _records(body: bytes, fmt: str, signal: str, origin: Optional[Origin],
             report: Optional[BadInputReport], strict: bool, shard: Any = None) -> Iterator[Record]:
    if shard is not None:
        shard.unit()
    if fmt == AUTO:
        fmt = JSON if content_kind(body[:SNIFF_BYTES]) == JSON else PROTOBUF
    if fmt == PROTOBUF:
        if signal == AUTO:
            signal = LOGS if is_logs_protobuf(body) else TRACES
        parse, reason = _SIGNALS[signal][0], UNDECODABLE_PROTOBUF
    else:
        parse, reason = parse_json, INVALID_JSON
    issues: list = []  # values too deep for the parser, strings of invalid UTF-8: cut or repaired
    try:
        parsed = parse(body, issues)
    except DecodeError as exc:
        if strict:
            raise
        _problem(reason, _detail(exc), origin, report, False)
        return
    report_issues(report, issues, origin)
    if fmt == PROTOBUF:
        yield from _SIGNALS[signal][1](parsed, origin, report, shard)
        return
    if signal != LOGS and (type(parsed) is not dict or "resourceSpans" not in parsed):
        parsed = as_otlp_json(parsed)  # Jaeger and Tempo trace JSON (found from the content)
    if signal != AUTO:
        yield from _json_request(parsed, (signal,), origin, report, strict, shard)
        return
    for request in parsed if isinstance(parsed, list) else (parsed,):
        if not isinstance(request, dict):
            if shard is not None:
                shard.unit()
            _problem(BAD_REQUEST, f"a JSON {type(request).__name__}, not a request object", origin, report, strict)
            continue
        signals = _json_signals(request)
        if signals:
            yield from _json_request(request, signals, origin, report, strict, shard)
        elif not any(key.startswith(_OTHER_SIGNAL_KEYS) for key in request):
            if shard is not None:
                shard.unit()
            _problem(BAD_REQUEST, "no resourceSpans or resourceLogs", origin, report, strict)


def _json_signals(request: dict) -> tuple:
    """The signals a parsed OTLP-JSON request holds, traces first."""
    signals: tuple = ()
    if "resourceSpans" in request or "resource_spans" in request:
        signals += (TRACES,)
    if "resourceLogs" in request or "resource_logs" in request:
        signals += (LOGS,)
    return signals


def _json_request(request: Any, signals: tuple, origin: Optional[Origin],
                  report: Optional[BadInputReport], strict: bool, shard: Any = None) -> Iterator[Record]:
    """The records of one parsed JSON request, signal by signal; a request of the wrong
    shape stops it (reported, or DecodeError when ``strict``)."""
    signal = signals[0]
    try:
        for signal in signals:
            yield from _SIGNALS[signal][2](request, origin, report, shard)
    except _WALK_ERRORS as exc:
        if shard is not None:
            shard.unit()
        _problem(BAD_REQUEST, str(exc), origin, report, strict,
                 f"not an OTLP {_SIGNALS[signal][3]} request: {exc}")
