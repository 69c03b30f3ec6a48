"""collector-config.yaml run for real: the Collector scripts/otelcol.sh builds, with the shipped
file (endpoints through its environment variables), ``ek-otel serve`` behind it, and the real
OTel SDK exporters (OTLP/HTTP and OTLP/gRPC) in front of it."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from collector_helpers import (CONFIG, Collector, GrpcTap, OtlpTestSink, SdkClient, ServerProcess,
                               emit_run, payload_spans, serve_args, store_scores, store_spans,
                               wait_for, wait_until_stable)

# Without $EK_OTEL_OTELCOL the first test builds the Collector (scripts/otelcol.sh; minutes when
# its cache is cold): longer than the suite's 300 s per test. Each wait below has its own deadline.
pytestmark = pytest.mark.timeout(3600)


def _start(tmp_path, otelcol, gold, backend, *extra, tap: bool = False):
    """The Collector's ports first (serve exports its scores into it), then serve, then it
    (``tap``: through a :class:`GrpcTap` that reads how the Collector sends to serve)."""
    store = str(tmp_path / "ek.db")
    collector = Collector(otelcol, CONFIG, {"BACKEND_OTLP_ENDPOINT": f"127.0.0.1:{backend.port}",
                                            "BACKEND_OTLP_INSECURE": "true"},
                          str(tmp_path / "otelcol.log"), start=False)
    server = ServerProcess(serve_args(gold, store, emit_to=f"http://{collector.grpc_endpoint}",
                                      extra=extra), str(tmp_path / "serve.log"))
    collector.tap = GrpcTap(server.grpc_port) if tap else None
    port = collector.tap.port if tap else server.grpc_port
    collector.env["EK_OTEL_ENDPOINT"] = f"127.0.0.1:{port}"
    try:
        collector.start()
    except BaseException:
        server.close()
        raise
    return store, collector, server


def test_sdk_http_and_grpc_through_the_collector_into_serve_and_scores_back_out(
        tmp_path, otelcol, gold):
    backend = OtlpTestSink()
    store, collector, server = _start(tmp_path, otelcol, gold, backend, tap=True)
    clients = [SdkClient("http", collector.http_traces_url),
               SdkClient("grpc", collector.grpc_endpoint)]
    try:
        for i in range(16):
            emit_run(clients[i % 2].tracer, i)
        for client in clients:
            client.flush()
        sent = clients[0].sent | clients[1].sent
        traces = {t for t, _ in sent}
        assert len(sent) == 48 and len(traces) == 16
        assert {t for t, _ in clients[0].sent}.isdisjoint({t for t, _ in clients[1].sent})

        # every span arrives in serve's store, once
        wait_for(lambda: store_spans(store) >= sent, 60, "every span in the store")
        # every run is scored
        wait_for(lambda: {t for t, _ in store_scores(store)} == traces, 60, "every run scored")
        # the scores go back out through the Collector to the backend (evaluation spans),
        # beside the agent's own spans
        wait_for(lambda: {t for t, *_ in backend.evaluation_spans()} >= traces, 60,
                 "the scores at the backend")
        agent_spans = {(s.trace_id.hex(), s.span_id.hex()) for s in backend.spans
                       if (s.trace_id.hex(), s.span_id.hex()) in sent}
        assert agent_spans == sent
        evaluation = backend.evaluation_spans()
        # the Collector also sent ek-otel its own output (the traces/ek-otel pipeline takes
        # everything the receiver gets): the agent's spans and the evaluation spans
        wait_for(lambda: collector.metric_sum("otelcol_exporter_sent_spans",
                                              exporter="otlp_grpc/ek-otel") >= len(sent) + len(evaluation),
                 60, "the evaluation spans sent on to ek-otel too")
        # ... which never scores it: after the grace period has passed again, the store holds
        # only the agent's spans, and each run has exactly one score, revision 0
        time.sleep(3.0)
        wait_until_stable(lambda: len(store_scores(store)))
        assert store_spans(store) == sent
        assert Counter(payload_spans(store)) == Counter(sent)    # no span stored twice
        assert sorted(store_scores(store)) == sorted((t, 0) for t in traces)
        assert all(t in traces for t, *_ in evaluation)
        # exactly one score per run reached the backend (spans: one evaluation span per
        # metric, all of revision 0)
        assert {rev for _, rev, *_ in evaluation} == {0}
        # the Collector exported to ek-otel with its default gzip (the shipped file sets no
        # compression): on the wire, every gRPC message it sent has the compressed flag set
        assert collector.tap.compressed and set(collector.tap.compressed) == {1}, \
            collector.tap.compressed
        assert collector.metric_sum("otelcol_exporter_send_failed_spans",
                                    exporter="otlp_grpc/ek-otel") == 0
    finally:
        for client in clients:
            client.close()
        collector.stop()
        collector.tap.close()
        server.close()
        backend.stop()


def test_backpressure_the_collector_retries_until_serve_has_room(tmp_path, otelcol, gold):
    """serve at tiny caps refuses with UNAVAILABLE + RetryInfo; the Collector's queue and
    retries deliver every span once serve has room: nothing lost, nothing twice."""
    backend = OtlpTestSink()
    store, collector, server = _start(tmp_path, otelcol, gold, backend,
                                      "--max-open-traces", "6", "--grace", "1.0")
    client = SdkClient("grpc", collector.grpc_endpoint, schedule_delay_ms=50)
    try:
        for i in range(30):
            emit_run(client.tracer, i % 20)
            time.sleep(0.1)
        client.flush()
        sent = client.sent
        traces = {t for t, _ in sent}
        assert len(sent) == 90
        wait_for(lambda: store_spans(store) >= sent, 120, "every span in the store")
        wait_for(lambda: {t for t, _ in store_scores(store)} == traces, 60, "every run scored")
        wait_until_stable(lambda: len(store_scores(store)))
        assert store_spans(store) == sent
        assert Counter(payload_spans(store)) == Counter(sent)
        assert sorted(store_scores(store)) == sorted((t, 0) for t in traces)
        # serve refused, and the Collector retried: its gRPC client's calls (its own metrics,
        # level detailed) include UNAVAILABLE answers, and later OK ones
        calls = _export_calls(collector)
        assert calls.get("UNAVAILABLE", 0) > 0, calls
        assert calls.get("OK", 0) > 0, calls
        assert collector.metric_sum("otelcol_exporter_send_failed_spans",
                                    exporter="otlp_grpc/ek-otel") == 0
    finally:
        client.close()
        collector.stop()
        server.close()
        backend.stop()


def _export_calls(collector) -> dict:
    """status -> the Collector's gRPC client calls of TraceService/Export (to ek-otel and to
    the backend), from ``rpc_client_call_duration`` (labels of the newer RPC conventions)."""
    out: dict = {}
    for (name, labels), value in collector.metrics().items():
        labels = dict(labels)
        if (name == "rpc_client_call_duration_count"
                and labels.get("rpc_method", "").endswith("TraceService/Export")):
            status = labels.get("rpc_response_status_code", "?")
            out[status] = out.get(status, 0) + value
    return out
