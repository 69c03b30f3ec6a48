"""What the fake model servers share: a threaded HTTP server on a loopback port that answers
from a script and records every request.

A fake defines a :class:`ScriptHandler` (its routes, in ``do_POST``) and a
:class:`FakeServer` subclass naming it; start()/stop() or a ``with`` block run it.

Example:
    >>> import json, urllib.request
    >>> class Echo(ScriptHandler):
    ...     def do_POST(self):
    ...         request = self.read_request({"error": "invalid JSON"})
    ...         if request is not None:
    ...             self.send_json(200, {"turns": len(self.server.script), "path": request[0]})
    >>> class FakeEcho(FakeServer):
    ...     handler = Echo
    >>> with FakeEcho(("a", "b")) as fake:
    ...     req = urllib.request.Request(fake.base_url + "/x/", data=b"{}", method="POST")
    ...     json.load(urllib.request.urlopen(req)), fake.requests
    ({'turns': 2, 'path': '/x'}, [('/x', {})])
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Optional

__all__ = ["ScriptServer", "ScriptHandler", "FakeServer"]


class ScriptServer(ThreadingHTTPServer):
    """The HTTP server: the script it answers from, and the ``(path, body)`` it received."""

    daemon_threads = True
    script: tuple = ()
    requests: list


class ScriptHandler(BaseHTTPRequestHandler):
    """Request handler base: JSON bodies in, JSON or server-sent events out."""

    server: ScriptServer
    protocol_version = "HTTP/1.1"
    #: Extra headers of every JSON answer.
    json_headers: tuple = ()

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def send_json(self, status: int, payload: dict) -> None:
        """Answer ``payload`` as JSON with ``status``."""
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in self.json_headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, frames: Iterable[str]) -> None:
        """Answer a stream of server-sent-event ``frames`` (each already formatted), then close."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for frame in frames:
            self.wfile.write(frame.encode())
        self.wfile.flush()
        self.close_connection = True

    def read_request(self, invalid_json: dict) -> Optional[tuple]:
        """``(path, JSON body)`` of this request, recorded on the server; None (after a 400
        answer of ``invalid_json``) when the body is not JSON."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.send_json(400, invalid_json)
            return None
        path = self.path.split("?")[0].rstrip("/")
        self.server.requests.append((path, body))
        return path, body


class FakeServer:
    """A running fake server; a context manager, or start()/stop().

    Subclasses set :attr:`handler` (and :attr:`base_path`, what ``base_url`` ends with).
    """

    handler: type = ScriptHandler
    base_path: str = ""

    def __init__(self, script: tuple, host: str = "127.0.0.1", port: int = 0):
        self.script = tuple(script)
        self._host = host
        self._port = port
        self._server: Optional[ScriptServer] = None

    def start(self) -> Any:
        """Bind a random loopback port and serve in a daemon thread."""
        server = ScriptServer((self._host, self._port), self.handler)
        server.script = self.script
        server.requests = []
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (safe to call twice)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` and :attr:`base_path`."""
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.base_path}"

    @property
    def requests(self) -> list:
        """The ``(path, body)`` of every request received so far."""
        return list(self._server.requests) if self._server is not None else []

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
