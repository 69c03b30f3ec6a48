"""A loopback OTLP/HTTP capture server for the corpus plug-ins: what an exporter really sent,
written as the corpus files.

    traces.pb     the protobuf bodies merged into one ExportTraceServiceRequest (concatenated
                  protobuf messages of one type are their merge: the repeated
                  ``resource_spans`` fields add up)
    traces.jsonl  each JSON body as it was sent, re-encoded on one line (same values)

(imported by the plug-ins, which put this folder on sys.path; its leading underscore keeps
regen_corpus.py from taking it for a plug-in)
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import json
import threading
from pathlib import Path


def _read_body(handler: http.server.BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                handler.rfile.readline()
                break
            parts.append(handler.rfile.read(size))
            handler.rfile.readline()
        body = b"".join(parts)
    else:
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    if handler.headers.get("Content-Encoding", "").lower() == "gzip":
        body = gzip.decompress(body)
    return body


@contextlib.contextmanager
def capture_server():
    """A loopback OTLP/HTTP server on a free port: yields ``(url, bodies)``, where bodies
    fills with ``(path, "pb" | "json", body bytes)`` in arrival order."""
    bodies: list = []
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 (http.server naming)
            body = _read_body(self)
            kind = "json" if "json" in self.headers.get("Content-Type", "") else "pb"
            with lock:
                bodies.append((self.path, kind, body))
            reply = b"{}" if kind == "json" else b""
            self.send_response(200)
            self.send_header("Content-Type", self.headers.get("Content-Type", ""))
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", bodies
    finally:
        httpd.shutdown()
        httpd.server_close()


def write_pb(out: Path, bodies: list) -> int:
    """traces.pb from the captured protobuf trace bodies; returns how many there were."""
    pb = [body for path, kind, body in bodies if path.endswith("/v1/traces") and kind == "pb"]
    if not pb:
        raise RuntimeError("no protobuf trace body was captured")
    (out / "traces.pb").write_bytes(b"".join(pb))
    return len(pb)


def write_trace_files(out: Path, bodies: list) -> int:
    """traces.pb and traces.jsonl from the captured trace bodies; returns the span count."""
    traces = [(kind, body) for path, kind, body in bodies if path.endswith("/v1/traces")]
    if not any(kind == "pb" for kind, _ in traces) or not any(k == "json" for k, _ in traces):
        raise RuntimeError(f"expected protobuf and JSON trace bodies, got {len(traces)} bodies")
    for stale in ("traces.pb", "logs.pb", "traces.jsonl", "logs.jsonl"):
        (out / stale).unlink(missing_ok=True)
    write_pb(out, bodies)
    lines = [json.dumps(json.loads(body), separators=(",", ":"))
             for kind, body in traces if kind == "json"]
    (out / "traces.jsonl").write_text("\n".join(lines) + "\n")
    return sum(len(scope.get("spans", ())) for line in lines
               for resource in json.loads(line).get("resourceSpans", ())
               for scope in resource.get("scopeSpans", ()))
