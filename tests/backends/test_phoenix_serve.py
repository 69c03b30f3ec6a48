"""``ek-otel serve --phoenix-url`` against a real Phoenix that goes away: the agent's spans go to
Phoenix and to the server (as a Collector fanning out would send them; Phoenix first, so that
it can go away before the first score); Phoenix is stopped, the server scores, is killed with
SIGKILL and restarted, Phoenix comes back, and every run ends up with exactly one span
annotation and one trace annotation."""

from __future__ import annotations

import json
import sqlite3

from backend_servers import PhoenixServer, wait_until
from serve_helpers import GOLD_TASKS, ServerProcess, emit_run

RUNS = 6


def _rows(store: str, sql: str) -> list:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return [(0,)]
    finally:
        conn.close()


def _record_runs() -> tuple:
    """RUNS agent runs through the real SDK: (trace ids, the finished spans)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    trace_ids = [emit_run(provider.get_tracer("agent"), i) for i in range(RUNS)]
    provider.shutdown()
    return trace_ids, memory.get_finished_spans()


def _export(spans, url: str) -> None:
    """Export with the SDK's OTLP/HTTP exporter, as an agent or a Collector would."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(f"{url}/v1/traces", timeout=30)
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    exporter.shutdown()


def test_serve_annotations_survive_phoenix_down_and_kill_9(tmp_path, phoenix_executable,
                                                           server_processes):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    store = str(tmp_path / "store.db")
    phoenix = PhoenixServer(phoenix_executable).start()
    try:
        args = ["--gold", str(gold), "--store", store, "--http", "127.0.0.1:0",
                "--grpc", "127.0.0.1:0", "--grace", "0.3", "--emit-timeout", "2",
                "--emit-endpoint", phoenix.url, "--phoenix-url", phoenix.url]

        def start_server(n: int) -> ServerProcess:
            process = ServerProcess(args, str(tmp_path / f"serve{n}.log"))
            server_processes.append(process)
            return process

        first = start_server(1)
        trace_ids, recorded = _record_runs()
        _export(recorded, phoenix.url)
        # every run's root span, not just some span of it: Phoenix ingests a trace's spans apart
        spans = wait_until(
            lambda: (lambda s: s if {x["context"]["trace_id"] for x in s
                                     if x["parent_id"] is None} >= set(trace_ids)
                     else None)(phoenix.spans()),
            120, "Phoenix to ingest the runs with their root spans")
        roots = {s["context"]["trace_id"]: s["context"]["span_id"] for s in spans
                 if s["parent_id"] is None}
        phoenix.stop()  # Phoenix goes away before a single score is written there
        _export(recorded, f"http://127.0.0.1:{first.http_port}")

        wait_until(lambda: _rows(store, "SELECT COUNT(*) FROM scores")[0][0] == RUNS,
                   120, "the server to score every run")
        wait_until(lambda: _rows(store, "SELECT COUNT(*) FROM outbox WHERE sink='phoenix' "
                                        "AND attempts > 0")[0][0] > 0,
                   120, "a failed attempt to reach Phoenix")
        first.kill9()
        pending = _rows(store, "SELECT COUNT(*) FROM outbox WHERE sink='phoenix' "
                               "AND exported IS NULL")[0][0]
        assert pending == RUNS  # nothing reached Phoenix, nothing was dropped

        second = start_server(2)
        phoenix.start()  # back, same port, same database
        wait_until(lambda: _rows(store, "SELECT COUNT(*) FROM outbox WHERE exported IS NULL")[0][0]
                   == 0, 240, "the outbox to drain into Phoenix")
        assert second.terminate() == 0

        span_annotations = phoenix.span_annotations(roots[t] for t in trace_ids)
        trace_annotations = phoenix.trace_annotations(trace_ids)
        assert sorted(a["span_id"] for a in span_annotations) == sorted(roots[t] for t in trace_ids)
        assert sorted(a["trace_id"] for a in trace_annotations) == sorted(trace_ids)
        for annotation in span_annotations + trace_annotations:
            assert annotation["name"] == "ek.tool_call"
            assert annotation["result"]["label"] == "pass"
            assert annotation["result"]["score"] == 1.0
        # the evaluation spans (the OTLP sink's outbox) arrived too, one per run
        evaluation = phoenix.spans(name=["evaluation ek.tool_call"])
        assert sorted(s["context"]["trace_id"] for s in evaluation) == sorted(trace_ids)
        # Phoenix has no /v1/logs: the server said so, and did not keep retrying the events
        logs = "".join(open(tmp_path / f"serve{n}.log").read() for n in (1, 2))
        assert "has no OTLP logs endpoint" in logs
    finally:
        phoenix.remove()
