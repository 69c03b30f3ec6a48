"""OTLP/HTTP receiver: real SDK exporters as clients, status codes, hostile requests."""

from __future__ import annotations

import gzip
import json
import os
import socket
import time
import urllib.error
import urllib.request

import pytest
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from ek_otel.ingest.anyvalue import attributes_to_pb
from ek_otel.ingest.wire import encode_varint

from serve_helpers import emit_run, make_provider, wait_for


def post(url, body, headers=None, method="POST", timeout=30):
    req = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def pb_request(trace_id: bytes, span_ids, parent=b"", attrs=None) -> bytes:
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    kv = rs.resource.attributes.add()
    kv.key, kv.value.string_value = "service.name", "agent"
    ss = rs.scope_spans.add()
    for i, sid in enumerate(span_ids):
        span = ss.spans.add()
        span.trace_id, span.span_id, span.name = trace_id, sid, f"s{i}"
        span.start_time_unix_nano, span.end_time_unix_nano = 1_000 + i, 2_000 + i
        if i or parent:
            span.parent_span_id = parent or span_ids[0]
        attributes_to_pb(attrs or {}, span.attributes)
    return req.SerializeToString()


PB = {"Content-Type": "application/x-protobuf"}
JS = {"Content-Type": "application/json"}


def test_sdk_protobuf_exporter_scores_arrive(start_server, otlp_sink):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    server = start_server(emit_endpoint=otlp_sink.endpoint, emit_protocol="grpc")
    provider = make_provider(OTLPSpanExporter(endpoint=server.http_url + "/v1/traces"))
    tracer = provider.get_tracer("test")
    trace_ids = {emit_run(tracer, i) for i in range(4)}
    emit_run(tracer, 5, city="wrong")
    provider.shutdown()
    wait_for(lambda: len(otlp_sink.scores()) >= 5, 30, "5 scores at the sink")
    scores = otlp_sink.scores()
    assert trace_ids <= {t for t, _, _ in scores}
    by_trace = {t: a for t, _, a in scores}
    assert sum(a["ek.success"].bool_value for a in by_trace.values()) == 4
    assert server.counts()["exported"] == 5


def test_sdk_json_exporter(start_server):
    """OTLP/HTTP JSON from the SDK's JSON exporter (opentelemetry-exporter-otlp-json-http)."""
    try:
        from opentelemetry.exporter.otlp.json.http.trace_exporter import OTLPSpanExporter
        exporter_kwargs = {}
    except ImportError:  # its pins conflict with proto-http's; use its encoder + a plain POST
        pytest.importorskip("opentelemetry.exporter.otlp.json.common")
        OTLPSpanExporter = None
    server = start_server()
    if OTLPSpanExporter is not None:
        exporter = OTLPSpanExporter(endpoint=server.http_url + "/v1/traces", **exporter_kwargs)
    else:
        exporter = _JsonEncoderExporter(server.http_url + "/v1/traces")
    provider = make_provider(exporter)
    tracer = provider.get_tracer("test")
    ids = [emit_run(tracer, i) for i in range(3)]
    provider.shutdown()
    wait_for(lambda: server.counts()["scored"] == 3, 30, "3 traces scored")
    rows = server.app.writer.call(lambda s: s.latest_scores())
    assert {r.trace_id for r in rows} == set(ids)
    assert all(r.success for r in rows)


class _JsonEncoderExporter:
    def __init__(self, url):
        self.url = url

    def export(self, spans):
        from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
        from opentelemetry.sdk.trace.export import SpanExportResult

        body = encode_spans(spans)  # a proto-json message (0.66b1), a dict, or bytes
        if hasattr(body, "to_json"):
            body = body.to_json()
        if isinstance(body, dict):
            body = json.dumps(body)
        body = body.encode() if isinstance(body, str) else body
        status, _, _ = post(self.url, body, JS)
        return SpanExportResult.SUCCESS if status == 200 else SpanExportResult.FAILURE

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=0):
        return True


def test_response_content_types_and_partial_success(start_server):
    server = start_server()
    url = server.http_url + "/v1/traces"
    good = pb_request(b"\x01" * 16, [b"\x02" * 8])
    status, headers, body = post(url, good, PB)
    assert status == 200 and headers["Content-Type"] == "application/x-protobuf"
    assert not ExportTraceServiceResponse.FromString(body).HasField("partial_success")
    bad_id = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "03" * 16, "spanId": "04" * 8, "name": "ok"},
        {"traceId": "short", "spanId": "04" * 8, "name": "bad"}]}]}]}
    status, headers, body = post(url, json.dumps(bad_id).encode(), JS)
    assert status == 200 and headers["Content-Type"] == "application/json"
    partial = json.loads(body)["partialSuccess"]
    assert int(partial["rejectedSpans"]) == 1 and partial["errorMessage"]
    status, _, body = post(url, gzip.compress(good), {**PB, "Content-Encoding": "gzip"})
    assert status == 200


def test_hostile_requests_get_the_right_status_and_the_server_keeps_serving(start_server):
    server = start_server(max_body_bytes=1 * 2**20, max_pending_bytes=4 * 2**20,
                          max_inflight_bytes=4 * 2**20)
    url = server.http_url + "/v1/traces"
    deep = "[" * 100_000 + "]" * 100_000
    nested_value = '{"arrayValue": {"values": [' * 5000 + '{"stringValue": "x"}' + "]}}" * 5000
    deep_anyvalue = ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + "05" * 16
                     + '", "spanId": "' + "06" * 8 + '", "attributes": [{"key": "deep", "value": '
                     + nested_value + "}]}]}]}]}")
    cases = [
        ("garbage protobuf", os.urandom(4096), PB, 400),
        ("truncated protobuf", pb_request(b"\x01" * 16, [b"\x02" * 8])[:-3], PB, 400),
        ("invalid json", b"{not json", JS, 400),
        ("json of the wrong shape", b'{"resourceSpans": 7}', JS, 400),
        ("deeply nested json", deep.encode(), JS, 400),
        ("unsupported content type", b"x", {"Content-Type": "text/plain"}, 415),
        ("no content type", b"x", {}, 415),
        ("unknown encoding", b"x", {**PB, "Content-Encoding": "br"}, 415),
        ("corrupt gzip", b"\x1f\x8b" + os.urandom(100), {**PB, "Content-Encoding": "gzip"}, 400),
        ("gzip bomb", gzip.compress(bytes(50 * 2**20)), {**PB, "Content-Encoding": "gzip"}, 413),
        ("body over the cap", bytes(2 * 2**20), PB, 413),
    ]
    for name, body, headers, expected in cases:
        status, resp_headers, resp_body = post(url, body, headers)
        assert status == expected, (name, status, resp_body[:200])
        if expected == 400:
            assert status_pb2.Status.FromString(resp_body).code == 3 if "json" not in str(headers) \
                else json.loads(resp_body)["code"] == 3
    # A deeply nested AnyValue is stored, its value cut (and said so), a huge string too.
    status, _, resp_body = post(url, deep_anyvalue.encode(), JS)
    assert status == 200 and json.loads(resp_body) == {"partialSuccess": {
        "rejectedSpans": "0", "errorMessage": "nesting too deep"}}
    huge = pb_request(b"\x07" * 16, [b"\x08" * 8], attrs={"big": "x" * 900_000})
    assert post(url, huge, PB)[0] == 200
    assert post(url, b"", {"Content-Type": "application/x-protobuf"}, method="GET")[0] == 405
    assert post(url, b"", PB, method="PUT")[0] == 405
    # Still serving, and healthy.
    assert post(url, pb_request(b"\x09" * 16, [b"\x0a" * 8]), PB)[0] == 200
    assert post(server.http_url + "/healthz", None, method="GET")[0] == 200
    assert post(server.http_url + "/readyz", None, method="GET")[0] == 200


def test_slow_client_gets_408_and_does_not_block_others(start_server):
    server = start_server(body_timeout_s=1.0)
    host, port = "127.0.0.1", server.app.http_port
    with socket.create_connection((host, port), timeout=30) as slow:
        slow.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf"
                     b"\r\nContent-Length: 1000\r\n\r\n" + b"\x0a" * 10)
        # Others are served meanwhile.
        assert post(server.http_url + "/v1/traces", pb_request(b"\x0b" * 16, [b"\x0c" * 8]), PB)[0] == 200
        slow.settimeout(30)
        answer = slow.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408")


def test_bearer_token(start_server):
    server = start_server(auth_token="s3cret")
    url = server.http_url + "/v1/traces"
    body = pb_request(b"\x0d" * 16, [b"\x0e" * 8])
    assert post(url, body, PB)[0] == 401
    assert post(url, body, {**PB, "Authorization": "Bearer nope"})[0] == 401
    assert post(url, body, {**PB, "Authorization": "Bearer s3cret"})[0] == 200


def test_same_body_twice_is_one_episode_with_tokens_counted_once(start_server):
    server = start_server()
    url = server.http_url + "/v1/traces"
    trace = b"\x11" * 16
    req = ExportTraceServiceRequest()
    ss = req.resource_spans.add().scope_spans.add()
    root = ss.spans.add()
    root.trace_id, root.span_id, root.name = trace, b"\x21" * 8, "invoke_agent a"
    for k, v in {"gen_ai.operation.name": "invoke_agent", "ek.task.id": "task-1"}.items():
        a = root.attributes.add(); a.key = k; a.value.string_value = v
    chat = ss.spans.add()
    chat.trace_id, chat.span_id, chat.parent_span_id, chat.name = trace, b"\x22" * 8, b"\x21" * 8, "chat m"
    for k, v in {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 70,
                 "gen_ai.usage.output_tokens": 5}.items():
        a = chat.attributes.add(); a.key = k
        if isinstance(v, int):
            a.value.int_value = v
        else:
            a.value.string_value = v
    body = req.SerializeToString()
    assert post(url, body, PB)[0] == 200
    assert post(url, body, PB)[0] == 200          # a retried delivery
    assert post(url, gzip.compress(body), {**PB, "Content-Encoding": "gzip"})[0] == 200
    wait_for(lambda: server.counts()["scored"] == 1, 30, "the trace scored")
    counts = server.counts()
    assert counts["spans"] == 2 and counts["payloads"] == 1 and counts["scores"] == 1
    from ek_otel.emit.envelope import ScoreEnvelope

    row = server.app.writer.call(lambda s: s.latest_scores())[0]
    assert ScoreEnvelope.from_json(row.envelope).score.cost.input_tokens == 70


def test_overload_answers_503_with_retry_after(start_server):
    server = start_server(max_open_traces=2, grace_s=60.0, max_wait_s=600.0)
    url = server.http_url + "/v1/traces"
    assert post(url, pb_request(b"\x31" * 16, [b"\x01" * 8]), PB)[0] == 200
    assert post(url, pb_request(b"\x32" * 16, [b"\x01" * 8]), PB)[0] == 200
    status, headers, _ = post(url, pb_request(b"\x33" * 16, [b"\x01" * 8]), PB)
    assert status == 503 and headers["Retry-After"] == "1"
    # Spans of an already open trace are still accepted.
    assert post(url, pb_request(b"\x31" * 16, [b"\x02" * 8], parent=b"\x01" * 8), PB)[0] == 200
    assert server.counts()["traces"] == 2


def test_logs_endpoint(start_server):
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    server = start_server()
    req = ExportLogsServiceRequest()
    rec = req.resource_logs.add().scope_logs.add().log_records.add()
    rec.trace_id, rec.span_id, rec.event_name = b"\x41" * 16, b"\x42" * 8, "gen_ai.choice"
    body = req.SerializeToString()
    status, headers, resp = post(server.http_url + "/v1/logs", body, PB)
    assert status == 200 and headers["Content-Type"] == "application/x-protobuf"
    assert post(server.http_url + "/v1/logs", body, PB)[0] == 200
    assert server.counts()["payloads"] == 1
    assert post(server.http_url + "/v1/logs", b"\xff\xff", PB)[0] == 400


def test_clients_hanging_up_mid_body_are_not_logged_as_our_failures(start_server, caplog):
    """Regression: each client that closed its connection mid-body logged an ERROR with a
    traceback ("receiving traces failed"): any client could flood the log. Broken chunked
    framing gets its 400 from the HTTP parser and the server keeps serving."""
    import logging

    server = start_server()
    port = server.app.http_port
    caplog.set_level(logging.ERROR, logger="ek_otel")
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf"
                      b"\r\nContent-Length: 1000\r\n\r\n" + b"\x0a" * 10)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf"
                  b"\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
        assert s.recv(4096).split(b" ", 2)[1] == b"400"
    # the server noticed the hang-ups (all 20 bodies were released) and is still serving
    status, _, body = post(server.http_url + "/v1/traces", pb_request(b"\x1b" * 16, [b"\x1c" * 8]), PB)
    assert status == 200, body
    errors = [r for r in caplog.records if r.name.startswith("ek_otel") and r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]


def test_a_value_too_deep_for_the_protobuf_parser_costs_only_that_value(start_server):
    """Regression: 60 levels of arrayValue made upb refuse the whole request, so the receiver
    answered 400 and lost every trace in it. Now the value is cut, both traces are stored
    and the partial success says what was cut."""

    def field(tag: int, payload: bytes) -> bytes:
        return bytes([tag]) + encode_varint(len(payload)) + payload

    value = field(0x0A, b"leaf")
    for _ in range(60):
        value = field(0x2A, field(0x0A, value))
    deep = (field(0x0A, b"\x11" * 16) + field(0x12, b"\x12" * 8) + field(0x2A, b"deep")
            + field(0x4A, field(0x0A, b"d") + field(0x12, value)))
    ok = field(0x0A, b"\x13" * 16) + field(0x12, b"\x14" * 8) + field(0x2A, b"ok")
    body = field(0x0A, field(0x12, field(0x12, deep) + field(0x12, ok)))
    server = start_server()
    status, _, resp = post(server.http_url + "/v1/traces", body, PB)
    assert status == 200, resp[:200]
    partial = ExportTraceServiceResponse.FromString(resp).partial_success
    assert partial.rejected_spans == 0 and "nesting too deep" in partial.error_message
    assert server.counts()["payloads"] == 2


def test_sdk_protobuf_exporter_with_gzip(start_server):
    """The SDK's OTLP/HTTP exporter with ``compression=Gzip`` (what the Collector sends too)."""
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    server = start_server()
    provider = make_provider(OTLPSpanExporter(endpoint=server.http_url + "/v1/traces",
                                              compression=Compression.Gzip))
    tracer = provider.get_tracer("test")
    ids = {emit_run(tracer, i, tokens=70 + i) for i in range(3)}
    provider.shutdown()
    wait_for(lambda: server.counts()["scored"] == 3, 30, "3 traces scored")
    rows = server.app.writer.call(lambda s: s.latest_scores())
    assert {r.trace_id for r in rows} == ids and all(r.success for r in rows)
    tokens = sorted(json.loads(r.envelope)["score"]["cost"]["input_tokens"] for r in rows)
    assert tokens == [70, 71, 72]


def test_collector_style_json_snake_case_and_enum_names(start_server):
    """JSON as the Collector accepts it: snake_case keys, enum names, int64 as numbers or
    strings, upper-case hex ids."""
    server = start_server()
    tid, root, tool = "AB" * 15 + "01", "CD" * 8, "EF" * 8
    body = {"resource_spans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"string_value": "go-agent"}}]},
        "scope_spans": [{"scope": {"name": "x"}, "spans": [
            {"trace_id": tid, "span_id": root, "name": "invoke_agent a", "kind": "SPAN_KIND_INTERNAL",
             "start_time_unix_nano": "1000", "end_time_unix_nano": 5000,
             "status": {"code": "STATUS_CODE_OK"},
             "attributes": [{"key": "ek.task.id", "value": {"string_value": "task-4"}},
                            {"key": "gen_ai.operation.name", "value": {"string_value": "invoke_agent"}}]},
            {"trace_id": tid, "span_id": "12" * 8, "parent_span_id": root, "name": "chat m",
             "kind": "SPAN_KIND_CLIENT", "start_time_unix_nano": 1100, "end_time_unix_nano": "1200",
             "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "chat"}},
                            {"key": "gen_ai.usage.input_tokens", "value": {"int_value": "42"}},
                            {"key": "gen_ai.usage.output_tokens", "value": {"int_value": 5}}]},
            {"trace_id": tid, "span_id": tool, "parent_span_id": root, "name": "execute_tool get_weather",
             "kind": "SPAN_KIND_INTERNAL", "start_time_unix_nano": "1300", "end_time_unix_nano": "1400",
             "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                            {"key": "gen_ai.tool.name", "value": {"string_value": "get_weather"}},
                            {"key": "gen_ai.tool.call.arguments",
                             "value": {"string_value": json.dumps({"city": "city-4"})}}]},
        ]}]}]}
    status, headers, resp = post(server.http_url + "/v1/traces", json.dumps(body).encode(), JS)
    assert status == 200 and json.loads(resp) == {}, resp
    wait_for(lambda: server.counts()["scored"] == 1, 30, "the run scored")
    (row,) = server.app.writer.call(lambda s: s.latest_scores())
    assert row.trace_id == tid.lower() and row.task_id == "task-4" and row.success
    score = json.loads(row.envelope)["score"]
    assert score["cost"]["input_tokens"] == 42 and score["cost"]["output_tokens"] == 5


def test_invalid_utf8_in_strings_costs_no_batch(start_server):
    """Regression: one span with a cut multi-byte character (the Collector forwards such bytes
    as they are) made the whole request a 400, so the Collector dropped every trace in it.
    Now the strings are repaired (U+FFFD), the request is accepted with a partial-success
    note, and every run is scored."""
    server = start_server()
    url = server.http_url + "/v1/traces"
    good = pb_request(b"\x21" * 16, [b"\x22" * 8], attrs={"ek.task.id": "task-1"})
    bad = pb_request(b"\x23" * 16, [b"\x24" * 8], attrs={"ek.task.id": "task-2",
                                                        "gen_ai.prompt": "cafe!"})
    body = good + bad.replace(b"cafe!", b"caf\xc3!")         # one request, two traces
    status, headers, resp = post(url, body, PB)
    assert status == 200, resp
    msg = ExportTraceServiceResponse.FromString(resp).partial_success
    assert msg.rejected_spans == 0 and "UTF-8" in msg.error_message
    js = (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"' + b"25" * 16
          + b'","spanId":"' + b"26" * 8 + b'","name":"caf\xc3 root","attributes":[{"key":'
          b'"ek.task.id","value":{"stringValue":"task-3"}}]}]}]}]}')
    status, _, resp = post(url, js, JS)
    assert status == 200 and "UTF-8" in json.loads(resp)["partialSuccess"]["errorMessage"]
    wait_for(lambda: server.counts()["scores"] == 3, 30, "the 3 runs scored")
    tasks = {r.task_id for r in server.app.writer.call(lambda s: s.latest_scores())}
    assert tasks == {"task-1", "task-2", "task-3"}
    # garbage is still garbage
    assert post(url, b"\xff" * 64, PB)[0] == 400
    assert post(url, b"{\xff", JS)[0] == 400
