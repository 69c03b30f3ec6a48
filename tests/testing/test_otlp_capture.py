"""ek_otel.testing.otlp_capture: what the real SDK exporters send arrives whole, over HTTP
(protobuf, JSON, gzip) and gRPC."""

from __future__ import annotations

import gzip
import http.client

from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from ek_otel.testing.otlp_capture import OtlpCapture


def _send(exporter, name: str) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("t").start_as_current_span(name):
        pass
    provider.shutdown()


def _span_names(body: bytes) -> list:
    request = ExportTraceServiceRequest.FromString(body)
    return [s.name for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]


def test_http_protobuf_gzip_from_the_real_exporter_is_unzipped():
    with OtlpCapture() as capture:
        _send(HttpExporter(endpoint=capture.http_url + "/v1/traces",
                           compression=Compression.Gzip), "gzipped")
    (request,) = capture.requests
    assert (request.protocol, request.signal, request.encoding) == ("http", "traces", "pb")
    assert request.headers["content-encoding"] == "gzip"
    assert _span_names(request.body) == ["gzipped"]


def test_keep_gzip_keeps_the_body_as_sent():
    with OtlpCapture(keep_gzip=True) as capture:
        _send(HttpExporter(endpoint=capture.http_url + "/v1/traces",
                           compression=Compression.Gzip), "raw")
    assert _span_names(gzip.decompress(capture.requests[0].body)) == ["raw"]


def test_grpc_export_is_captured_with_a_label():
    with OtlpCapture(grpc=True, label=lambda: "run-1") as capture:
        _send(GrpcExporter(endpoint=f"127.0.0.1:{capture.grpc_port}", insecure=True), "over-grpc")
    (request,) = capture.requests
    assert (request.protocol, request.signal, request.encoding) == ("run-1", "traces", "pb")
    assert capture.bodies("traces") == [request.body]
    assert _span_names(request.body) == ["over-grpc"]


def test_chunked_json_body():
    with OtlpCapture() as capture:
        host, port = capture.http_url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port))
        conn.request("POST", "/v1/logs", body=iter([b'{"resource', b'Logs":[]}']),
                     headers={"Content-Type": "application/json"}, encode_chunked=True)
        assert conn.getresponse().read() == b"{}"
        conn.close()
    assert capture.bodies("logs", "json") == [b'{"resourceLogs":[]}']
