"""OTLP/gRPC receiver: the SDK's gRPC exporter, big messages, bad input, auth, overload."""

from __future__ import annotations

import os

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from serve_helpers import emit_run, make_provider, wait_for

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def call(target, body: bytes, metadata=()):
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 128 * 2**20)]) as ch:
        fn = ch.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
        return fn(body, metadata=metadata, timeout=30)


def request(trace_byte: int, n_spans: int = 1, attr_size: int = 0) -> bytes:
    req = ExportTraceServiceRequest()
    ss = req.resource_spans.add().scope_spans.add()
    for i in range(n_spans):
        span = ss.spans.add()
        span.trace_id = bytes([trace_byte]) * 16
        span.span_id = (i + 1).to_bytes(8, "big")
        if i:
            span.parent_span_id = (1).to_bytes(8, "big")
        span.name = f"s{i}"
        if attr_size:
            a = span.attributes.add()
            a.key, a.value.string_value = "blob", "x" * attr_size
    return req.SerializeToString()


def test_sdk_grpc_exporter_with_gzip(start_server):
    """The Collector's otlp exporter compresses with gzip by default: grpcio decodes it."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.exporter.otlp.proto.grpc.exporter import Compression

    server = start_server()
    provider = make_provider(OTLPSpanExporter(endpoint=server.grpc_target, insecure=True,
                                              compression=Compression.Gzip))
    tracer = provider.get_tracer("test")
    ids = {emit_run(tracer, i) for i in range(3)}
    provider.shutdown()
    wait_for(lambda: server.counts()["scored"] == 3, 30, "3 traces scored")
    rows = server.app.writer.call(lambda s: s.latest_scores())
    assert {r.trace_id for r in rows} == ids


def test_message_over_4_mib_is_accepted(start_server):
    server = start_server()
    body = request(0x51, n_spans=10, attr_size=600_000)   # ~6 MB, over grpcio's default cap
    assert len(body) > 4 * 2**20
    resp = ExportTraceServiceResponse.FromString(call(server.grpc_target, body))
    assert not resp.HasField("partial_success")
    assert server.counts()["spans"] == 10


def test_undecodable_is_invalid_argument_and_server_keeps_serving(start_server):
    server = start_server()
    with pytest.raises(grpc.RpcError) as err:
        call(server.grpc_target, os.urandom(2048))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    call(server.grpc_target, request(0x52))
    assert server.counts()["spans"] == 1


def test_overload_is_unavailable_with_retry_info(start_server):
    server = start_server(max_open_traces=1, grace_s=60.0, max_wait_s=600.0)
    call(server.grpc_target, request(0x53))
    with pytest.raises(grpc.RpcError) as err:
        call(server.grpc_target, request(0x54))
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    details = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(details)
    info = error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(info) and info.retry_delay.seconds == 1


def test_bearer_token_in_metadata(start_server):
    server = start_server(auth_token="tok")
    with pytest.raises(grpc.RpcError) as err:
        call(server.grpc_target, request(0x55))
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    call(server.grpc_target, request(0x55), metadata=(("authorization", "Bearer tok"),))
    assert server.counts()["spans"] == 1


def test_partial_success_for_rejected_spans(start_server):
    server = start_server()
    req = ExportTraceServiceRequest.FromString(request(0x56))
    bad = req.resource_spans[0].scope_spans[0].spans.add()
    bad.trace_id, bad.span_id = b"\x00" * 16, b"\x01" * 8
    resp = ExportTraceServiceResponse.FromString(call(server.grpc_target, req.SerializeToString()))
    assert resp.partial_success.rejected_spans == 1


def test_requests_past_the_receive_slots_are_unavailable_with_retry_info_before_being_read(
        start_server):
    """Regression: grpcio read every concurrent request whole before the in-flight cap was
    checked (30 x 40 MiB peaked at 1.7 GB RSS). Now at most max_inflight // max_body requests
    are read at once (here 8 // 4 = 2); the next is refused at once with UNAVAILABLE +
    RetryInfo, unread, and goes through on retry once a slot is free."""
    import threading

    server = start_server(max_body_bytes=4 * 2**20, max_inflight_bytes=8 * 2**20)
    assert server.app.grpc.max_receives == 2
    release = threading.Event()
    body = request(0x57, attr_size=2 * 2**20)   # a 2 MiB message

    def slow_client(trace_byte):
        release.wait(30)   # a client that has opened its stream but not sent its message yet
        yield request(trace_byte)

    with grpc.insecure_channel(server.grpc_target) as ch:
        streaming = ch.stream_unary(METHOD, request_serializer=None, response_deserializer=None)
        holders = [streaming.future(slow_client(0x58 + i), timeout=30) for i in range(2)]
        wait_for(lambda: server.app.grpc.receiving == 2, 10, "both slots taken")
        with pytest.raises(grpc.RpcError) as err:
            call(server.grpc_target, body)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        status = status_pb2.Status.FromString(
            dict(err.value.trailing_metadata())["grpc-status-details-bin"])
        info = error_details_pb2.RetryInfo()
        assert status.details[0].Unpack(info) and info.retry_delay.seconds == 1
        assert server.counts()["spans"] == 0
        release.set()
        for holder in holders:
            ExportTraceServiceResponse.FromString(holder.result(30))
    ExportTraceServiceResponse.FromString(call(server.grpc_target, body))   # the retry
    assert server.counts()["spans"] == 3
