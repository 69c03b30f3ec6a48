"""OTLP bodies from the real SDK -> records; JSON quirks; split by trace; bad bodies."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1 import common_pb2

from ek_otel.errors import DecodeError, InputError
from ek_otel.ingest.anyvalue import DEPTH_MARKER, MAX_DEPTH
from ek_otel.ingest.bad_input import (
    BAD_ATTRIBUTE,
    DEEP_NESTING,
    INVALID_ID,
    INVALID_UTF8,
    MALFORMED_RECORD,
    BadInputReport,
)
from ek_otel.ingest.otlp import decode
from ek_otel.ingest.split import split_logs, split_traces
from ek_otel.ingest.records import Origin
from ek_otel.ingest.wire import encode_varint

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SPAN_ID = "b7ad6b7169203331"


def _span_json(**fields) -> dict:
    span = {"traceId": TRACE_ID, "spanId": SPAN_ID, "name": "chat"}
    span.update(fields)
    return span


def _traces_body(*spans, resource=None) -> bytes:
    batch = {"scopeSpans": [{"scope": {"name": "lib"}, "spans": list(spans)}]}
    if resource is not None:
        batch["resource"] = resource
    return json.dumps({"resourceSpans": [batch]}).encode()


# ---------------------------------------------------------------------------
# Real SDK output
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["protobuf", "json"])
def test_sdk_spans_decode_to_what_the_sdk_recorded(telemetry, sdk_ids, fmt):
    hex_trace, hex_span = sdk_ids
    body = telemetry.traces_pb() if fmt == "protobuf" else telemetry.traces_json().encode()
    records = {r.span_id: r for r in decode(body, fmt, origin=Origin("req"), signal="traces")}
    assert len(records) == len(telemetry.spans)
    for sdk_span in telemetry.spans:
        record = records[hex_span(sdk_span)]
        assert record.trace_id == hex_trace(sdk_span)
        assert record.parent_span_id == (format(sdk_span.parent.span_id, "016x") if sdk_span.parent else "")
        assert record.name == sdk_span.name
        assert record.kind == sdk_span.kind.value + 1  # the SDK enum is 0-based, OTLP's 1-based
        assert (record.start_ns, record.end_ns) == (sdk_span.start_time, sdk_span.end_time)
        expected = {k: list(v) if isinstance(v, tuple) else v for k, v in sdk_span.attributes.items()}
        assert dict(record.attributes) == expected
        assert record.status_code == {"UNSET": 0, "OK": 1, "ERROR": 2}[sdk_span.status.status_code.name]
        assert record.status_message == (sdk_span.status.description or "")
        assert [(e.name, dict(e.attributes)) for e in record.events] == [
            (e.name, dict(e.attributes)) for e in sdk_span.events
        ]
        assert [(l.trace_id, l.span_id, dict(l.attributes)) for l in record.links] == [
            (hex_trace(l), hex_span(l), dict(l.attributes)) for l in sdk_span.links
        ]
        assert record.resource["service.name"] == "weather-agent"
        assert (record.scope_name, record.scope_version) == ("ek-otel-tests", "0.1")
        assert record.origin == Origin("req")


def test_json_and_protobuf_decode_identically(telemetry):
    assert decode(telemetry.traces_json().encode(), "json", signal="traces") == decode(
        telemetry.traces_pb(), "protobuf", signal="traces"
    )
    assert decode(telemetry.logs_json().encode(), "application/json", signal="logs") == decode(
        telemetry.logs_pb(), "application/x-protobuf", signal="logs"
    )


@pytest.mark.parametrize("fmt", ["protobuf", "json"])
def test_sdk_logs_decode_with_event_names_bodies_and_ids(telemetry, fmt):
    body = telemetry.logs_pb() if fmt == "protobuf" else telemetry.logs_json().encode()
    records = decode(body, fmt, signal="logs")
    assert len(records) == len(telemetry.logs)
    choices = [r for r in records if r.event_name == "gen_ai.choice"]  # the event_name field
    orphans = [r for r in records if r.event_name == "ek.test.orphan"]  # the event.name attribute
    assert len(choices) == len(orphans) == 3
    assert {r.trace_id for r in choices} == telemetry.trace_ids()
    assert all(r.trace_id == "" and r.span_id == "" for r in orphans)
    assert orphans[0].body == b"\x00raw"
    assert choices[0].body["message"]["tool_calls"][0]["function"] == {"name": "get_weather"}
    assert choices[0].attributes == {"gen_ai.system": "openai"}


# ---------------------------------------------------------------------------
# OTLP JSON rules
# ---------------------------------------------------------------------------


def test_json_quirks_are_accepted():
    span = {
        "trace_id": TRACE_ID.upper(),  # snake_case key, upper-case hex
        "spanId": SPAN_ID,
        "parent_span_id": "00F067AA0BA902B7",
        "name": "chat",
        "kind": "SPAN_KIND_CLIENT",  # enum by name
        "start_time_unix_nano": 1700000000000000000,  # int64 as a number
        "endTimeUnixNano": "1700000000500000000",  # int64 as a string
        "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
        "attributes": [
            {"key": "i", "value": {"int_value": 7}},
            {"key": "d", "value": {"doubleValue": "Infinity"}},
            {"key": "b", "value": {"bytesValue": base64.b64encode(b"\xff\x00").decode()}},
            {"key": "kv", "value": {"kvlistValue": {"values": [{"key": "x", "value": {"boolValue": True}}]}}},
            {"key": "empty", "value": {}},
        ],
        "somethingNew": {"ignored": True},  # unknown field
    }
    (record,) = decode(_traces_body(span), "json", signal="traces")
    assert record.trace_id == TRACE_ID and record.parent_span_id == "00f067aa0ba902b7"
    assert (record.kind, record.status_code, record.status_message) == (3, 2, "boom")
    assert (record.start_ns, record.duration_s) == (1700000000000000000, 0.5)
    assert record.attributes == {"i": 7, "d": float("inf"), "b": b"\xff\x00", "kv": {"x": True}, "empty": None}


def test_json_log_event_name_field_wins_over_attribute():
    body = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{
        "eventName": "gen_ai.choice", "severityNumber": 9, "timeUnixNano": "3",
        "attributes": [{"key": "event.name", "value": {"stringValue": "other"}}]}]}]}]}
    (record,) = decode(json.dumps(body).encode(), "json", signal="logs")
    assert (record.event_name, record.severity_number, record.time_ns) == ("gen_ai.choice", 9, 3)


# ---------------------------------------------------------------------------
# Bad input inside a decodable request
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad_ids",
    [
        {"traceId": "0af765"},  # wrong length
        {"traceId": "zz" * 16},  # not hex
        {"traceId": "0" * 32},  # all zeros
        {"spanId": ""},  # missing
        {"parentSpanId": "abc"},
    ],
)
def test_spans_with_invalid_ids_are_reported_and_skipped(bad_ids):
    good = _span_json(spanId="00f067aa0ba902b7", name="good")
    report = BadInputReport()
    records = decode(_traces_body(_span_json(**bad_ids), good), "json",
                            origin=Origin("f.json", 4), report=report, signal="traces")
    assert [r.name for r in records] == ["good"]
    assert report.counts == {INVALID_ID: 1}
    assert report.cases[0].origin == Origin("f.json", 4)


def test_attributes_of_unexpected_types_are_dropped_and_reported():
    span = _span_json(attributes=[
        {"key": "ok", "value": {"stringValue": "fine"}},
        {"key": "num", "value": {"intValue": "not a number"}},
        {"key": "flag", "value": {"boolValue": "yes"}},
        {"key": "bare", "value": "a bare string"},
        {"key": "big", "value": {"intValue": str(2**70)}},
        {"key": "list", "value": {"arrayValue": {"values": "nope"}}},
        {"key": "superscript", "value": {"intValue": "\u00b2"}},  # str.isdigit() is True, int() fails
    ])
    report = BadInputReport()
    (record,) = decode(_traces_body(span), "json", report=report, signal="traces")
    assert record.attributes == {"ok": "fine"}
    assert report.counts == {BAD_ATTRIBUTE: 6}
    assert "'num'" in report.cases[0].detail


@pytest.mark.parametrize("field", [{"startTimeUnixNano": "\u00b2"}, {"endTimeUnixNano": "-5"},
                                   {"kind": "SPAN_KIND_NOPE"}, {"status": {"code": 2**40}}, {"name": 7}])
def test_spans_with_malformed_fields_are_reported_and_skipped(field):
    report = BadInputReport()
    good = _span_json(spanId="00f067aa0ba902b7", name="good")
    records = decode(_traces_body(_span_json(**field), good), "json", report=report, signal="traces")
    assert [r.name for r in records] == ["good"]
    assert report.counts == {MALFORMED_RECORD: 1}
    split = split_traces(_traces_body(_span_json(**field), good), "json")
    assert split.rejected_spans == 1 and sum(len(c.span_ids) for c in split.chunks) == 1


def _nested_json(depth: int) -> dict:
    value = {"stringValue": "leaf"}
    for _ in range(depth):
        value = {"arrayValue": {"values": [value]}}
    return value


def _nested_pb(depth: int) -> common_pb2.AnyValue:
    value = common_pb2.AnyValue(string_value="leaf")
    for _ in range(depth):
        value = common_pb2.AnyValue(array_value=common_pb2.ArrayValue(values=[value]))
    return value


def _depth_of(value) -> int:
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    return depth


@pytest.mark.parametrize("fmt", ["protobuf", "json"])
def test_absurdly_deep_anyvalue_is_cut_at_the_cap_and_the_span_kept(fmt):
    depth = 45  # deeper than the cap, within what upb and orjson themselves parse
    if fmt == "json":
        body = _traces_body(_span_json(attributes=[{"key": "deep", "value": _nested_json(depth)},
                                                  {"key": "ok", "value": {"intValue": 1}}]))
    else:
        request = ExportTraceServiceRequest()
        span = request.resource_spans.add().scope_spans.add().spans.add(
            trace_id=bytes.fromhex(TRACE_ID), span_id=bytes.fromhex(SPAN_ID), name="chat")
        span.attributes.add(key="deep").value.CopyFrom(_nested_pb(depth))
        span.attributes.add(key="ok").value.int_value = 1
        body = request.SerializeToString()
    report = BadInputReport()
    (record,) = decode(body, fmt, report=report, signal="traces")
    assert record.attributes["ok"] == 1
    value = record.attributes["deep"]
    assert _depth_of(value) == MAX_DEPTH
    for _ in range(MAX_DEPTH):
        value = value[0]
    assert value == DEPTH_MARKER
    assert report.counts == {DEEP_NESTING: 1}


@pytest.mark.parametrize("depth", [5_000, 200_000])
def test_json_nested_far_beyond_the_cap_never_crashes(depth):
    deep = '{"arrayValue":{"values":[' * depth + '{"stringValue":"leaf"}' + "]}}" * depth
    body = _traces_body(_span_json(attributes=[{"key": "deep", "value": "PLACEHOLDER"}]))
    body = body.replace(b'"PLACEHOLDER"', deep.encode())
    report = BadInputReport()
    (record,) = decode(body, "json", report=report, signal="traces")  # past orjson's own depth limit too
    assert _depth_of(record.attributes["deep"]) == MAX_DEPTH
    assert report.counts == {DEEP_NESTING: 1}


@pytest.mark.parametrize("depth", [400, 100_000])
def test_json_too_deep_for_the_parser_loses_only_that_value_not_the_line(depth):
    """orjson refuses past 1024 levels ("depth limit exceeded"): the rest of the line is kept."""
    deep = '{"arrayValue":{"values":[' * depth + '{"stringValue":"leaf"}' + "]}}" * depth
    body = _traces_body(
        _span_json(name="deep", attributes=[{"key": "deep", "value": "PLACEHOLDER"},
                                            {"key": "n", "value": {"intValue": "3"}}]),
        _span_json(name="ok", spanId="00f067aa0ba902b7"),
    ).replace(b'"PLACEHOLDER"', deep.encode())
    report = BadInputReport()
    deep_span, ok_span = decode(body, "json", report=report, signal="traces")
    assert (deep_span.name, ok_span.name) == ("deep", "ok")
    assert deep_span.attributes["n"] == 3 and _depth_of(deep_span.attributes["deep"]) == MAX_DEPTH
    assert report.counts == {DEEP_NESTING: 1}
    split = split_traces(body, "json")
    assert split.rejected_spans == 0 and DEEP_NESTING in split.error_message
    assert [r.name for c in split.chunks for r in decode(c.payload, "protobuf", signal="traces")] == ["deep", "ok"]


def _length_delimited(tag: int, payload: bytes) -> bytes:
    return bytes([tag]) + encode_varint(len(payload)) + payload


def _deep_pb_value(depth: int, kvlist: bool = False) -> bytes:
    """A serialized AnyValue nested ``depth`` containers deep (built on the wire: the
    protobuf library itself refuses to build or copy values this deep)."""
    value = _length_delimited(0x0A, b"leaf")  # AnyValue.string_value
    for _ in range(depth):
        if kvlist:  # AnyValue.kvlist_value -> KeyValueList.values -> KeyValue{key, value}
            entry = _length_delimited(0x0A, b"k") + _length_delimited(0x12, value)
            value = _length_delimited(0x32, _length_delimited(0x0A, entry))
        else:  # AnyValue.array_value -> ArrayValue.values -> AnyValue ...
            value = _length_delimited(0x2A, _length_delimited(0x0A, value))
    return value


def _pb_span(span_id: bytes, name: bytes, attributes: bytes = b"") -> bytes:
    return (_length_delimited(0x0A, bytes.fromhex(TRACE_ID)) + _length_delimited(0x12, span_id)
            + _length_delimited(0x2A, name) + attributes)


def _pb_body_with_deep_span(value: bytes) -> bytes:
    """Spans ``deep`` (attribute ``deep`` = value, plus ``n`` = 7) and ``ok``, one request."""
    deep_attr = _length_delimited(0x4A, _length_delimited(0x0A, b"deep") + _length_delimited(0x12, value))
    n_attr = _length_delimited(0x4A, _length_delimited(0x0A, b"n") + _length_delimited(0x12, b"\x18\x07"))
    spans = (_length_delimited(0x12, _pb_span(b"\x02" * 8, b"deep", deep_attr + n_attr))
             + _length_delimited(0x12, _pb_span(b"\x03" * 8, b"ok")))
    return _length_delimited(0x0A, _length_delimited(0x12, spans))


@pytest.mark.parametrize("depth", [60, 10_000])
def test_protobuf_nested_beyond_the_parser_limit_loses_only_that_value(depth):
    """upb refuses the whole request ("Exceeded upb_DecodeOptions_MaxDepth") past ~47 arrays:
    the value is cut at the cap and every other span (and attribute) is kept."""
    body = _pb_body_with_deep_span(_deep_pb_value(depth))
    with pytest.raises(Exception, match="MaxDepth"):
        ExportTraceServiceRequest.FromString(body)  # the parser's own limit, as documented
    report = BadInputReport()
    deep_span, ok_span = decode(body, "protobuf", origin=Origin("deep.pb"), report=report, signal="traces")
    assert (deep_span.name, ok_span.name) == ("deep", "ok") and deep_span.attributes["n"] == 7
    value = deep_span.attributes["deep"]
    assert _depth_of(value) == MAX_DEPTH
    for _ in range(MAX_DEPTH):
        value = value[0]
    assert value == DEPTH_MARKER
    assert report.counts == {DEEP_NESTING: 1}
    assert str(report.cases[0]) == (
        f"deep.pb: {DEEP_NESTING}: span {'02' * 8}: 'deep': more than {MAX_DEPTH} levels")
    # The receiver's split: both spans stored, the cut said in the partial success message.
    split = split_traces(body, "protobuf")
    assert split.rejected_spans == 0 and split.error_message == DEEP_NESTING
    (chunk,) = split.chunks
    assert chunk.span_ids == ("02" * 8, "03" * 8)
    assert [r.name for r in decode(chunk.payload, "protobuf", signal="traces")] == ["deep", "ok"]


@pytest.mark.parametrize("order", ["deep first", "bad UTF-8 first"])
def test_protobuf_with_invalid_utf8_and_a_too_deep_value_keeps_both_spans(order):
    """Both fallbacks in one request (upb names whichever it meets first): each is fixed."""
    body = _pb_body_with_deep_span(_deep_pb_value(60))
    bad = _length_delimited(0x12, _pb_span(b"\x04" * 8, b"caf\xc3"))
    outer = _length_delimited(0x0A, _length_delimited(0x12, bad))
    body = body + outer if order == "deep first" else outer + body
    with pytest.raises(Exception):
        ExportTraceServiceRequest.FromString(body)
    report = BadInputReport()
    names = sorted(s.name for s in decode(body, "protobuf", report=report, signal="traces"))
    assert names == ["caf\ufffd", "deep", "ok"]
    assert report.counts == {DEEP_NESTING: 1, INVALID_UTF8: 1}
    split = split_traces(body, "protobuf")
    assert split.rejected_spans == 0 and "invalid UTF-8" in split.error_message
    assert sum(len(c.span_ids) for c in split.chunks) == 3


def test_protobuf_kvlists_nested_past_the_parser_limit_are_cut_where_it_parses():
    """A kvlist costs 3 message levels: 40 of them are over upb's limit before the cap."""
    body = _pb_body_with_deep_span(_deep_pb_value(40, kvlist=True))
    report = BadInputReport()
    deep_span, _ = decode(body, "protobuf", report=report, signal="traces")
    depth, value = 0, deep_span.attributes["deep"]
    while isinstance(value, dict):
        depth, value = depth + 1, value["k"]
    assert value == DEPTH_MARKER and 25 < depth < MAX_DEPTH
    assert report.counts == {DEEP_NESTING: 1}
    (chunk,) = split_traces(body, "protobuf").chunks
    assert len(decode(chunk.payload, "protobuf", signal="traces")) == 2


def test_protobuf_logs_with_a_too_deep_body_keep_their_other_records():
    record = _length_delimited(0x2A, _deep_pb_value(200)) + _length_delimited(0x62, b"deep")  # body, event_name
    records = _length_delimited(0x12, record) + _length_delimited(0x12, _length_delimited(0x62, b"ok"))
    body = _length_delimited(0x0A, _length_delimited(0x12, records))
    report = BadInputReport()
    deep, ok = decode(body, "protobuf", report=report, signal="logs")
    assert (deep.event_name, ok.event_name) == ("deep", "ok") and _depth_of(deep.body) == MAX_DEPTH
    assert report.counts == {DEEP_NESTING: 1}
    split = split_logs(body, "protobuf")
    assert split.rejected == 0 and DEEP_NESTING in split.error_message


def test_truncated_deep_protobuf_is_still_a_decode_error():
    body = _pb_body_with_deep_span(_deep_pb_value(60))
    with pytest.raises(DecodeError, match="undecodable protobuf"):
        decode(body[:-20], "protobuf", signal="traces")


def test_huge_strings_are_fine():
    huge = "x" * 5_000_000
    (record,) = decode(_traces_body(_span_json(attributes=[
        {"key": "gen_ai.input.messages", "value": {"stringValue": huge}}])), "json", signal="traces")
    assert len(record.attributes["gen_ai.input.messages"]) == len(huge)


# ---------------------------------------------------------------------------
# Undecodable bodies
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fmt"),
    [
        (b"\x0a\xff\x01", "protobuf"),  # truncated length-delimited field
        (b"{not json", "json"),
        (b"[1, 2]", "json"),  # JSON, but not a request object
        (b'{"resourceSpans": {"not": "a list"}}', "json"),
        (b"{}", "text/plain"),  # unknown format
    ],
)
def test_undecodable_bodies_raise_decode_error(body, fmt):
    with pytest.raises(DecodeError) as caught:
        decode(body, fmt, signal="traces")
    assert isinstance(caught.value, InputError)


def test_truncated_sdk_protobuf_is_a_decode_error(telemetry):
    body = telemetry.traces_pb()
    with pytest.raises(DecodeError):
        decode(body[: len(body) // 2], "protobuf", signal="traces")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_never_crash_decode(data):
    for fmt in ("protobuf", "json"):
        try:
            decode(data, fmt, report=BadInputReport(), signal="traces")
            split_traces(data, fmt)
            decode(data, fmt, report=BadInputReport(), signal="logs")
        except DecodeError:
            pass


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=12), children, max_size=3),
    max_leaves=20,
))
def test_random_json_shapes_never_crash_decode(shape):
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [shape, {"attributes": shape}]}]}]})
    for signal in ("traces", "logs"):
        try:
            decode(body.encode(), "json", signal=signal, report=BadInputReport())
        except DecodeError:
            pass
    try:
        split_traces(body.encode(), "json")
    except DecodeError:
        pass


# ---------------------------------------------------------------------------
# split_traces / split_logs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["protobuf", "json"])
def test_split_traces_groups_by_trace_and_payloads_decode_to_the_same_records(telemetry, fmt):
    body = telemetry.traces_pb() if fmt == "protobuf" else telemetry.traces_json().encode()
    split = split_traces(body, fmt)
    assert split.rejected_spans == 0 and split.error_message == ""
    assert {c.trace_id for c in split.chunks} == telemetry.trace_ids()
    by_span = {r.span_id: r for r in decode(telemetry.traces_pb(), "protobuf", signal="traces")}
    for chunk in split.chunks:
        decoded = decode(chunk.payload, "protobuf", signal="traces")
        assert [r.span_id for r in decoded] == list(chunk.span_ids)
        assert all(r == by_span[r.span_id] for r in decoded)  # resource and scope kept too
        roots = [r.span_id for r in decoded if r.is_root]
        assert list(chunk.root_span_ids) == roots and len(roots) == 1


def test_split_traces_rejects_invalid_ids_and_counts_them(telemetry):
    request = ExportTraceServiceRequest.FromString(telemetry.traces_pb())
    spans = request.resource_spans[0].scope_spans[0].spans
    spans[0].trace_id = b"\x01" * 15
    spans[1].span_id = b""
    split = split_traces(request.SerializeToString(), "protobuf")
    assert split.rejected_spans == 2
    assert "trace id of 15 bytes" in split.error_message and "span id of 0 bytes" in split.error_message
    assert sum(len(c.span_ids) for c in split.chunks) == len(telemetry.spans) - 2


def test_split_keeps_several_resources_apart():
    body = json.dumps({"resourceSpans": [
        {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": name}}]},
         "scopeSpans": [{"scope": {"name": name + "-lib"},
                         "spans": [_span_json(spanId=span_id, name=name)]}]}
        for name, span_id in (("a", "1" * 16), ("b", "2" * 16))]}).encode()
    (chunk,) = split_traces(body, "json").chunks
    records = decode(chunk.payload, "protobuf", signal="traces")
    assert [(r.name, r.resource["service.name"], r.scope_name) for r in records] == [
        ("a", "a", "a-lib"), ("b", "b", "b-lib")]


@pytest.mark.parametrize("fmt", ["protobuf", "json"])
def test_split_logs_groups_by_trace_with_an_empty_trace_for_orphans(telemetry, fmt):
    body = telemetry.logs_pb() if fmt == "protobuf" else telemetry.logs_json().encode()
    split = split_logs(body, fmt)
    assert split.rejected == 0
    assert {c.trace_id for c in split.chunks} == telemetry.trace_ids() | {""}
    everything = sorted(decode(telemetry.logs_pb(), "protobuf", signal="logs"), key=lambda r: r.time_ns)
    again = sorted((r for c in split.chunks for r in decode(c.payload, "protobuf", signal="logs")), key=lambda r: r.time_ns)
    assert again == everything
    for chunk in split.chunks:
        assert {r.trace_id for r in decode(chunk.payload, "protobuf", signal="logs")} == {chunk.trace_id}


def test_split_json_drops_bad_attributes_and_says_so():
    body = _traces_body(_span_json(attributes=[{"key": "n", "value": {"intValue": "x"}},
                                               {"key": "ok", "value": {"stringValue": "y"}}]))
    split = split_traces(body, "json")
    assert split.rejected_spans == 0 and BAD_ATTRIBUTE in split.error_message
    (record,) = decode(split.chunks[0].payload, "protobuf", signal="traces")
    assert record.attributes == {"ok": "y"}


def test_split_undecodable_bodies_raise_decode_error():
    with pytest.raises(DecodeError):
        split_traces(b"\x0a\x09\x01", "protobuf")
    with pytest.raises(DecodeError):
        split_logs(b"[", "json")


# ---------------------------------------------------------------------------
# decode(): one decoder, format and signal given or read from the content
# ---------------------------------------------------------------------------


def test_decode_reads_format_and_signal_from_the_content(telemetry):
    spans = decode(telemetry.traces_pb(), "protobuf", signal="traces")
    logs = decode(telemetry.logs_pb(), "protobuf", signal="logs")
    assert spans and logs
    assert decode(telemetry.traces_pb()) == spans
    assert decode(telemetry.logs_pb()) == logs
    assert decode(telemetry.traces_json().encode()) == spans
    assert decode(telemetry.logs_json().encode()) == logs


def test_decode_auto_reads_json_arrays_and_requests_with_both_signals(telemetry):
    traces, logs = json.loads(telemetry.traces_json()), json.loads(telemetry.logs_json())
    both = json.dumps([{**traces, **logs}, {"resourceMetrics": []}]).encode()
    records = decode(both)
    assert records == decode(telemetry.traces_pb()) + decode(telemetry.logs_pb())


def test_decode_strict_raises_where_lenient_reports(telemetry):
    for body, message in [(b'[1]', "a JSON int, not a request object"),
                          (b'{"foo": 1}', "no resourceSpans or resourceLogs"),
                          (b'{"resourceSpans": 5}', "resourceSpans is a int, not a list")]:
        with pytest.raises(DecodeError, match=message):
            decode(body)
        report = BadInputReport()
        assert list(decode(body, origin=Origin("d.json", 3), report=report, strict=False)) == []
        assert [(c.reason, str(c.origin)) for c in report.cases] == [("not an OTLP request", "d.json:3")]
    with pytest.raises(DecodeError, match="not an OTLP trace request: resourceSpans is a int"):
        decode(b'{"resourceSpans": 5}', "json", signal="traces")


def test_decode_lenient_keeps_the_records_before_a_bad_shape(telemetry):
    good = json.loads(telemetry.traces_json())
    body = json.dumps({"resourceSpans": good["resourceSpans"] + [5]}).encode()
    report = BadInputReport()
    records = list(decode(body, report=report, strict=False))
    assert records == decode(telemetry.traces_pb()) and report.counts == {"not an OTLP request": 1}
    with pytest.raises(DecodeError):
        decode(body)


def test_decode_refuses_unknown_formats_and_signals():
    with pytest.raises(DecodeError, match="unknown OTLP format"):
        decode(b"", "xml")
    with pytest.raises(DecodeError, match="unknown OTLP signal"):
        decode(b"", "json", signal="metrics")
