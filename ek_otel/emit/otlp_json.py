"""SDK spans and log records → OTLP JSON requests (the form of an OTLP JSON Lines file).

The protobuf requests come from the SDK's own encoders (``opentelemetry-exporter-otlp-proto-common``),
so the file holds exactly what the OTLP exporters would send. They are then written in the
OTLP JSON encoding: lowerCamelCase keys, int64 as strings, enums as integers, and trace/span
ids as **hex** (protobuf's generic JSON mapping would write them as base64, which OTLP forbids).

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
from collections.abc import Sequence

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_trace_request

__all__ = ["trace_request_json", "logs_request_json", "request_lines"]

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def _hex_ids(record: dict) -> None:
    for key in _ID_KEYS:
        if key in record:
            record[key] = base64.b64decode(record[key]).hex()
    for link in record.get("links", ()):
        _hex_ids(link)


def _to_dict(message) -> dict:
    return MessageToDict(message, use_integers_for_enums=True)


def trace_request_json(spans: Sequence) -> dict:
    """An OTLP JSON ``ExportTraceServiceRequest`` (as a dict) holding SDK ``spans``.

    Example:
        >>> trace_request_json([])
        {}
    """
    data = _to_dict(encode_trace_request(spans))
    for resource_spans in data.get("resourceSpans", ()):
        for scope_spans in resource_spans.get("scopeSpans", ()):
            for span in scope_spans.get("spans", ()):
                _hex_ids(span)
    return data


def logs_request_json(records: Sequence) -> dict:
    """An OTLP JSON ``ExportLogsServiceRequest`` (as a dict) holding SDK log ``records``.

    Example:
        >>> logs_request_json([])
        {}
    """
    data = _to_dict(encode_logs(records))
    for resource_logs in data.get("resourceLogs", ()):
        for scope_logs in resource_logs.get("scopeLogs", ()):
            for record in scope_logs.get("logRecords", ()):
                _hex_ids(record)
    return data


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
