"""Helpers of the Collector tests: the real OpenTelemetry Collector (scripts/otelcol.sh builds
it) with the shipped configs, ``ek-otel serve`` processes behind it, the real OTel SDK
exporters in front of it, and reading what each store holds."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))

from serve_helpers import (  # noqa: E402
    GOLD_TASKS, OtlpTestSink, ServerProcess, emit_run, free_port, gold, wait_for)

__all__ = ["GOLD_TASKS", "OtlpTestSink", "ServerProcess", "emit_run", "free_port", "gold",
           "wait_for", "ROOT", "Collector", "SdkClient", "otelcol", "store_spans",
           "store_scores", "serve_args", "payload_spans", "wait_until_stable", "sdk_exporter",
           "GrpcTap", "built_binary", "listen_port"]

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "collector-config.yaml"
LB_CONFIG = ROOT / "collector-loadbalancing.yaml"


def built_binary(variable: str, script: str, what: str) -> str:
    """A binary the tests run: ``$variable`` (.ci/run exports it), else ``scripts/<script>``
    builds it (cached) and prints its path last. Never a skip: without Go or with a failed
    build the tests fail."""
    path = os.environ.get(variable)
    if not path:
        done = subprocess.run(["bash", str(ROOT / "scripts" / script)],
                              capture_output=True, text=True, timeout=3600)
        assert done.returncode == 0, f"scripts/{script} failed:\n{done.stderr[-4000:]}"
        path = done.stdout.strip().splitlines()[-1]
    assert os.access(path, os.X_OK), f"no {what} binary at {path}"
    return path


@pytest.fixture(scope="session")
def otelcol() -> str:
    """The Collector binary ($EK_OTEL_OTELCOL, else built by scripts/otelcol.sh)."""
    return built_binary("EK_OTEL_OTELCOL", "otelcol.sh", "Collector")


def listen_port() -> int:
    """A free loopback port below Linux's ephemeral range (32768-60999) for the Collector to
    listen on: a port from ``bind(0)`` is an ephemeral one, which the many outgoing connections
    of a test run (and of the Collector itself) may take as their local port before the
    Collector binds it ("address already in use")."""
    import random
    import socket

    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randint(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


class Collector:
    """The real Collector as a child process, on ports the test picks (all loopback)."""

    READY = "Everything is ready"

    def __init__(self, binary: str, config: Path, env: dict, log_path: str, *,
                 start: bool = True):
        self.grpc_port, self.http_port, self.metrics_port = (listen_port(), listen_port(),
                                                             listen_port())
        self.binary, self.config, self.log_path = binary, config, log_path
        self.env = {**os.environ, "COLLECTOR_GRPC_ENDPOINT": f"127.0.0.1:{self.grpc_port}",
                    "COLLECTOR_HTTP_ENDPOINT": f"127.0.0.1:{self.http_port}",
                    "COLLECTOR_METRICS_HOST": "127.0.0.1",
                    "COLLECTOR_METRICS_PORT": str(self.metrics_port), **env}
        self.proc: Optional[subprocess.Popen] = None
        if start:
            self.start()

    def start(self) -> None:
        self.log = open(self.log_path, "ab")
        offset = os.path.getsize(self.log_path)
        self.proc = subprocess.Popen([self.binary, "--config", str(self.config)], env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: self._ready(offset), 60, "the Collector to start")

    def _ready(self, offset: int) -> bool:
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
        if self.proc.poll() is not None:
            raise AssertionError(f"the Collector exited ({self.proc.returncode}):\n{text[-4000:]}")
        return self.READY in text

    @property
    def grpc_endpoint(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_traces_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/v1/traces"

    def metrics(self) -> dict:
        """Its own metrics: {(name, frozenset(labels)): value} from its Prometheus endpoint."""
        import httpx
        from prometheus_client.parser import text_string_to_metric_families

        text = httpx.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10).text
        out = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                out[(sample.name, frozenset(sample.labels.items()))] = sample.value
        return out

    def metric_sum(self, name: str, **labels) -> float:
        """The sum of a metric's samples whose labels include ``labels`` (``name`` or, for a
        counter, ``name_total``)."""
        want = set(labels.items())
        return sum(v for (n, ls), v in self.metrics().items()
                   if n in (name, name + "_total") and want <= ls)

    def log_text(self) -> str:
        return open(self.log_path, errors="replace").read()

    def stop(self, timeout: float = 60) -> Optional[int]:
        if self.proc is None or self.log.closed:
            return None if self.proc is None else self.proc.returncode
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()
        return self.proc.returncode


def _recorder():
    """A span processor that records the (trace id, span id) of every span the SDK ends."""
    from opentelemetry.sdk.trace import SpanProcessor

    class Recorder(SpanProcessor):
        def __init__(self):
            self.ids: set = set()
            self.lock = threading.Lock()

        def on_end(self, span):
            ctx = span.get_span_context()
            with self.lock:
                self.ids.add((format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")))

    return Recorder()


def sdk_exporter(protocol: str, target: str):
    """The OTel SDK's own OTLP span exporter: ``http`` (a /v1/traces URL) or ``grpc``
    (host:port, plaintext)."""
    if protocol == "http":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter(endpoint=target, timeout=30)
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=target, insecure=True, timeout=30)


class SdkClient:
    """An agent's tracer with the real OTLP exporter of the SDK (``http`` or ``grpc``) and its
    BatchSpanProcessor; ``sent`` holds the (trace id, span id) of every span it made."""

    def __init__(self, protocol: str, target: str, *, service: str = "agent",
                 schedule_delay_ms: int = 100, max_batch: int = 512,
                 also: Optional[tuple] = None):
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.recorder = _recorder()
        self.provider = TracerProvider(resource=Resource.create({"service.name": service}))
        self.provider.add_span_processor(self.recorder)
        # ``also``: (protocol, target) of a second exporter that gets every span too
        for proto, where in ((protocol, target),) + ((also,) if also else ()):
            self.provider.add_span_processor(BatchSpanProcessor(
                sdk_exporter(proto, where), schedule_delay_millis=schedule_delay_ms,
                max_export_batch_size=max_batch, max_queue_size=20000))
        self.tracer = self.provider.get_tracer("agent-under-test")

    @property
    def sent(self) -> set:
        return set(self.recorder.ids)

    def flush(self) -> None:
        assert self.provider.force_flush(60_000), "the SDK could not export every span"

    def close(self) -> None:
        self.provider.shutdown()


def _ro(store: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)


def store_spans(store: str) -> set:
    """(trace id, span id) of every span a store holds."""
    if not os.path.exists(store):
        return set()
    conn = _ro(store)
    try:
        return set(conn.execute("SELECT trace_id, span_id FROM spans"))
    finally:
        conn.close()


def store_scores(store: str) -> list:
    """(trace id, revision) of every score a store recorded."""
    if not os.path.exists(store):
        return []
    conn = _ro(store)
    try:
        return list(conn.execute("SELECT trace_id, revision FROM scores"))
    finally:
        conn.close()


def serve_args(gold_path: str, store: str, *, grpc: str = "127.0.0.1:0", emit_to: str = "",
               extra: tuple = ()) -> list:
    """``ek-otel serve`` arguments: gRPC only (what the Collector speaks), a thread scorer."""
    args = ["--gold", gold_path, "--store", store, "--http", "127.0.0.1:0", "--grpc", grpc,
            "--grace", "2.0", "--scorers", "0", "--synchronous", "normal", *extra]
    if emit_to:
        args += ["--emit-endpoint", emit_to, "--emit-protocol", "grpc"]
    return args


def wait_until_stable(fn, *, settle_s: float = 2.0, timeout: float = 60.0):
    """Poll ``fn`` until its value has not changed for ``settle_s`` seconds; return it."""
    deadline = time.monotonic() + timeout
    last, since = fn(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        value = fn()
        if value != last:
            last, since = value, time.monotonic()
        elif time.monotonic() - since >= settle_s:
            return value
    raise AssertionError("never settled")


def payload_spans(store: str) -> list:
    """(trace id, span id) of every span in every stored payload, duplicates kept: a span
    stored twice (a retry the store did not recognise) shows up twice here."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from ek_otel.serve.store import unpack_payload

    conn = _ro(store)
    try:
        rows = conn.execute("SELECT data FROM payloads WHERE signal IN ('traces', 'spans')").fetchall()
    finally:
        conn.close()
    out = []
    for (data,) in rows:
        request = ExportTraceServiceRequest.FromString(unpack_payload(data))
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                out.extend((s.trace_id.hex(), s.span_id.hex()) for s in ss.spans)
    return out


class GrpcTap:
    """A loopback TCP proxy in front of a gRPC server that reads the HTTP/2 frames its clients
    send: ``compressed`` holds the gRPC message prefix's compressed flag of every call (the
    first DATA frame of each stream), so a test sees on the wire how the Collector sends."""

    PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    def __init__(self, target_port: int):
        import socket

        self.target_port = target_port
        self.compressed: list = []
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(upstream, client, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(client, upstream, bytearray()),
                             daemon=True).start()

    def _pipe(self, src, dst, parse) -> None:
        seen: set = set()
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if parse is not None:
                    parse.extend(data)
                    self._frames(parse, seen)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(2)
                except OSError:
                    pass

    def _frames(self, buf: bytearray, seen: set) -> None:
        if buf[:1] == b"P":                      # the connection preface, once
            if len(buf) < len(self.PREFACE):
                return
            del buf[:len(self.PREFACE)]
        while len(buf) >= 9:
            length = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + length:
                return
            kind, flags = buf[3], buf[4]
            stream = int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
            payload = bytes(buf[9:9 + length])
            del buf[:9 + length]
            if kind == 0 and stream not in seen and payload:   # DATA: a call's first bytes
                if flags & 0x8:                  # PADDED: the first byte is the pad length
                    payload = payload[1:]
                if payload:
                    seen.add(stream)
                    self.compressed.append(payload[0])

    def close(self) -> None:
        self.closed = True
        self.listener.close()
