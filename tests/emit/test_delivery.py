"""How a backend's answer is classified, against real local servers: an aiohttp HTTP server and
grpcio servers on 127.0.0.1 answering each status; and what the OTLP and Phoenix sinks make of
it (one warning for a missing endpoint, no failure; retries on 5xx; failures named)."""

from __future__ import annotations

import json
import logging
import socket
from concurrent import futures

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from ek_otel.core.scores import EpisodeScore
from ek_otel.emit.delivery import SendResult
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.phoenix import PhoenixSink
from ek_otel.emit.sinks import OtlpSink
from ek_otel.emit.transport import GrpcTransport, HttpTransport

from local_servers import HttpServer

TRACE_METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
LOGS_METHOD = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"


def _envelope(i: int = 1, revision: int = 0) -> ScoreEnvelope:
    return ScoreEnvelope(f"{i:032x}", f"{i:016x}", "t", EpisodeScore("t", f1=1.0, success=True),
                         ScoreProvenance("0.1.0", "ab" * 32), revision=revision,
                         scored_at_ns=1_764_460_800_000_000_000)


# ---------------------------------------------------------------------------
# HTTP statuses
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("status, outcome", [
    (200, "sent"), (204, "sent"),
    (404, "unsupported"), (405, "unsupported"), (501, "unsupported"),
    (500, "retry"), (502, "retry"), (503, "retry"), (504, "retry"), (429, "retry"), (408, "retry"),
    (400, "rejected"), (401, "rejected"), (403, "rejected"), (413, "rejected"),
])
def test_http_status_classification_from_a_real_server(status, outcome):
    with HttpServer({"/v1/logs": [(status, b"no logs here")]}) as server:
        transport = HttpTransport(server.url, timeout_s=5)
        answer = transport.post("/v1/logs", b"\x00", "application/x-protobuf")
        transport.close()
    assert answer.outcome == outcome
    assert f"HTTP {status}" in answer.detail and server.url in answer.detail
    if outcome != "sent":
        assert "no logs here" in answer.detail  # what the backend said


def test_http_connection_refused_is_retryable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    transport = HttpTransport(f"http://127.0.0.1:{port}", timeout_s=2)
    answer = transport.post("/v1/traces", b"", "application/x-protobuf")
    transport.close()
    assert answer.outcome == "retry" and "cannot reach" in answer.detail


# ---------------------------------------------------------------------------
# gRPC status codes
# ---------------------------------------------------------------------------


class _Traces(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, code):
        self.code = code
        self.calls = 0

    def Export(self, request, context):
        self.calls += 1
        if self.code is not None:
            context.abort(self.code, f"answering {self.code.name}")
        return trace_service_pb2.ExportTraceServiceResponse()


@pytest.fixture
def grpc_traces_only():
    """A real gRPC server with the trace service only (as Phoenix, Jaeger, Tempo)."""
    servers = []

    def start(code=None):
        servicer = _Traces(code)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"http://127.0.0.1:{port}", servicer

    yield start
    for server in servers:
        server.stop(None)


@pytest.mark.parametrize("code, outcome", [
    (None, "sent"),
    (grpc.StatusCode.UNIMPLEMENTED, "unsupported"),
    (grpc.StatusCode.UNAVAILABLE, "retry"),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "retry"),
    (grpc.StatusCode.DEADLINE_EXCEEDED, "retry"),
    (grpc.StatusCode.PERMISSION_DENIED, "rejected"),
    (grpc.StatusCode.INVALID_ARGUMENT, "rejected"),
])
def test_grpc_status_classification_from_a_real_server(grpc_traces_only, code, outcome):
    url, _ = grpc_traces_only(code)
    transport = GrpcTransport(url, timeout_s=5)
    answer = transport.call(TRACE_METHOD, trace_service_pb2.ExportTraceServiceRequest().SerializeToString())
    transport.close()
    assert answer.outcome == outcome, answer.detail


def test_grpc_service_the_server_lacks_is_unimplemented(grpc_traces_only):
    url, _ = grpc_traces_only()
    transport = GrpcTransport(url, timeout_s=5)
    answer = transport.call(LOGS_METHOD, logs_service_pb2.ExportLogsServiceRequest().SerializeToString())
    transport.close()
    assert answer.outcome == "unsupported" and "UNIMPLEMENTED" in answer.detail


# ---------------------------------------------------------------------------
# OtlpSink: a backend without logs
# ---------------------------------------------------------------------------


def test_otlp_http_sink_without_a_logs_endpoint_warns_once_and_succeeds():
    warnings: list = []
    ok = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
    with HttpServer({"/v1/traces": [(200, ok)], "/v1/logs": [(405, b"Method Not Allowed")]}) as server:
        sink = OtlpSink(server.url, "http", timeout=5, warn=warnings.append)
        first = sink.send([_envelope(1), _envelope(2)])
        second = sink.send([_envelope(3)])
        sink.close()
    assert first and second
    assert first.to_dict() == {"spans": {"sent": 2, "failed": 0, "unsupported": 0},
                               "logs": {"sent": 0, "failed": 0, "unsupported": 2}}
    assert second.get("logs").unsupported == 1
    assert len(warnings) == 1
    assert server.url in warnings[0] and "logs" in warnings[0] and "405" in warnings[0]
    assert server.paths().count("/v1/logs") == 1  # not asked again
    assert server.paths().count("/v1/traces") == 2


def test_otlp_grpc_sink_without_a_logs_service_warns_once_and_succeeds(grpc_traces_only):
    warnings: list = []
    url, servicer = grpc_traces_only()
    sink = OtlpSink(url, "grpc", timeout=5, warn=warnings.append)
    results = [sink.send([_envelope(i)]) for i in range(1, 4)]
    sink.close()
    assert all(results)
    assert sum((r for r in results), SendResult()).to_dict()["logs"] == {
        "sent": 0, "failed": 0, "unsupported": 3}
    assert servicer.calls == 3
    assert len(warnings) == 1 and "UNIMPLEMENTED" in warnings[0] and url in warnings[0]


def test_otlp_sink_retries_a_5xx_then_delivers():
    ok = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
    with HttpServer({"/v1/traces": [(503, b"busy"), (502, b"busy"), (200, ok)]}) as server:
        sink = OtlpSink(server.url, "http", timeout=20, signals=["spans"])
        result = sink.send([_envelope()])
        sink.close()
    assert result and result.get("spans").sent == 1
    assert server.paths() == ["/v1/traces"] * 3


def test_otlp_sink_a_dead_signal_fails_but_not_the_other():
    ok = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
    with HttpServer({"/v1/traces": [(200, ok)], "/v1/logs": [(401, b"bad token")]}) as server:
        sink = OtlpSink(server.url, "http", timeout=5)
        result = sink.send([_envelope()])
        sink.close()
    assert not result
    assert result.get("spans").sent == 1 and result.get("logs").failed == 1
    assert not result.retryable
    assert any("401" in e and "bad token" in e for e in result.errors)


def test_otlp_sink_logs_a_partial_success(caplog):
    partial = trace_service_pb2.ExportTraceServiceResponse()
    partial.partial_success.rejected_spans = 1
    partial.partial_success.error_message = "span too large"
    with HttpServer({"/v1/traces": [(200, partial.SerializeToString())]}) as server:
        sink = OtlpSink(server.url, "http", timeout=5, signals=["spans"])
        with caplog.at_level(logging.WARNING, logger="ek_otel.emit.sinks"):
            assert sink.send([_envelope()])
        sink.close()
    assert "rejected 1 of the spans: span too large" in caplog.text


# ---------------------------------------------------------------------------
# PhoenixSink against a server answering as Phoenix does
# ---------------------------------------------------------------------------


def _phoenix_answers(known_spans: set, known_traces: set) -> dict:
    def answer(kind, known):
        def respond(body):
            data = json.loads(body)["data"]
            missing = [d[kind] for d in data if d[kind] not in known]
            if missing:  # Phoenix's sync mode: 404, nothing written
                label = "Spans" if kind == "span_id" else "Traces"
                return 404, f"{label} with IDs {', '.join(missing)} do not exist.".encode()
            return 200, json.dumps({"data": [{"id": str(i)} for i in range(len(data))]}).encode()
        return respond

    return {"/v1/span_annotations": [(0, answer("span_id", known_spans))],
            "/v1/trace_annotations": [(0, answer("trace_id", known_traces))]}


def test_phoenix_sink_posts_both_annotations_with_the_key():
    envs = [_envelope(1), _envelope(2)]
    answers = _phoenix_answers({e.root_span_id for e in envs}, {e.trace_id for e in envs})
    with HttpServer(answers) as server:
        sink = PhoenixSink(server.url, api_key="s3cret", timeout=5)
        result = sink.send(envs)
        sink.close()
    assert result.to_dict() == {
        "span_annotations": {"sent": 2, "failed": 0, "unsupported": 0},
        "trace_annotations": {"sent": 2, "failed": 0, "unsupported": 0}}
    assert server.paths() == ["/v1/span_annotations", "/v1/trace_annotations"]  # batched
    for request in server.requests:
        assert request.query == {"sync": "true"}
        assert request.headers["authorization"] == "Bearer s3cret"
        data = json.loads(request.body)["data"]
        assert [d["identifier"] for d in data] == ["ek-otel", "ek-otel"]
        assert {d["name"] for d in data} == {"ek.tool_call"}


def test_phoenix_sink_writes_what_it_can_and_names_what_phoenix_lacks():
    envs = [_envelope(1), _envelope(2), _envelope(3)]
    known = envs[:2]
    answers = _phoenix_answers({e.root_span_id for e in known}, {e.trace_id for e in known})
    with HttpServer(answers) as server:
        sink = PhoenixSink(server.url, timeout=1.5)
        result = sink.send(envs)
        sink.close()
    assert not result and result.retryable
    assert result.get("span_annotations").sent == 2
    assert result.get("span_annotations").failed == 1
    assert result.failed_keys == (envs[2].key,)
    assert any(envs[2].root_span_id in e and "are the traces sent" in e for e in result.errors)


def test_phoenix_sink_retries_5xx_and_reports_a_missing_endpoint_once():
    warnings: list = []
    ok = json.dumps({"data": [{"id": "1"}]}).encode()
    answers = {"/v1/span_annotations": [(503, b"busy"), (500, b"oops"), (200, ok)],
               "/v1/trace_annotations": [(405, b"Method Not Allowed")]}
    with HttpServer(answers) as server:
        sink = PhoenixSink(server.url, timeout=20, warn=warnings.append)
        first = sink.send([_envelope()])
        second = sink.send([_envelope(2)])
        sink.close()
    assert first and second
    assert first.get("span_annotations").sent == 1
    assert first.get("trace_annotations").unsupported == 1
    assert len(warnings) == 1 and "/v1/trace_annotations" in warnings[0]
    assert server.paths().count("/v1/trace_annotations") == 1
    assert server.paths().count("/v1/span_annotations") == 4  # 503, 500, 200, then 200


def test_phoenix_sink_refused_key_fails_without_retrying():
    answers = {"/v1/span_annotations": [(401, b"Invalid API key")],
               "/v1/trace_annotations": [(401, b"Invalid API key")]}
    with HttpServer(answers) as server:
        sink = PhoenixSink(server.url, api_key="wrong", timeout=20)
        result = sink.send([_envelope()])
        sink.close()
    assert not result and not result.retryable
    assert server.paths() == ["/v1/span_annotations", "/v1/trace_annotations"]
    assert any("401" in e for e in result.errors)
