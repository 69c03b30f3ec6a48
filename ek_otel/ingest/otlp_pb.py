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

from .anyvalue import attributes_from_pb, value_from_pb
from .bad_input import INVALID_ID, BadInputReport
from .otlp_records import span_record
from .records import LogRecord, Origin, SpanEvent, SpanLink, SpanRecord

__all__ = ["spans_from_request", "logs_from_request", "span_id_problem", "log_id_problem"]

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
