"""A loopback OTLP capture backend: what an exporter (an SDK, a Collector, ``ek-otel serve``'s
outbox) really sent, kept as raw request bodies in arrival order.

:class:`OtlpCapture` runs an OTLP/HTTP server (and, with ``grpc=True``, an OTLP/gRPC server:
the trace and logs ``Export`` methods, raw bytes) on ephemeral 127.0.0.1 ports. Every request
becomes a :class:`CapturedRequest`: protocol, signal (``traces``/``logs``/``metrics``), encoding
(``pb``/``json``), the headers that tell how it was sent, and the body (gzip undone unless
``keep_gzip``). Chunked HTTP bodies are read as the exporters send them.

Example:
    >>> import urllib.request
    >>> with OtlpCapture() as capture:
    ...     req = urllib.request.Request(capture.http_url + "/v1/traces", data=b"{}",
    ...                                  headers={"Content-Type": "application/json"})
    ...     urllib.request.urlopen(req).read()
    ...     [(r.protocol, r.signal, r.encoding, r.body) for r in capture.requests]
    b'{}'
    [('http', 'traces', 'json', b'{}')]
"""

from __future__ import annotations

import gzip
import http.server
import threading
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["CapturedRequest", "OtlpCapture", "read_http_body", "HEADERS_KEPT"]

#: The request headers a capture keeps (lower-cased): how the body was sent.
HEADERS_KEPT = ("content-type", "content-encoding", "transfer-encoding", "user-agent")

_GRPC_SERVICES = {
    "opentelemetry.proto.collector.trace.v1.TraceService": "traces",
    "opentelemetry.proto.collector.logs.v1.LogsService": "logs",
    "opentelemetry.proto.collector.metrics.v1.MetricsService": "metrics",
}


@dataclass(frozen=True)
class CapturedRequest:
    """One request as it arrived."""

    protocol: str  # "http" or "grpc"
    signal: str  # "traces", "logs" or "metrics" (the last part of the HTTP path)
    encoding: str  # "pb" or "json"
    body: bytes
    path: str = ""
    headers: dict = field(default_factory=dict)


def read_http_body(handler: http.server.BaseHTTPRequestHandler, *, gunzip: bool = True) -> bytes:
    """The body of a request to a :mod:`http.server` handler: ``Content-Length`` or chunked
    transfer encoding, gzip undone when ``gunzip`` and the request says so.

    Example:
        >>> import io
        >>> class Handler:
        ...     headers = {"Transfer-Encoding": "chunked"}
        ...     rfile = io.BytesIO(b"3\\r\\nabc\\r\\n2\\r\\nde\\r\\n0\\r\\n\\r\\n")
        >>> read_http_body(Handler())
        b'abcde'
    """
    headers = handler.headers
    if headers.get("Transfer-Encoding", "").lower() == "chunked":
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
        body = handler.rfile.read(int(headers.get("Content-Length") or 0))
    if gunzip and headers.get("Content-Encoding", "").lower() == "gzip":
        body = gzip.decompress(body)
    return body


class OtlpCapture:
    """OTLP/HTTP (and optionally OTLP/gRPC) capture servers on loopback; a context manager.

    Args:
        grpc: Also start an OTLP/gRPC server (needs grpcio); its port is ``grpc_port``.
        keep_gzip: Keep gzip-encoded HTTP bodies as they arrived.
        label: A callable giving the ``protocol`` recorded for each request (for a capture
            that several senders take turns on); by default ``"http"`` or ``"grpc"``.
    """

    def __init__(self, *, grpc: bool = False, keep_gzip: bool = False,
                 label: Optional[Any] = None) -> None:
        self.requests: list = []
        self._lock = threading.Lock()
        self._want_grpc = grpc
        self._keep_gzip = keep_gzip
        self._label = label
        self._httpd: Optional[http.server.ThreadingHTTPServer] = None
        self._grpc_server: Any = None
        self.grpc_port = 0

    # -- what arrived ------------------------------------------------------------------

    def bodies(self, signal: str = "traces", encoding: Optional[str] = None) -> list:
        """The bodies of one signal (and encoding), in arrival order."""
        with self._lock:
            return [r.body for r in self.requests
                    if r.signal == signal and (encoding is None or r.encoding == encoding)]

    def _record(self, request: CapturedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _protocol(self, default: str) -> str:
        return self._label() if self._label is not None else default

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def http_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the OTLP/HTTP server."""
        assert self._httpd is not None, "the capture is not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> "OtlpCapture":
        capture = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 (http.server naming)
                body = read_http_body(self, gunzip=not capture._keep_gzip)
                ctype = self.headers.get("Content-Type", "")
                encoding = "json" if "json" in ctype else "pb"
                capture._record(CapturedRequest(
                    capture._protocol("http"), self.path.rstrip("/").rsplit("/", 1)[-1],
                    encoding, body, self.path,
                    {k.lower(): v for k, v in self.headers.items() if k.lower() in HEADERS_KEPT}))
                reply = b"{}" if encoding == "json" else b""
                self.send_response(200)
                self.send_header("Content-Type", ctype or "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True,
                         name="ek-otel-capture").start()
        if self._want_grpc:
            self._start_grpc()
        return self

    def _start_grpc(self) -> None:
        from concurrent import futures

        import grpc

        def handler(signal: str):
            def handle(body, context):
                self._record(CapturedRequest(self._protocol("grpc"), signal, "pb", body))
                return b""
            return grpc.unary_unary_rpc_method_handler(handle)

        server = grpc.server(futures.ThreadPoolExecutor(2))
        server.add_generic_rpc_handlers(tuple(
            grpc.method_handlers_generic_handler(service, {"Export": handler(signal)})
            for service, signal in _GRPC_SERVICES.items()))
        self.grpc_port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self._grpc_server = server

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._grpc_server is not None:
            self._grpc_server.stop(0)
            self._grpc_server = None

    def __enter__(self) -> "OtlpCapture":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
