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


# -- message_dict: protobuf's own JSON mapping, faster -------------------------------------------

from pathlib import Path  # noqa: E402

from google.protobuf import struct_pb2  # noqa: E402
from google.protobuf.json_format import MessageToDict, ParseDict  # noqa: E402
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from ek_otel.emit.otlp_json import message_dict  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "corpus"


def _reference(message) -> str:
    """What the score files held before ``message_dict``: ``MessageToDict`` (integer enums),
    then the ids of spans, links and log records turned from base64 to hex."""
    import base64

    data = MessageToDict(message, use_integers_for_enums=True)
    records = [span for rs in data.get("resourceSpans", ()) for ss in rs.get("scopeSpans", ())
               for span in ss.get("spans", ())]
    records += [link for span in records for link in span.get("links", ())]
    records += [r for rl in data.get("resourceLogs", ()) for sl in rl.get("scopeLogs", ())
                for r in sl.get("logRecords", ())]
    for record in records:
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in record:
                record[key] = base64.b64decode(record[key]).hex()
    return json.dumps(data, separators=(",", ":"))


def _ours(message) -> str:
    return json.dumps(message_dict(message), separators=(",", ":"))


EVERY_VALUE = [
    {"key": "s", "value": {"stringValue": "Zürich ✓ \u2028"}}, {"key": "empty", "value": {"stringValue": ""}},
    {"key": "no-value"}, {"value": {"intValue": "1"}}, {"key": "unset", "value": {}},
    {"key": "t", "value": {"boolValue": True}}, {"key": "f", "value": {"boolValue": False}},
    {"key": "zero", "value": {"intValue": "0"}}, {"key": "neg", "value": {"intValue": "-9223372036854775808"}},
    {"key": "big", "value": {"intValue": "9223372036854775807"}},
    *({"key": f"d{i}", "value": {"doubleValue": v}}
      for i, v in enumerate((0.0, -0.0, 1.5, 1e300, 1e-7, 0.1, "Infinity", "-Infinity", "NaN", 12345678.0))),
    {"key": "b", "value": {"bytesValue": "AP8="}}, {"key": "b0", "value": {"bytesValue": ""}},
    {"key": "a0", "value": {"arrayValue": {}}},
    {"key": "a", "value": {"arrayValue": {"values": [{"intValue": "2"}, {}, {"arrayValue": {"values": [
        {"kvlistValue": {"values": [{"key": "k", "value": {"doubleValue": 2.5}}]}}]}}]}}},
    {"key": "kv0", "value": {"kvlistValue": {}}},
    {"key": "kv", "value": {"kvlistValue": {"values": [{"key": "x", "value": {"boolValue": False}}, {"key": "y"}]}}},
]
TRACE_ID, SPAN_ID = "AAECAwQFBgcICQoLDA0ODw==", "AQIDBAUGBwg="


def test_message_dict_writes_what_message_to_dict_writes_for_every_field_and_value():
    trace = ParseDict({"resourceSpans": [
        {"resource": {"attributes": EVERY_VALUE, "droppedAttributesCount": 3}, "schemaUrl": "https://s"},
        {"resource": {}, "scopeSpans": [
            {"scope": {"name": "sc", "version": "1", "attributes": EVERY_VALUE[:3], "droppedAttributesCount": 1},
             "schemaUrl": "u", "spans": [
                {"traceId": TRACE_ID, "spanId": SPAN_ID, "parentSpanId": SPAN_ID, "traceState": "a=b",
                 "flags": 257, "name": "n", "kind": 3, "startTimeUnixNano": "1764460800000000001",
                 "endTimeUnixNano": "18446744073709551615", "attributes": EVERY_VALUE,
                 "droppedAttributesCount": 2, "droppedEventsCount": 1, "droppedLinksCount": 4,
                 "events": [{"timeUnixNano": "5", "name": "e", "attributes": EVERY_VALUE[5:9]}, {}],
                 "links": [{"traceId": TRACE_ID, "spanId": SPAN_ID, "traceState": "x", "flags": 1,
                            "attributes": EVERY_VALUE[:2], "droppedAttributesCount": 7}, {}],
                 "status": {"message": "boom", "code": 2}},
                {}, {"status": {}, "kind": 0}]},
            {}]}]}, ExportTraceServiceRequest())
    logs = ParseDict({"resourceLogs": [{"resource": {"attributes": EVERY_VALUE[:4]}, "scopeLogs": [
        {"scope": {"name": "l"}, "logRecords": [
            {"timeUnixNano": "1", "observedTimeUnixNano": "2", "severityNumber": 9, "severityText": "INFO",
             "body": {"kvlistValue": {"values": EVERY_VALUE}}, "attributes": EVERY_VALUE,
             "droppedAttributesCount": 1, "flags": 1, "traceId": TRACE_ID, "spanId": SPAN_ID,
             "eventName": "gen_ai.evaluation.result"},
            {"body": {}}, {}]}]}]}, ExportLogsServiceRequest())
    for message in (trace, logs, ExportTraceServiceRequest(), ExportLogsServiceRequest()):
        assert _ours(message) == _reference(message)
    assert '"spanId":"0102030405060708"' in _ours(trace) and '"bytesValue":"AP8="' in _ours(trace)
    assert '"doubleValue":"NaN"' in _ours(trace) and '"intValue":"-9223372036854775808"' in _ours(trace)


def test_message_dict_agrees_on_the_real_sdk_exports_of_the_corpus():
    checked = 0
    for folder in sorted(CORPUS.iterdir()):
        for name, kind in (("traces.pb", ExportTraceServiceRequest), ("logs.pb", ExportLogsServiceRequest)):
            path = folder / name
            if path.is_file() and path.stat().st_size:
                message = kind.FromString(path.read_bytes())
                assert _ours(message) == _reference(message), path
                checked += 1
    assert checked >= 100


def test_message_dict_agrees_on_written_scores_and_leaves_other_types_to_the_library():
    spans = encode_spans(ENVELOPES, phoenix=True)
    assert _ours(encode_pb_spans(spans)) == _reference(encode_pb_spans(spans))
    records = encode_log_records(ENVELOPES)
    assert _ours(encode_logs(records)) == _reference(encode_logs(records))
    struct = ParseDict({"a": [1, "x", None, {"b": True}]}, struct_pb2.Struct())
    assert message_dict(struct) == MessageToDict(struct) == {"a": [1.0, "x", None, {"b": True}]}


def test_a_message_with_a_map_field_is_written_by_the_library_with_hex_ids():
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    file = descriptor_pb2.FileDescriptorProto(name="ek_test_map.proto", package="opentelemetry.proto.trace.v1",
                                              syntax="proto3")
    span = file.message_type.add(name="Span")  # a Span of another pool, with a map field
    span.field.add(name="trace_id", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                   label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    entry = span.nested_type.add(name="TagsEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    span.field.add(name="tags", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                   type_name=".opentelemetry.proto.trace.v1.Span.TagsEntry",
                   label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("opentelemetry.proto.trace.v1.Span"))
    message = cls(trace_id=b"\x01\x02", tags={"a": 5})
    assert message_dict(message) == {"traceId": "0102", "tags": {"a": "5"}}
