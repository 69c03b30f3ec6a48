"""Sinks: the OTLP JSON Lines file read back with our own reader, and real OTLP endpoints
(an aiohttp OTLP/HTTP server and a grpcio OTLP/gRPC servicer on 127.0.0.1) receiving exports."""

from __future__ import annotations

import json
import socket
from concurrent import futures

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from ek_otel.core.episode import Cost
from ek_otel.core.scores import ArgDiff, EpisodeScore
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.sinks import FileSink, MultiSink, OtlpSink
from ek_otel.ingest.otlp import decode

from local_servers import HttpServer

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "b7ad6b7169203331"


def _envelope(trace=TRACE, root=ROOT, revision=0) -> ScoreEnvelope:
    score = EpisodeScore(
        "refund-order-1042", trace_id=trace, tp=1.0, fp=1.0, fn=1.0, precision=0.5, recall=0.5,
        f1=0.5, arg_diffs=(ArgDiff("refund", "amount", "wrong_value", (35.5,), 355.0, 20.0),),
        missing_calls=(("notify", {}),), cost=Cost(input_tokens=120, output_tokens=30), dollars=0.5,
    )
    return ScoreEnvelope(trace, root, "refund-order-1042", score,
                         ScoreProvenance("0.1.0", "12" * 32, {"matcher": "ek", "level": "call"}),
                         revision=revision, evaluated_service="support-agent",
                         scored_at_ns=1_764_460_800_000_000_000)


def _check_span(span, trace=TRACE, root=ROOT):
    assert span.trace_id == trace
    assert span.parent_span_id == root
    assert span.name == "evaluation ek.tool_call"
    assert span.resource["service.name"] == "ek-otel"
    attrs = span.attributes
    assert attrs["gen_ai.evaluation.name"] == "ek.tool_call"
    assert attrs["gen_ai.evaluation.score.value"] == 0.5
    assert attrs["gen_ai.evaluation.score.label"] == "fail"
    assert attrs["ek.tp"] == 1.0 and attrs["ek.fn"] == 1.0
    assert attrs["ek.cost.input_tokens"] == 120
    assert json.loads(attrs["ek.arg_diffs"])[0]["arg"] == "amount"


def _check_log(log, trace=TRACE, root=ROOT):
    assert log.event_name == "gen_ai.evaluation.result"
    assert (log.trace_id, log.span_id) == (trace, root)
    assert log.attributes["gen_ai.evaluation.score.value"] == 0.5
    assert log.attributes["ek.gold.sha256"] == "12" * 32


# ---------------------------------------------------------------------------
# FileSink
# ---------------------------------------------------------------------------


def _read_jsonl(path):
    spans, logs = [], []
    for line in path.read_bytes().splitlines():
        data = json.loads(line)
        assert set(data) <= {"resourceSpans", "resourceLogs"}
        if "resourceSpans" in data:
            spans.extend(decode(line, "json", signal="traces"))
        else:
            logs.extend(decode(line, "json", signal="logs"))
    return spans, logs


def test_file_sink_writes_otlp_json_lines_that_our_reader_reads_back(tmp_path):
    path = tmp_path / "scores.jsonl"
    sink = FileSink(str(path))
    assert sink.send([_envelope()])
    assert sink.send([_envelope("3" * 32, "4" * 16, revision=1)])
    sink.close()
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    first = json.loads(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert first["traceId"] == TRACE and first["parentSpanId"] == ROOT  # hex, not base64
    assert isinstance(first["startTimeUnixNano"], str)                  # int64 as a string
    spans, logs = _read_jsonl(path)
    assert len(spans) == 2 and len(logs) == 2
    _check_span(spans[0])
    _check_log(logs[0])
    _check_span(spans[1], "3" * 32, "4" * 16)
    assert spans[1].attributes["ek.revision"] == 1


def test_file_sink_output_is_readable_by_read_dump(tmp_path):
    dumps = pytest.importorskip("ek_otel.ingest.dumps")
    from ek_otel.ingest.bad_input import BadInputReport

    path = tmp_path / "scores.jsonl"
    sink = FileSink(str(path), phoenix=True)
    assert sink.send([_envelope()])
    sink.close()
    report = BadInputReport()
    records = list(dumps.read_dump([str(path)], report=report))
    assert report.ok, report.summary()
    names = sorted(type(r).__name__ for r in records)
    assert names == ["LogRecord", "SpanRecord", "SpanRecord"]


def test_file_sink_appends_across_instances_and_reports_write_failures(tmp_path):
    path = tmp_path / "scores.jsonl"
    for _ in range(2):
        sink = FileSink(str(path))
        assert sink.send([_envelope()])
        sink.close()
    assert len(path.read_text().splitlines()) == 4
    assert not FileSink(str(tmp_path)).send([_envelope()])  # a directory


# ---------------------------------------------------------------------------
# OTLP/HTTP: an aiohttp endpoint on 127.0.0.1
# ---------------------------------------------------------------------------


def _otlp_ok() -> dict:
    return {"/v1/traces": [(200, trace_service_pb2.ExportTraceServiceResponse().SerializeToString())],
            "/v1/logs": [(200, logs_service_pb2.ExportLogsServiceResponse().SerializeToString())]}


def test_otlp_http_sink_delivers_spans_and_events():
    with HttpServer(_otlp_ok()) as server:
        sink = OtlpSink(server.url, "http", headers={"x-token": "s3cret"}, timeout=5)
        assert sink.send([_envelope()])
        sink.close()
    paths = sorted(server.paths())
    assert paths == ["/v1/logs", "/v1/traces"]
    for path, _, body, headers in server.requests:
        assert headers["content-type"] == "application/x-protobuf"
        assert headers["x-token"] == "s3cret"
        if path == "/v1/traces":
            (span,) = decode(body, "protobuf", signal="traces")
            _check_span(span)
        else:
            (log,) = decode(body, "protobuf", signal="logs")
            _check_log(log)


def test_otlp_http_sink_reports_a_rejected_export():
    with HttpServer({"/v1/traces": [(400, b"")], "/v1/logs": [(400, b"")]}) as server:
        sink = OtlpSink(server.url, "http", timeout=5)
        assert not sink.send([_envelope()])
        sink.close()
    assert server.requests  # it did try


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_otlp_sink_reports_an_unreachable_endpoint():
    sink = OtlpSink(f"http://127.0.0.1:{_free_port()}", "http", timeout=1)
    assert not sink.send([_envelope()])
    sink.close()


# ---------------------------------------------------------------------------
# OTLP/gRPC: a grpcio servicer on 127.0.0.1
# ---------------------------------------------------------------------------


class _Traces(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, received):
        self.received = received

    def Export(self, request, context):
        self.received.append(("traces", request.SerializeToString(), dict(context.invocation_metadata())))
        return trace_service_pb2.ExportTraceServiceResponse()


class _Logs(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, received):
        self.received = received

    def Export(self, request, context):
        self.received.append(("logs", request.SerializeToString(), dict(context.invocation_metadata())))
        return logs_service_pb2.ExportLogsServiceResponse()


@pytest.fixture
def grpc_endpoint():
    received: list = []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_Traces(received), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(_Logs(received), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"http://127.0.0.1:{port}", received
    server.stop(None)


def test_otlp_grpc_sink_delivers_spans_and_events(grpc_endpoint):
    url, received = grpc_endpoint
    sink = OtlpSink(url, "grpc", headers={"x-token": "s3cret"}, timeout=5, phoenix=True)
    assert sink.send([_envelope()])
    sink.close()
    kinds = sorted(kind for kind, _, _ in received)
    assert kinds == ["logs", "traces"]
    for kind, body, metadata in received:
        assert metadata.get("x-token") == "s3cret"
        if kind == "traces":
            spans = decode(body, "protobuf", signal="traces")
            semconv = [s for s in spans if "openinference.span.kind" not in s.attributes]
            evaluator = [s for s in spans if s.attributes.get("openinference.span.kind") == "EVALUATOR"]
            assert len(semconv) == 1 and len(evaluator) == 1
            _check_span(semconv[0])
            assert [(link.trace_id, link.span_id) for link in evaluator[0].links] == [(TRACE, ROOT)]
        else:
            (log,) = decode(body, "protobuf", signal="logs")
            _check_log(log)


def test_multi_sink_writes_the_file_and_the_endpoint(grpc_endpoint, tmp_path):
    url, received = grpc_endpoint
    path = tmp_path / "scores.jsonl"
    sink = MultiSink([FileSink(str(path)), OtlpSink(url, "grpc", timeout=5)])
    assert sink.send([_envelope()])
    sink.close()
    assert len(received) == 2
    spans, logs = _read_jsonl(path)
    assert len(spans) == 1 and len(logs) == 1


def test_multi_sink_is_false_when_one_sink_fails(tmp_path):
    sink = MultiSink([FileSink(str(tmp_path / "ok.jsonl")),
                      OtlpSink(f"http://127.0.0.1:{_free_port()}", "grpc", timeout=1)])
    assert not sink.send([_envelope()])
    sink.close()
    assert (tmp_path / "ok.jsonl").read_text()  # the working sink still got the scores


@pytest.mark.parametrize("endpoint, protocol", [("127.0.0.1:4317", "grpc"), ("http://x", "smtp")])
def test_otlp_sink_refuses_bad_settings(endpoint, protocol):
    with pytest.raises(ValueError):
        OtlpSink(endpoint, protocol)
