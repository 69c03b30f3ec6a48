"""What the OpenTelemetry Collector tier costs in front of ``ek-otel serve``, and what scale-out
across instances would sustain: one run, the same clients and the same spans, three ways.

1. **direct**: the real SDK exporters (``bench/serve_load.py``'s client processes) straight
   into one ``ek-otel serve``;
2. **collector**: the same clients into the real Collector (scripts/otelcol.sh) running the
   shipped ``collector-config.yaml``, in front of one ``ek-otel serve``;
3. **loadbalancing**: the same clients into the Collector running the shipped
   ``collector-loadbalancing.yaml`` in front of three ``ek-otel serve`` instances, each with
   its own store.

For each: spans/s **accepted** (acknowledged to the SDK / wall time of the clients) and
**scored** (spans sent / time until every run was scored), **zero loss** (every export call
succeeded and the stores hold every span, each trace in exactly one store), the **p99 export
latency** of the SDK's ``export()`` calls, and the **CPU per span** of each process group
(the Collector; the ek-otel instances with their scoring workers). On 2 cores three instances
cannot be faster than one: the point is the cost per span, from which the last table works
out, on paper, what N instances on N machines would sustain (each instance's receiver is
one Python process, a one-core bound; its scoring workers use the other cores).

Usage:
    python bench/collector.py                     # 30k spans, 3 clients, OTLP/HTTP
    python bench/collector.py --spans 100000 --protocol grpc --cores 8
    python bench/collector.py --json out.json

``$EK_OTEL_OTELCOL`` names the Collector binary; without it scripts/otelcol.sh builds it.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ingest  # noqa: E402  (the generator of the spans and the gold file)
import serve_load  # noqa: E402  (the ek-otel server process and the SDK client processes)

REPO = Path(HERE).parent
SERVE_ARGS = ["--grace", "1.0", "--scorers", "1"]


def otelcol_binary() -> str:
    path = os.environ.get("EK_OTEL_OTELCOL")
    if path:
        return path
    done = subprocess.run(["bash", str(REPO / "scripts" / "otelcol.sh")], stdout=subprocess.PIPE,
                          text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Collector:
    """The real Collector with a shipped config, on free loopback ports."""

    def __init__(self, binary: str, config: Path, env: dict, workdir: str):
        self.grpc_port, self.http_port, metrics = free_port(), free_port(), free_port()
        self.log_path = os.path.join(workdir, "otelcol.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "--config", str(config)], stdout=self.log, stderr=subprocess.STDOUT,
            env={**os.environ, "COLLECTOR_GRPC_ENDPOINT": f"127.0.0.1:{self.grpc_port}",
                 "COLLECTOR_HTTP_ENDPOINT": f"127.0.0.1:{self.http_port}",
                 "COLLECTOR_METRICS_HOST": "127.0.0.1", "COLLECTOR_METRICS_PORT": str(metrics),
                 **env})
        deadline = time.monotonic() + 60
        while b"Everything is ready" not in open(self.log_path, "rb").read():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the Collector did not start:\n" + open(self.log_path).read())
            time.sleep(0.05)

    def cpu_s(self) -> float:
        return cpu_of(self.proc.pid)

    def stop(self) -> None:
        serve_load.stop_process(self.proc, self.log, 60)


count = serve_load.store_count


def trace_ids(store: str) -> set:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return {r[0] for r in conn.execute("SELECT trace_id FROM traces")}
    finally:
        conn.close()


def run_phase(name: str, args, workdir: str, gold: str, otelcol: Optional[str]) -> dict:
    """One way of the three: start what it needs, push the spans, wait until all is scored."""
    os.makedirs(workdir)
    n_instances = 3 if name == "loadbalancing" else 1
    servers = []
    collector = None
    try:
        for k in range(n_instances):
            folder = os.path.join(workdir, f"ek{k}")
            os.makedirs(folder)
            servers.append(serve_load.Server(folder, gold, list(SERVE_ARGS)))
        if name == "direct":
            port = servers[0].grpc_port if args.protocol == "grpc" else servers[0].http_port
        else:
            config = REPO / ("collector-loadbalancing.yaml" if name == "loadbalancing"
                             else "collector-config.yaml")
            # the Collector's own copy to a backend is not measured: it goes to a sink that
            # accepts everything (another ek-otel would double the cost being measured)
            env = {"BACKEND_OTLP_ENDPOINT": f"127.0.0.1:{args.sink_port}",
                   "BACKEND_OTLP_INSECURE": "true",
                   "EK_OTEL_ENDPOINT": f"127.0.0.1:{servers[0].grpc_port}",
                   "EK_OTEL_BACKENDS": "[" + ", ".join(f"127.0.0.1:{s.grpc_port}"
                                                       for s in servers) + "]"}
            collector = Collector(otelcol, config, env, workdir)
            port = collector.grpc_port if args.protocol == "grpc" else collector.http_port
        cpu0 = [s.cpu_s() for s in servers]
        receiver0 = [s.cpu_by_process()[0] for s in servers]
        coll0 = collector.cpu_s() if collector else 0.0
        pushed = serve_load.push(args.spans, args.clients, args.protocol, port)
        clients = pushed["clients"]
        start = pushed["start"]
        accept_end = max(c["end"] for c in clients)
        sent = sum(c["spans"] for c in clients)
        acked = sum(c["exported"] for c in clients)
        failed = sum(c["failed"] for c in clients)
        latencies = [x for c in clients for x in c["latencies"]]
        deadline = time.monotonic() + 900

        def stored() -> int:
            return sum(count(s.store, "SELECT COUNT(*) FROM spans") for s in servers)

        while stored() < sent and time.monotonic() < deadline:
            time.sleep(0.2)
        stored_at = time.time()

        def open_traces() -> int:
            return sum(count(s.store, "SELECT COUNT(*) FROM traces WHERE state='open'")
                       for s in servers)

        while open_traces() and time.monotonic() < deadline:
            time.sleep(0.2)
        scored_at = time.time()
        in_store = stored()
        scored = sum(count(s.store, "SELECT COUNT(DISTINCT trace_id) FROM scores") for s in servers)
        ids = [trace_ids(s.store) for s in servers]
        overlap = sum(len(a) for a in ids) - len(set().union(*ids))
        serve_cpu = sum(s.cpu_s() - c for s, c in zip(servers, cpu0))
        receiver_cpu = sum(s.cpu_by_process()[0] - c for s, c in zip(servers, receiver0))
        coll_cpu = (collector.cpu_s() - coll0) if collector else 0.0
    finally:
        if collector:
            collector.stop()
        codes = [s.stop() for s in servers]
    traces = len(set().union(*ids))
    return {
        "phase": name, "instances": n_instances, "spans_sent": sent, "spans_acknowledged": acked,
        "spans_failed": failed, "spans_in_stores": in_store, "traces": traces,
        "traces_scored": scored, "traces_in_two_stores": overlap,
        "per_instance_traces": [len(x) for x in ids],
        "zero_loss": failed == 0 and in_store == sent and overlap == 0 and scored == traces,
        "accepted_spans_per_s": acked / max(1e-9, accept_end - start),
        "stored_spans_per_s": sent / max(1e-9, stored_at - start),
        "scored_spans_per_s": sent / max(1e-9, scored_at - start),
        "p50_export_latency_ms": serve_load.percentile(latencies, 0.50) * 1000,
        "p99_export_latency_ms": serve_load.percentile(latencies, 0.99) * 1000,
        "serve_cpu_us_per_span": serve_cpu / max(1, sent) * 1e6,
        "serve_receiver_cpu_us_per_span": receiver_cpu / max(1, sent) * 1e6,
        "collector_cpu_us_per_span": coll_cpu / max(1, sent) * 1e6,
        "server_exit_codes": codes,
    }


class _Sink:
    """The Collector's backend copy: a gRPC OTLP endpoint that accepts and drops everything."""

    def __init__(self):
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        class Traces(trace_service_pb2_grpc.TraceServiceServicer):
            def Export(self, request, context):
                return trace_service_pb2.ExportTraceServiceResponse()

        class Logs(logs_service_pb2_grpc.LogsServiceServicer):
            def Export(self, request, context):
                return logs_service_pb2.ExportLogsServiceResponse()

        self.server = grpc.server(futures.ThreadPoolExecutor(2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), self.server)
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def stop(self) -> None:
        self.server.stop(0)


def on_paper(phases: dict, cores: int, machines: tuple) -> list:
    """(N, spans/s N instances on N machines of ``cores`` cores would sustain, Collector cores
    that rate needs), from the measured per-span costs of the load-balancing phase."""
    lb = phases["loadbalancing"]
    total_us, receiver_us = lb["serve_cpu_us_per_span"], lb["serve_receiver_cpu_us_per_span"]
    # one instance: its receiver process is bound by one core, the whole by the machine's cores
    per_instance = min(1e6 / max(receiver_us, 1e-9), cores * 1e6 / max(total_us, 1e-9))
    rows = []
    for n in machines:
        rate = n * per_instance
        rows.append({"instances": n, "spans_per_s": rate,
                     "collector_cores": rate * lb["collector_cpu_us_per_span"] / 1e6})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=30_000)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--protocol", choices=("http", "grpc"), default="http")
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)),
                        help="cores of each machine, for the on-paper scale-out")
    parser.add_argument("--only", default="direct,collector,loadbalancing")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    only = [s for s in args.only.split(",") if s]
    otelcol = otelcol_binary() if set(only) - {"direct"} else None
    one, five, _ = os.getloadavg()
    print(f"bench/collector.py: {args.spans:,} spans, {args.clients} SDK client processes, "
          f"OTLP/{args.protocol} (load {one:.1f}/{five:.1f} on "
          f"{len(os.sched_getaffinity(0))} cores)")
    sink = _Sink()
    args.sink_port = sink.port
    phases: dict = {}
    try:
        with tempfile.TemporaryDirectory(prefix="ek-bench-collector-") as work:
            gold = os.path.join(work, "gold.jsonl")
            ingest.write_gold(gold)
            for name in only:
                phases[name] = run_phase(name, args, os.path.join(work, name), gold, otelcol)
    finally:
        sink.stop()
    print(f"{'':38s}" + "".join(f"{name:>16s}" for name in phases))
    for key, fmt in (("accepted_spans_per_s", "{:,.0f}"), ("scored_spans_per_s", "{:,.0f}"),
                     ("zero_loss", "{}"), ("p99_export_latency_ms", "{:.0f}"),
                     ("serve_cpu_us_per_span", "{:.1f}"),
                     ("serve_receiver_cpu_us_per_span", "{:.1f}"),
                     ("collector_cpu_us_per_span", "{:.1f}"), ("per_instance_traces", "{}")):
        print(f"  {key:36s}" + "".join(f"{fmt.format(p[key]):>16s}" for p in phases.values()))
    report = {"phases": phases}
    if "loadbalancing" in phases:
        report["on_paper"] = on_paper(phases, args.cores, (1, 2, 4, 8, 16))
        print(f"on paper, from the load-balancing phase's cost per span ({args.cores}-core "
              "machines, one ek-otel instance each):")
        for row in report["on_paper"]:
            print(f"  {row['instances']:3d} instances: {row['spans_per_s']:>12,.0f} spans/s, "
                  f"Collector tier {row['collector_cores']:.1f} cores")
    one, five, _ = os.getloadavg()
    print(f"done (load {one:.1f}/{five:.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0 if all(p["zero_loss"] for p in phases.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
