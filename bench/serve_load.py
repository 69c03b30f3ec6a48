"""Load benchmark of ``ek-otel serve``: real SDK exporters over loopback, against the decode floor.

Setup: ``ek-otel serve`` runs in a subprocess (its store in a temporary directory). Several
client processes each turn their share of a fixed set of GenAI agent traces (the generator
of ``bench/ingest.py``: 10 spans per run, JSON messages, tool calls) into SDK spans, then
push them through the **real** SDK pipeline, ``BatchSpanProcessor`` + ``OTLPSpanExporter``
(OTLP/HTTP protobuf by default, or gRPC), all starting together.

It reports, in one run:

- **accepted spans/s**: spans acknowledged by the server / wall time from the start to the
  last acknowledgement, and **zero loss**: the store holds every span sent, and every
  export call succeeded;
- the **p99 export latency** (one ``export()`` call of the SDK exporter, retries included);
- **server CPU per span** (the server and its scoring worker, from /proc) and the spans/s
  that CPU time would allow;
- **peak RSS** of the server (plus its scoring worker);
- the time until every run was **scored**;
- the **decode floor** of the same spans (``bench/ingest.py``'s ``floor``: parse + full
  attribute walk + json.loads + group by trace), measured in the same run, and the ratio;
- with ``--overload``: a second server with small caps and a long grace, flooded: it must
  answer 503 + Retry-After (never crash), with bounded RSS, and keep serving /healthz.

Targets (2 cores): ≥ 10k spans/s with protobuf, ≥ 0.25x the floor, zero loss, bounded RSS.

Usage:
    python bench/serve_load.py                          # 100k spans, 3 clients, HTTP
    python bench/serve_load.py --spans 200000 --clients 4 --protocol grpc
    python bench/serve_load.py --overload
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ingest  # noqa: E402  (bench/ingest.py: the generator and the decode floor)


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------


class Server:
    LISTEN = re.compile(rb"listening on http [^:]+:(\d+), grpc [^:]+:(\d+)")

    def __init__(self, workdir: str, gold: str, extra: list, ek_otel: Optional[list] = None):
        """``ek_otel``: the command that runs ``ek-otel`` (default: this interpreter's
        ``-m ek_otel``; ``bench/all.py --before`` passes another source tree's)."""
        self.log_path = os.path.join(workdir, "server.log")
        self.store = os.path.join(workdir, "store.db")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [*(ek_otel or [sys.executable, "-m", "ek_otel"]), "serve", "--gold", gold,
             "--store", self.store, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            m = self.LISTEN.search(open(self.log_path, "rb").read())
            if m:
                self.http_port, self.grpc_port = int(m.group(1)), int(m.group(2))
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("server did not start:\n" + open(self.log_path).read())
            time.sleep(0.05)

    def pids(self) -> list:
        pids = [self.proc.pid]
        try:
            for task in os.listdir(f"/proc/{self.proc.pid}/task"):
                with open(f"/proc/{self.proc.pid}/task/{task}/children") as f:
                    pids += [int(p) for p in f.read().split()]
        except OSError:
            pass
        return pids

    def cpu_s(self) -> float:
        """CPU time (user + system) of the server and its workers so far."""
        return sum(self.cpu_by_process())

    def cpu_by_process(self) -> list:
        """CPU seconds of each process: the server first, then its children (the
        multiprocessing resource tracker and the scoring workers)."""
        out = []
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                out.append((int(fields[11]) + int(fields[12])) / tick)
            except OSError:
                pass
        return out

    def rss_mib(self) -> float:
        """Current RSS of the server and its workers (MiB)."""
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    def count(self, sql: str) -> int:
        return store_count(self.store, sql)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/healthz", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def stop(self) -> int:
        return stop_process(self.proc, self.log)


def stop_process(proc: subprocess.Popen, log, timeout: float = 120) -> int:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; close its log; its exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    log.close()
    return proc.returncode


def store_count(store: str, sql: str) -> int:
    """One number from a store, read-only (0 while its tables do not exist yet)."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# Clients: real SDK exporter + BatchSpanProcessor
# ---------------------------------------------------------------------------


def _sdk_spans(gen_spans: list) -> list:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    resource = Resource.create(ingest.RESOURCE)
    scope = InstrumentationScope("bench.agent", "1.0")
    flags = TraceFlags(TraceFlags.SAMPLED)
    out = []
    for g in gen_spans:
        tid = int.from_bytes(g.trace_id, "big")
        ctx = SpanContext(tid, int.from_bytes(g.span_id, "big"), False, flags)
        parent = SpanContext(tid, int.from_bytes(g.parent_id, "big"), False, flags) if g.parent_id else None
        out.append(ReadableSpan(
            name=g.name, context=ctx, parent=parent, resource=resource, attributes=g.attributes,
            kind=SpanKind(g.kind - 1 if g.kind else 0), start_time=g.start, end_time=g.end,
            status=Status(StatusCode.ERROR if g.error else StatusCode.UNSET),
            instrumentation_scope=scope))
    return out


def client(index: int, n_clients: int, n_spans: int, protocol: str, port: int, start_at, results,
           nice: int = 0, batch: int = 512):
    """One client process: build its spans, wait for the start, push them, report."""
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

    mine = [s for i, s in enumerate(_by_trace(ingest.generate_spans(n_spans))) if i % n_clients == index]
    spans = _sdk_spans([s for trace in mine for s in trace])
    del mine
    # A real agent does not hold its whole run history in memory: keep the pre-built spans
    # out of the garbage collector's passes, so the client measures export, not GC.
    import gc

    gc.collect()
    gc.freeze()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=f"127.0.0.1:{port}", insecure=True, timeout=30)
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=30)
    latencies, failures, exported = [], [0], [0]
    real_export = exporter.export

    def timed_export(batch):
        t = time.perf_counter()
        result = real_export(batch)
        latencies.append(time.perf_counter() - t)
        if result == SpanExportResult.SUCCESS:
            exported[0] += len(batch)
        else:
            failures[0] += len(batch)
        return result

    exporter.export = timed_export
    processor = BatchSpanProcessor(exporter, max_queue_size=len(spans) + 1,
                                   max_export_batch_size=batch, schedule_delay_millis=50)
    if nice:
        os.nice(nice)
    while time.time() < start_at.value:
        time.sleep(0.001)
    t0 = time.time()
    cpu0 = time.process_time()
    for span in spans:
        processor.on_end(span)
    processor.force_flush(600_000)
    t1 = time.time()
    cpu = time.process_time() - cpu0  # the SDK's encoding and sending, all its threads
    processor.shutdown()
    results.put({"client": index, "spans": len(spans), "exported": exported[0],
                 "failed": failures[0], "start": t0, "end": t1, "latencies": latencies,
                 "cpu_s": cpu})


def _by_trace(spans) -> list:
    traces: dict = {}
    for s in spans:
        traces.setdefault(s.trace_id, []).append(s)
    return list(traces.values())


def push(n_spans: int, n_clients: int, protocol: str, port: int, nice: int = 0,
         batch: int = 512) -> dict:
    ctx = multiprocessing.get_context("spawn")
    start_at = ctx.Value("d", 0.0)
    results = ctx.Queue()
    procs = [ctx.Process(target=client, args=(i, n_clients, n_spans, protocol, port, start_at, results, nice, batch))
             for i in range(n_clients)]
    for p in procs:
        p.start()
    # Building SDK spans takes a while: start everybody together a little later.
    start_at.value = time.time() + max(5.0, n_spans / 20_000)
    out = [results.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join(60)
    return {"clients": out, "start": start_at.value}


def percentile(values: list, q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# ---------------------------------------------------------------------------
# The decode floor, same spans
# ---------------------------------------------------------------------------


def decode_floor(workdir: str, n_spans: int) -> float:
    """Spans/s of bench/ingest.py's floor over the same spans (CPU time of this process)."""
    ingest.generate(workdir, n_spans, 512, ("frames",))
    path = os.path.join(workdir, ingest.FILE_NAMES["frames"])
    import gc

    gc.collect()
    t = time.process_time()
    n = ingest.floor(path, "frames")
    return n / (time.process_time() - t)


# ---------------------------------------------------------------------------


def run_load(args, workdir: str, gold: str) -> dict:
    server = Server(workdir, gold, ["--grace", str(args.grace), *args.server_args],
                    getattr(args, "ek_otel", None))
    rss_peak = [server.rss_mib()]
    try:
        cpu0 = server.cpu_s()
        receiver0 = server.cpu_by_process()[0]
        port = server.grpc_port if args.protocol == "grpc" else server.http_port
        import threading

        stop = threading.Event()

        def sample():
            while not stop.is_set():
                rss_peak[0] = max(rss_peak[0], server.rss_mib())
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        pushed = push(args.spans, args.clients, args.protocol, port, args.client_nice,
                      args.batch)
        clients = pushed["clients"]
        end = max(c["end"] for c in clients)
        sent = sum(c["spans"] for c in clients)
        exported = sum(c["exported"] for c in clients)
        failed = sum(c["failed"] for c in clients)
        cpu_accept = server.cpu_s() - cpu0
        latencies = [x for c in clients for x in c["latencies"]]
        stored = server.count("SELECT COUNT(*) FROM spans")
        traces = server.count("SELECT COUNT(*) FROM traces")
        deadline = time.monotonic() + 600
        while server.count("SELECT COUNT(*) FROM traces WHERE state!='open'") < traces \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        scored_at = time.time()
        scored = server.count("SELECT COUNT(*) FROM traces WHERE state!='open'")
        cpu_total = server.cpu_s() - cpu0
        cpu_receiver = server.cpu_by_process()[0] - receiver0
        stop.set()
        sampler.join(5)
    finally:
        code = server.stop()
    wall = end - pushed["start"]
    return {
        "protocol": args.protocol, "clients": args.clients, "spans_sent": sent,
        "spans_acknowledged": exported, "spans_failed": failed, "spans_in_store": stored,
        "zero_loss": failed == 0 and stored == sent,
        "accepted_spans_per_s": exported / wall if wall > 0 else 0.0,
        "accept_wall_s": wall,
        "export_calls": len(latencies),
        "p50_export_latency_ms": percentile(latencies, 0.50) * 1000,
        "p99_export_latency_ms": percentile(latencies, 0.99) * 1000,
        "server_cpu_s_while_accepting": cpu_accept,
        "client_cpu_s": sum(c["cpu_s"] for c in clients),
        "server_cpu_us_per_span_accepting": cpu_accept / max(1, sent) * 1e6,
        "server_cpu_us_per_span_total": cpu_total / max(1, sent) * 1e6,
        "server_cpu_s_total": cpu_total,
        "receiver_process_cpu_s": cpu_receiver,
        "traces": traces, "traces_scored": scored,
        "all_scored_after_s": scored_at - pushed["start"],
        "peak_rss_mib": rss_peak[0],
        "server_exit_code": code,
    }


def run_overload(args, workdir: str, gold: str) -> dict:
    """Small caps, a long grace (nothing gets scored): the server must push back with 503."""
    server = Server(workdir, gold, ["--grace", "600", "--max-wait", "600",
                                    "--max-open-traces", str(args.overload_traces),
                                    "--max-pending-mib", "64"])
    rss_peak = [server.rss_mib()]
    try:
        import threading

        stop = threading.Event()

        def sample():
            while not stop.is_set():
                rss_peak[0] = max(rss_peak[0], server.rss_mib())
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        pushed = push(args.overload_spans, args.clients, "http", server.http_port)
        stop.set()
        sampler.join(5)
        healthy = server.healthy()
        stored_traces = server.count("SELECT COUNT(*) FROM traces")
        log = open(server.log_path).read()
    finally:
        code = server.stop()
    clients = pushed["clients"]
    return {
        "spans_sent": sum(c["spans"] for c in clients),
        "spans_acknowledged": sum(c["exported"] for c in clients),
        "spans_refused_503": sum(c["failed"] for c in clients),
        "open_traces_cap": args.overload_traces, "traces_stored": stored_traces,
        "peak_rss_mib": rss_peak[0], "healthy_after": healthy,
        "server_alive": "Traceback" not in log, "server_exit_code": code,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--protocol", choices=("http", "grpc"), default="http")
    parser.add_argument("--grace", type=float, default=1.0)
    parser.add_argument("--overload", action="store_true", help="also run the overload phase")
    parser.add_argument("--overload-spans", type=int, default=60_000)
    parser.add_argument("--overload-traces", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=512,
                        help="the SDK's max export batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)")
    parser.add_argument("--client-nice", type=int, default=0,
                        help="run the clients at this niceness (the load generator shares the "
                             "2 cores with the server)")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--server-args", nargs=argparse.REMAINDER, default=[],
                        help="extra `ek-otel serve` options (last on the line)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ek-serve-load-") as workdir:
        gold = os.path.join(workdir, "gold.jsonl")
        ingest.write_gold(gold)
        floor = decode_floor(os.path.join(workdir, "floor"), args.spans)
        os.makedirs(os.path.join(workdir, "load"))
        load = run_load(args, os.path.join(workdir, "load"), gold)
        load["decode_floor_spans_per_s"] = floor
        load["ratio_to_floor"] = load["accepted_spans_per_s"] / floor
        report = {"load": load}
        if args.overload:
            os.makedirs(os.path.join(workdir, "overload"))
            report["overload"] = run_overload(args, os.path.join(workdir, "overload"), gold)
    for phase, figures in report.items():
        print(f"== {phase}")
        for key, value in figures.items():
            print(f"  {key:34s} {value:,.1f}" if isinstance(value, float) else f"  {key:34s} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    ok = load["zero_loss"] and load["server_exit_code"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
