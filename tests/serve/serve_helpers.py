"""Helpers of the serve tests: a gold file, GenAI traces through the real SDK, a server on
server on ephemeral loopback ports (in-process or as a subprocess), and a test OTLP sink."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent import futures
from typing import Callable, Optional

import grpc
import pytest

GOLD_TASKS = [
    {"task_id": f"task-{i}", "input": f"weather in city {i}",
     "calls": [{"get_weather": {"city": [f"city-{i}"]}}],
     "tools": [{"name": "get_weather", "parameters": {"type": "object", "properties": {
         "city": {"type": "string"}}}}],
     "slice": "even" if i % 2 == 0 else "odd"}
    for i in range(20)
]


def wait_for(predicate: Callable[[], object], timeout: float = 30.0, what: str = "condition"):
    """Poll ``predicate`` until truthy (generous deadline; never a timed assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def gold(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    return str(path)


# -- traces through the real SDK -------------------------------------------------------------


def make_provider(exporter, service: str = "agent"):
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def emit_run(tracer, task_index: int, *, city: Optional[str] = None, tokens: int = 100,
             extra_spans: int = 0) -> str:
    """One agent run: root invoke_agent (task id) → chat (usage) → execute_tool. Returns trace id."""
    with tracer.start_as_current_span("invoke_agent helper", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
            "ek.task.id": f"task-{task_index}"}) as root:
        with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.response.model": "gpt-4o-mini", "gen_ai.response.id": f"r-{os.urandom(4).hex()}",
                "gen_ai.usage.input_tokens": tokens, "gen_ai.usage.output_tokens": 10}):
            pass
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": json.dumps({"city": city or f"city-{task_index}"})}):
            pass
        for j in range(extra_spans):
            with tracer.start_as_current_span(f"step {j}", attributes={"x": "y" * 50}):
                pass
        return format(root.get_span_context().trace_id, "032x")


# -- a test OTLP sink (gRPC) ------------------------------------------------------------------


class OtlpTestSink:
    """A gRPC OTLP endpoint collecting the spans it receives (scores exported by the server).

    ``delay_s``: each trace export is recorded at once but acknowledged that long after.
    """

    def __init__(self, port: int = 0, *, delay_s: float = 0.0):
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        self.spans: list = []
        self.logs: list = []
        self.lock = threading.Lock()
        sink = self

        class Traces(trace_service_pb2_grpc.TraceServiceServicer):
            def Export(self, request, context):
                with sink.lock:
                    for rs in request.resource_spans:
                        for ss in rs.scope_spans:
                            sink.spans.extend(ss.spans)
                if delay_s:   # a slow backend: received, not yet acknowledged
                    time.sleep(delay_s)
                return trace_service_pb2.ExportTraceServiceResponse()

        class Logs(logs_service_pb2_grpc.LogsServiceServicer):
            def Export(self, request, context):
                with sink.lock:
                    for rl in request.resource_logs:
                        for sl in rl.scope_logs:
                            sink.logs.extend(sl.log_records)
                return logs_service_pb2.ExportLogsServiceResponse()

        self.server = grpc.server(futures.ThreadPoolExecutor(4))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), self.server)
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), self.server)
        self.port = self.server.add_insecure_port(f"127.0.0.1:{port}")
        self.server.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def scores(self) -> list:
        """(trace_id hex, revision, attributes) of every evaluation span received."""
        return [(t, rev, attrs) for t, rev, _, attrs in self.evaluation_spans()]

    def evaluation_spans(self) -> list:
        """(trace_id hex, revision, span_id hex, attributes) of every evaluation span received."""
        out = []
        with self.lock:
            spans = list(self.spans)
        for span in spans:
            attrs = {kv.key: kv.value for kv in span.attributes}
            if "ek.revision" in attrs or any(k.startswith("gen_ai.evaluation") for k in attrs):
                rev = attrs["ek.revision"].int_value if "ek.revision" in attrs else 0
                out.append((span.trace_id.hex(), rev, span.span_id.hex(), attrs))
        return out

    def stop(self):
        self.server.stop(0).wait(5)


@pytest.fixture()
def otlp_sink():
    sink = OtlpTestSink()
    yield sink
    sink.stop()


# -- the server in-process ------------------------------------------------------------------


class InProcessServer:
    """``serve()`` in a background thread, on ephemeral ports."""

    def __init__(self, config):
        from ek_otel.serve.app import serve

        self.app = None
        self.lines: list = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.exit_code = None

        def on_ready(app):
            self.app = app
            self._ready.set()

        def run():
            try:
                self.exit_code = serve(config, log=self.lines.append, on_ready=on_ready,
                                       stop_event=self._stop)
            finally:
                self._ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        self._ready.wait(60)
        if self.app is None:
            raise RuntimeError(f"server did not start: {self.lines}")

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.app.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.app.grpc_port}"

    def counts(self) -> dict:
        return self.app.writer.call(lambda s: s.counts())

    def stop(self):
        self._stop.set()
        self.thread.join(120)


@pytest.fixture()
def start_server(tmp_path, gold):
    """Factory: start_server(**config overrides) -> InProcessServer (stopped at teardown)."""
    from ek_otel.serve.config import ServeConfig

    servers = []

    def start(**overrides):
        params = dict(gold=gold, http=("127.0.0.1", 0), grpc=("127.0.0.1", 0),
                      store=str(tmp_path / "store.db"), grace_s=0.3, max_wait_s=30.0,
                      scorer_processes=0)
        params.update(overrides)
        server = InProcessServer(ServeConfig(**params).validate())
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


# -- the server as a subprocess -------------------------------------------------------------


class ServerProcess:
    """``ek-otel serve`` as a child process (for kill -9 tests)."""

    LISTEN = re.compile(r"listening on http [^:]+:(\d+), grpc [^:]+:(\d+)")

    def __init__(self, args: list, log_path: str):
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "ek_otel", "serve", *args],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.http_port = self.grpc_port = None
        m = wait_for(self._listening, 60, "the server to listen")
        self.http_port, self.grpc_port = int(m.group(1)), int(m.group(2))

    def _listening(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"server exited: {open(self.log_path).read()}")
        text = open(self.log_path, errors="replace").read()
        matches = list(self.LISTEN.finditer(text))
        return matches[-1] if matches else None

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def scoring_workers(self) -> list:
        """Pids of the server's scoring worker processes (its ``spawn_main`` children)."""
        pids = []
        for task in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{task}/children") as f:
                    children = f.read().split()
            except OSError:  # the thread ended meanwhile
                continue
            for child in children:
                try:
                    with open(f"/proc/{child}/cmdline", "rb") as f:
                        if b"spawn_main" in f.read():
                            pids.append(int(child))
                except OSError:
                    continue
        return sorted(set(pids))

    def terminate(self, timeout: float = 90) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (from ``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture()
def server_processes():
    procs: list = []
    yield procs
    for p in procs:
        p.close()
