"""Regenerate tests/serve/fixtures/js-*: the bodies the OpenTelemetry JS exporters send.

Runs ``send_genai.js`` once per protocol against tiny capture servers (OTLP/HTTP and
OTLP/gRPC, raw bytes) and writes each request body as it arrived, in arrival order, with
the request's headers in ``js-headers.json``. Needs node and ``npm install`` in this
directory (package.json pins the versions). Run from anywhere:

    cd tests/serve/js && npm install && python capture.py
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent import futures

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures")
SEEDS = {"json": 1, "proto": 2, "grpc": 3}
RUNS = 3


def _read_body(handler: http.server.BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                handler.rfile.readline()
                return b"".join(parts)
            parts.append(handler.rfile.read(size))
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


def main() -> int:
    captured: list = []  # (protocol, signal, ext, headers, body)
    current = {"protocol": ""}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802
            body = _read_body(self)
            ctype = self.headers.get("Content-Type", "")
            with lock:
                captured.append((current["protocol"], self.path.rsplit("/", 1)[-1],
                                 "json" if "json" in ctype else "pb",
                                 {k.lower(): v for k, v in self.headers.items()
                                  if k.lower() in ("content-type", "content-encoding",
                                                   "transfer-encoding", "user-agent")}, body))
            reply = b"{}" if "json" in ctype else b""
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def grpc_handler(signal):
        def handle(body, context):
            with lock:
                captured.append(("grpc", signal, "pb", {}, body))
            return b""
        return grpc.unary_unary_rpc_method_handler(handle)

    server = grpc.server(futures.ThreadPoolExecutor(2))
    server.add_generic_rpc_handlers((
        grpc.method_handlers_generic_handler(
            "opentelemetry.proto.collector.trace.v1.TraceService", {"Export": grpc_handler("traces")}),
        grpc.method_handlers_generic_handler(
            "opentelemetry.proto.collector.logs.v1.LogsService", {"Export": grpc_handler("logs")}),
    ))
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        for protocol, seed in SEEDS.items():
            current["protocol"] = protocol
            port = grpc_port if protocol == "grpc" else httpd.server_address[1]
            subprocess.run(["node", os.path.join(HERE, "send_genai.js"), protocol,
                            f"http://127.0.0.1:{port}", str(RUNS), str(seed)],
                           cwd=HERE, check=True, timeout=120)
    finally:
        httpd.shutdown()
        server.stop(0)
    for name in os.listdir(OUT) if os.path.isdir(OUT) else ():
        if name.startswith("js-"):
            os.remove(os.path.join(OUT, name))
    os.makedirs(OUT, exist_ok=True)
    index = []
    counters: dict = {}
    for protocol, signal, ext, headers, body in captured:
        n = counters[protocol] = counters.get(protocol, 0) + 1
        name = f"js-{protocol}-{n:02d}-{signal}.{ext}"
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)
        index.append({"file": name, "protocol": protocol, "signal": signal, "headers": headers})
    versions = {}
    for pkg in ("sdk-trace-base", "exporter-trace-otlp-proto", "exporter-trace-otlp-http",
                "exporter-trace-otlp-grpc", "sdk-logs"):
        meta = os.path.join(HERE, "node_modules", "@opentelemetry", pkg, "package.json")
        with open(meta) as f:
            versions[f"@opentelemetry/{pkg}"] = json.load(f)["version"]
    with open(os.path.join(OUT, "js-index.json"), "w") as f:
        json.dump({"generator": "tests/serve/js/capture.py", "runs_per_protocol": RUNS,
                   "seeds": SEEDS, "versions": versions, "requests": index}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(index)} bodies to {OUT}")
    return 0


if __name__ == "__main__":
    if shutil.which("node") is None:
        sys.exit("capture.py: node is not installed")
    sys.exit(main())
