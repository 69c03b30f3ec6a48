"""The OTLP JSON written to score files: hex ids, string int64s, and the same records as the
official OTLP JSON encoder and as the protobuf the OTLP exporters send."""

from __future__ import annotations

import json

import pytest
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_pb_spans

from ek_otel.core.scores import EpisodeScore
from ek_otel.emit.encode import encode_log_records, encode_spans
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.otlp_json import logs_request_json, request_lines, trace_request_json
from ek_otel.ingest.otlp import decode

ENVELOPES = [
    ScoreEnvelope(f"{i + 1:032x}", f"{i + 10:016x}", f"t{i}",
                  EpisodeScore(f"t{i}", f1=i / 3, success=i == 3, dollars=None if i else 0.5),
                  ScoreProvenance("0.1.0", "aa" * 32, {"level": "arg"}), revision=i,
                  scored_at_ns=1_764_460_800_000_000_000 + i)
    for i in range(4)
]


def _comparable(records):
    return sorted(
        (r.trace_id, r.span_id, getattr(r, "parent_span_id", ""), getattr(r, "name", ""),
         getattr(r, "event_name", ""), json.dumps(dict(r.attributes), sort_keys=True, default=str),
         getattr(r, "start_ns", getattr(r, "time_ns", 0)),
         tuple((link.trace_id, link.span_id) for link in getattr(r, "links", ())))
        for r in records
    )


def test_json_conventions():
    spans = encode_spans(ENVELOPES, phoenix=True)
    data = trace_request_json(spans)
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert span["traceId"] == f"{1:032x}" and span["parentSpanId"] == f"{10:016x}"
    assert len(span["spanId"]) == 16 and int(span["spanId"], 16)
    assert span["startTimeUnixNano"] == "1764460800000000000"
    assert span["kind"] == 1  # enums as integers
    revision = next(a for a in span["attributes"] if a["key"] == "ek.revision")
    assert revision["value"] == {"intValue": "0"}  # int64 as a string
    linked = [s for s in data["resourceSpans"][0]["scopeSpans"][0]["spans"] if s.get("links")]
    assert linked[0]["links"][0]["spanId"] == f"{10:016x}"
    log = logs_request_json(encode_log_records(ENVELOPES))["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]
    assert log["eventName"] == "gen_ai.evaluation.result"
    assert (log["traceId"], log["spanId"]) == (f"{1:032x}", f"{10:016x}")


def test_json_lines_decode_to_the_same_records_as_the_protobuf_the_exporters_send():
    spans = encode_spans(ENVELOPES, phoenix=True)
    records = encode_log_records(ENVELOPES)
    traces_line, logs_line = request_lines(spans, records)
    from_json = decode(traces_line.encode(), "json", signal="traces")
    from_pb = decode(encode_pb_spans(spans).SerializeToString(), "protobuf", signal="traces")
    assert len(from_json) == 8
    assert _comparable(from_json) == _comparable(from_pb)
    logs_json = decode(logs_line.encode(), "json", signal="logs")
    logs_pb = decode(encode_logs(records).SerializeToString(), "protobuf", signal="logs")
    assert len(logs_json) == 4
    assert _comparable(logs_json) == _comparable(logs_pb)


def test_json_agrees_with_the_official_otlp_json_encoder():
    official = pytest.importorskip("opentelemetry.exporter.otlp.json.common.trace_encoder")
    official_logs = pytest.importorskip("opentelemetry.exporter.otlp.json.common._log_encoder")
    spans = encode_spans(ENVELOPES, phoenix=True)
    records = encode_log_records(ENVELOPES)
    ours = decode(json.dumps(trace_request_json(spans)).encode(), "json", signal="traces")
    theirs = decode(official.encode_spans(spans).to_json().encode(), "json", signal="traces")
    assert _comparable(ours) == _comparable(theirs)
    ours_logs = decode(json.dumps(logs_request_json(records)).encode(), "json", signal="logs")
    theirs_logs = decode(official_logs.encode_logs(records).to_json().encode(), "json", signal="logs")
    assert _comparable(ours_logs) == _comparable(theirs_logs)
