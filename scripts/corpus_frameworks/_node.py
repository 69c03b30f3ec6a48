"""What the Node framework scenarios share: npm packages installed from the committed
lockfile, a loopback OTLP/HTTP capture server, and the corpus files written from the bodies
the JavaScript exporters really sent.

A Node scenario runs ``node <folder>/<script> CONFIG_JSON`` (the folder under
scripts/corpus_frameworks/node/ holds its package.json and package-lock.json; ``npm ci``
installs exactly those versions, node_modules is never committed). The script exports its
spans to the capture server with the OpenTelemetry JS OTLP/HTTP exporters, protobuf and JSON
at once, so both corpus forms hold the same spans:

    traces.pb     the protobuf bodies merged into one ExportTraceServiceRequest (concatenated
                  protobuf messages of one type are their merge: the repeated
                  ``resource_spans`` fields add up)
    traces.jsonl  each JSON body as it was sent, one per line
    versions.txt  node's version and ``npm ls --all`` of the scenario's folder

(loaded by the plug-ins by path: its leading underscore keeps regen_corpus.py from taking it
for a plug-in)
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

NODE_ROOT = Path(__file__).resolve().parent / "node"


def npm_ci(folder: Path) -> None:
    """Install the folder's locked packages (once per lockfile content)."""
    lock = folder / "package-lock.json"
    marker = folder / "node_modules" / ".ek-lock"
    if marker.exists() and marker.read_bytes() == lock.read_bytes():
        return
    if shutil.which("npm") is None:
        raise SystemExit("the Node scenarios need node and npm (node >= 20)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=folder,
                   check=True, timeout=900)
    marker.write_bytes(lock.read_bytes())


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


def run_node(folder: Path, script: str, config: dict, env: dict | None = None) -> None:
    """``node folder/script CONFIG_JSON`` (after ``npm ci``), with OTEL_* variables of the
    calling shell removed."""
    npm_ci(folder)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    environ.update(env or {})
    subprocess.run(["node", str(folder / script), json.dumps(config)], cwd=folder, check=True,
                   env=environ, timeout=300)


def write_trace_files(out: Path, bodies: list) -> int:
    """traces.pb and traces.jsonl from the captured trace bodies; returns the span count."""
    traces = [(kind, body) for path, kind, body in bodies if path.endswith("/v1/traces")]
    if not any(kind == "pb" for kind, _ in traces) or not any(k == "json" for k, _ in traces):
        raise RuntimeError(f"expected protobuf and JSON trace bodies, got {len(traces)} bodies")
    for stale in ("traces.pb", "logs.pb", "traces.jsonl", "logs.jsonl"):
        (out / stale).unlink(missing_ok=True)
    (out / "traces.pb").write_bytes(b"".join(body for kind, body in traces if kind == "pb"))
    lines = [json.dumps(json.loads(body), separators=(",", ":"))
             for kind, body in traces if kind == "json"]
    (out / "traces.jsonl").write_text("\n".join(lines) + "\n")
    return sum(len(scope.get("spans", ())) for line in lines
               for resource in json.loads(line).get("resourceSpans", ())
               for scope in resource.get("scopeSpans", ()))


def write_versions(out: Path, folder: Path) -> None:
    """versions.txt: node's version and the installed npm tree."""
    node = subprocess.run(["node", "--version"], check=True, capture_output=True,
                          text=True).stdout.strip()
    tree = subprocess.run(["npm", "ls", "--all"], cwd=folder, capture_output=True,
                          text=True).stdout
    (out / "versions.txt").write_text(f"node {node}\n{tree}")


def write_expected(out: Path, kit, scenario: str, environment: str, requirements: list,
                   env: dict, fake=None) -> None:
    """expected.json as regen_corpus.py writes it for Python scenarios."""
    fake = fake or kit._load_fake_server()
    expected = fake.expected_summary()
    expected.update({"scenario": scenario, "task_id": kit.TASK_ID, "environment": environment,
                     "requirements": requirements, "env": env,
                     "records": kit.EXPECT[scenario]})
    (out / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")


def lock_requirements(folder: Path) -> list:
    """The direct dependencies of a Node folder, ``name@version`` as pinned."""
    deps = json.loads((folder / "package.json").read_text())["dependencies"]
    return [f"{name}@{version}" for name, version in sorted(deps.items())]
