"""Formats and signals: the one content-type table, and what the content says."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ek_otel.errors import DecodeError
from ek_otel.ingest.formats import (
    UnsupportedMediaType,
    content_kind,
    format_of_content_type,
    is_logs_protobuf,
    normalize_format,
)


def test_content_types():
    assert format_of_content_type("application/x-protobuf") == "protobuf"
    assert format_of_content_type("application/protobuf") == "protobuf"
    assert format_of_content_type("Application/JSON; charset=utf-8") == "json"
    for bad in (None, "", "text/plain", "application/grpc", "json", "pb"):
        with pytest.raises(UnsupportedMediaType, match="unsupported content type"):
            format_of_content_type(bad)


def test_format_names_and_content_types_normalize_alike():
    for name in ("protobuf", "proto", "PB", "application/x-protobuf", "application/protobuf; x=1"):
        assert normalize_format(name) == "protobuf"
    for name in ("json", "JSON", "application/json; charset=utf-8"):
        assert normalize_format(name) == "json"
    with pytest.raises(DecodeError, match="unknown OTLP format 'text/plain'"):
        normalize_format("text/plain")


def test_the_signal_of_a_protobuf_body_is_read_from_the_wire():
    traces = ExportTraceServiceRequest()
    traces.resource_spans.add().scope_spans.add().spans.add(trace_id=b"\x01" * 16, span_id=b"\x02" * 8)
    logs = ExportLogsServiceRequest()
    logs.resource_logs.add().scope_logs.add().log_records.add(time_unix_nano=5, trace_id=b"\x01" * 16)
    assert is_logs_protobuf(logs.SerializeToString())
    assert not is_logs_protobuf(traces.SerializeToString())
    assert not is_logs_protobuf(b"\x0a\x05\x12")  # cut short: traces, the parser says why
    assert content_kind(traces.SerializeToString()) == "protobuf"
