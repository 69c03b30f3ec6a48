"""collector-loadbalancing.yaml run for real: the load_balancing exporter (routing_key traceID,
static resolver, groupbytrace before it) in front of three ``ek-otel serve`` instances, each
with its own store; the real OTel SDK exporters in front of it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from collector_helpers import (LB_CONFIG, Collector, OtlpTestSink, SdkClient, ServerProcess,
                               payload_spans, serve_args, store_scores, store_spans, wait_for,
                               wait_until_stable)

# Without $EK_OTEL_OTELCOL the first test builds the Collector (scripts/otelcol.sh; minutes when
# its cache is cold): longer than the suite's 300 s per test. Each wait below has its own deadline.
pytestmark = pytest.mark.timeout(3600)


def spread_run(tracer, i: int, pause_s: float, done: threading.Event | None = None) -> None:
    """One agent run whose spans end ``pause_s`` apart (each in its own export call: the SDK's
    batch delay is shorter), the root last; ``done``: the root waits for it."""
    import json as _json

    with tracer.start_as_current_span("invoke_agent helper", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
            "ek.task.id": f"task-{i % 20}"}):
        with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 100 + i, "gen_ai.usage.output_tokens": 10}):
            pass
        time.sleep(pause_s)
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                # every fifth run calls the tool wrongly: the report has failures too
                "gen_ai.tool.call.arguments": _json.dumps(
                    {"city": f"city-{i % 20}" if i % 5 else "atlantis"})}):
            pass
        time.sleep(pause_s)
        if done is not None:
            done.wait(60)


def run_agents(clients, indices, pause_s: float, done=None) -> list:
    threads = [threading.Thread(target=spread_run, args=(clients[n % len(clients)].tracer, i,
                                                         pause_s, done), daemon=True)
               for n, i in enumerate(indices)]
    for n, t in enumerate(threads):
        t.start()
        time.sleep(0.02)
    return threads


class Instances:
    """N ``ek-otel serve`` processes, each with its own store and gRPC port."""

    def __init__(self, tmp_path, gold, n: int, emit_to: str, extra=()):
        self.tmp_path, self.gold, self.emit_to, self.extra = tmp_path, gold, emit_to, extra
        (tmp_path / "stores").mkdir(exist_ok=True)
        self.stores = [str(tmp_path / "stores" / f"ek{k}.db") for k in range(n)]
        self.procs = [self._start(k, "127.0.0.1:0") for k in range(n)]
        self.ports = [p.grpc_port for p in self.procs]

    def _start(self, k: int, grpc: str) -> ServerProcess:
        return ServerProcess(serve_args(self.gold, self.stores[k], grpc=grpc,
                                        emit_to=self.emit_to, extra=self.extra),
                             str(self.tmp_path / f"serve{k}.log"))

    def restart(self, k: int) -> None:
        self.procs[k].close()
        self.procs[k] = self._start(k, f"127.0.0.1:{self.ports[k]}")

    @property
    def backends(self) -> str:
        return "[" + ", ".join(f"127.0.0.1:{p}" for p in self.ports) + "]"

    def spans(self) -> list:
        return [store_spans(s) for s in self.stores]

    def close(self) -> None:
        for p in self.procs:
            p.close()


def where(instances: Instances) -> dict:
    """trace id -> the set of instances whose store holds spans of it."""
    out: dict = {}
    for k, spans in enumerate(instances.spans()):
        for t, _ in spans:
            out.setdefault(t, set()).add(k)
    return out


def report_json(tmp_path, name: str, *stores) -> bytes:
    out = tmp_path / f"{name}.json"
    args = [sys.executable, "-m", "ek_otel", "report", "--json", str(out)]
    for store in stores:
        args += ["--store", store]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def _lb_collector(otelcol, tmp_path, backend, name="otelcol", **env):
    return Collector(otelcol, LB_CONFIG, {"BACKEND_OTLP_ENDPOINT": f"127.0.0.1:{backend.port}",
                                          "BACKEND_OTLP_INSECURE": "true", **env},
                     str(tmp_path / f"{name}.log"), start=False)


def test_three_instances_each_trace_on_one_kill_9_and_the_merged_report(
        tmp_path, otelcol, gold):
    backend = OtlpTestSink()
    collector = _lb_collector(otelcol, tmp_path, backend)
    emit_to = f"http://{collector.grpc_endpoint}"
    instances = Instances(tmp_path, gold, 3, emit_to)
    # one more instance receives every span straight from the same SDK clients: the report
    # the three stores must give together
    single_store = str(tmp_path / "single.db")
    single = ServerProcess(serve_args(gold, single_store), str(tmp_path / "single.log"))
    collector.env["EK_OTEL_BACKENDS"] = instances.backends
    clients = []
    try:
        collector.start()
        for protocol, target in (("http", collector.http_traces_url),
                                 ("grpc", collector.grpc_endpoint)):
            client = SdkClient(protocol, target, schedule_delay_ms=50, max_batch=8,
                               also=("grpc", f"127.0.0.1:{single.grpc_port}"))
            clients.append(client)
        first = run_agents(clients, range(0, 24), pause_s=0.4)
        # kill -9 one instance while runs are in flight, restart it on its port, same store
        wait_for(lambda: any(instances.spans()[1]), 60, "instance 1 to hold spans")
        instances.procs[1].kill9()
        second = run_agents(clients, range(24, 36), pause_s=0.4)
        time.sleep(1.5)
        instances.restart(1)
        for t in first + second:
            t.join(60)
        for client in clients:
            client.flush()
        sent = set().union(*(c.sent for c in clients))
        traces = {t for t, _ in sent}
        assert len(traces) == 36 and len(sent) == 108

        wait_for(lambda: set().union(*instances.spans()) >= sent, 120,
                 "every span in some store")
        wait_for(lambda: {t for s in instances.stores for t, _ in store_scores(s)} == traces,
                 120, "every run scored")
        wait_for(lambda: {t for t, _ in store_scores(single_store)} == traces, 60,
                 "every run scored by the single instance")
        for store in instances.stores + [single_store]:
            wait_until_stable(lambda: len(store_scores(store)))
        # each trace lands on exactly one instance, whole; every instance gets a share
        placed = where(instances)
        assert set(placed) == traces
        assert all(len(ks) == 1 for ks in placed.values()), placed
        shares = Counter(next(iter(ks)) for ks in placed.values())
        assert set(shares) == {0, 1, 2}, shares
        assert set().union(*instances.spans()) == sent
        for k, store in enumerate(instances.stores):
            assert Counter(payload_spans(store)) == Counter(
                s for s in sent if placed[s[0]] == {k})
        # every run scored exactly once, over all instances (the killed one included)
        scores = [row for store in instances.stores for row in store_scores(store)]
        assert sorted(scores) == sorted((t, 0) for t in traces)
        # the three stores report as the one instance that received everything
        merged = report_json(tmp_path, "merged", *instances.stores)
        assert merged == report_json(tmp_path, "single", single_store)
        figures = json.loads(merged)["aggregate"]
        assert figures["episodes"] == 36 and 0 < figures["f1"] < 1
        # the Collector held the killed instance's traces and retried them
        killed = f"127.0.0.1:{instances.ports[1]}"
        assert any("Exporting failed" in line and killed in line
                   for line in collector.log_text().splitlines())
        # a directory of stores is the same corpus
        assert report_json(tmp_path, "dir", str(tmp_path / "stores")) == merged
    finally:
        for client in clients:
            client.close()
        collector.stop()
        instances.close()
        single.close()
        backend.stop()


@pytest.mark.parametrize("ring_before, ring_after", [((0, 1), (0, 1, 2)), ((0, 1, 2), (0, 1))],
                         ids=["instance-added", "instance-removed"])
def test_a_ring_change(tmp_path, otelcol, gold, ring_before, ring_after):
    """The ring changes (the Collector restarted with another list): a third instance added
    to two, or one of three removed. Runs sent wholly before or after the change land on one
    instance each; a run in flight across the change either stays whole or is split between
    its old instance and its new one, and only where consistent hashing moves a trace (to the
    added instance, or away from the removed one); `ek-otel report` over the stores says so
    and counts each trace once."""
    backend = OtlpTestSink()
    collector = _lb_collector(otelcol, tmp_path, backend, EK_OTEL_GROUP_WAIT="1s")
    instances = Instances(tmp_path, gold, 3, f"http://{collector.grpc_endpoint}",
                          extra=("--max-wait", "6"))

    def ring(indices) -> str:
        return "[" + ", ".join(f"127.0.0.1:{instances.ports[k]}" for k in indices) + "]"

    collector.env["EK_OTEL_BACKENDS"] = ring(ring_before)
    added, removed = set(ring_after) - set(ring_before), set(ring_before) - set(ring_after)
    client = None
    try:
        collector.start()
        client = SdkClient("grpc", collector.grpc_endpoint, schedule_delay_ms=50)
        for t in run_agents([client], range(0, 24), pause_s=0.1):
            t.join(60)
        client.flush()
        before = {t for t, _ in client.sent}
        # in flight: their first spans go out before the change, their roots after it
        done = threading.Event()
        straddling = run_agents([client], range(24, 44), pause_s=0.1, done=done)
        time.sleep(1.0)
        client.flush()
        early = {t for t, _ in client.sent} - before
        assert len(early) == 20
        wait_for(lambda: set(where(instances)) >= before | early, 60,
                 "the early spans delivered (groupbytrace released them)")
        collector.stop()
        collector.env["EK_OTEL_BACKENDS"] = ring(ring_after)
        collector.start()
        done.set()
        for t in straddling:
            t.join(60)
        for t in run_agents([client], range(44, 68), pause_s=0.1):
            t.join(60)
        client.flush()
        sent = client.sent
        after = {t for t, _ in sent} - before - early
        assert len(after) == 24
        wait_for(lambda: set().union(*instances.spans()) >= sent, 120, "every span stored")
        placed = where(instances)
        assert all(len(placed[t]) == 1 for t in before | after)
        assert {next(iter(placed[t])) for t in before} == set(ring_before)
        assert {next(iter(placed[t])) for t in after} == set(ring_after)
        split = {t for t in early if len(placed[t]) > 1}
        for t in split:
            # consistent hashing: a trace moves only to the added instance, or away from the
            # removed one; its two parts are on exactly those two instances
            assert len(placed[t]) == 2 and placed[t] & (added | removed), placed[t]
            assert placed[t] <= set(ring_before) | set(ring_after), placed[t]
        assert split, "no run in flight moved (each moves with probability 1/3)"
        # every part is scored (the root-less part after --max-wait), once per store
        wait_for(lambda: sum(len({t for t, _ in store_scores(s)}) for s in instances.stores)
                 == len(before) + len(after) + len(early) + len(split), 60, "every part scored")
        done_report = subprocess.run(
            [sys.executable, "-m", "ek_otel", "report", "--store", str(tmp_path / "stores"),
             "--json", str(tmp_path / "ring.json")], capture_output=True, text=True, timeout=300)
        assert done_report.returncode == 0, done_report.stderr
        assert (f"warning: {len(split)} traces were scored in more than one store"
                in done_report.stdout + done_report.stderr)
        data = json.loads((tmp_path / "ring.json").read_text())
        reported = [e["trace_id"] for e in data["episodes"]] + [
            u["trace_id"] for u in data["unmatched"]]
        assert sorted(reported) == sorted(before | early | after)
    finally:
        if client is not None:
            client.close()
        collector.stop()
        instances.close()
        backend.stop()
