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

import copy
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Optional

__all__ = ["ScriptServer", "ScriptHandler", "FakeServer", "ScriptCall", "HostedCall", "ScriptTurn",
           "TOOL_SPECS", "tool_specs", "tool_result", "turn_index_by_role", "summary_calls",
           "summary_tail"]


# ---------------------------------------------------------------------------
# The script: what every fake answers from
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScriptCall:
    """One tool call the fake model requests."""

    call_id: str
    name: str
    arguments: dict


@dataclass(frozen=True)
class HostedCall:
    """One call of a tool the provider runs itself (OpenAI's ``web_search``,
    ``file_search``, ``code_interpreter``; Anthropic's server tools ``web_search``,
    ``code_execution``): the model's request and its result come back in the same answer,
    and the client runs nothing. ``name`` is the tool as a step names it."""

    call_id: str
    name: str
    arguments: dict
    result: Any = None


@dataclass(frozen=True)
class ScriptTurn:
    """One scripted model answer: tool calls, or a final text when ``calls`` is empty;
    ``hosted`` calls (:class:`HostedCall`) come first in the answer, before either."""

    response_id: str
    usage: Any
    calls: tuple = ()
    text: str = ""
    hosted: tuple = ()


#: The pretend tools the scripts call: ``(name, description, JSON schema of the arguments)``.
TOOL_SPECS: tuple = (
    ("get_weather", "Current weather in a city.",
     {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
      "required": ["city"]}),
    ("get_time", "Local time in a time zone.",
     {"type": "object", "properties": {"timezone": {"type": "string"}},
      "required": ["timezone"]}),
    ("convert_temperature", "Convert a temperature.",
     {"type": "object", "properties": {"value": {"type": "number"}, "to": {"type": "string"}},
      "required": ["value", "to"]}),
)


def tool_specs() -> list:
    """:data:`TOOL_SPECS` as fresh ``(name, description, schema)`` tuples (the schema a copy).

    Example:
        >>> [name for name, _, _ in tool_specs()]
        ['get_weather', 'get_time', 'convert_temperature']
    """
    return [(name, description, copy.deepcopy(schema)) for name, description, schema in TOOL_SPECS]


def tool_result(name: str, args: dict) -> str:
    """What the client's (pretend) tools return, as JSON text.

    Example:
        >>> tool_result("get_time", {"timezone": "UTC"})
        '{"timezone": "UTC", "time": "14:00"}'
    """
    if name == "get_weather":
        return json.dumps({"city": args.get("city"), "temperature_c": 18.5})
    if name == "get_time":
        return json.dumps({"timezone": args.get("timezone"), "time": "14:00"})
    return json.dumps({"value": 65.3, "unit": "fahrenheit"})


def turn_index_by_role(body: dict, key: str, role: str, script: tuple) -> int:
    """The script turn a request is at: how many ``role`` entries its ``key`` list carries.

    Example:
        >>> turn_index_by_role({"messages": [{"role": "assistant"}, "x"]}, "messages",
        ...                    "assistant", ("a", "b", "c"))
        1
    """
    seen = sum(1 for m in body.get(key) or () if isinstance(m, dict) and m.get("role") == role)
    return min(seen, len(script) - 1)


def summary_calls(script: tuple) -> list:
    """The calls of a whole script in order, as ``expected_summary`` gives them (a call
    without a ``call_id`` gets None; a hosted call is marked ``"hosted": True``).

    Example:
        >>> summary_calls((ScriptTurn("r", None, calls=(ScriptCall("c1", "f", {"a": 1}),)),))
        [{'tool': 'f', 'args': {'a': 1}, 'call_id': 'c1'}]
        >>> summary_calls((ScriptTurn("r", None, hosted=(HostedCall("ws1", "web_search",
        ...     {"query": "q"}),)),))[0]["hosted"]
        True
    """
    calls = []
    for turn in script:
        calls += [{"tool": h.name, "args": dict(h.arguments), "call_id": h.call_id,
                   "hosted": True} for h in turn.hosted]
        calls += [{"tool": c.name, "args": dict(c.arguments),
                   "call_id": getattr(c, "call_id", None)} for c in turn.calls]
    return calls


def summary_tail(script: tuple, response_model: str) -> dict:
    """The turn count, response ids, model and final text of ``expected_summary``.

    Example:
        >>> summary_tail((ScriptTurn("r1", None), ScriptTurn("r2", None, text="ok")), "m")
        {'turns': 2, 'response_ids': ['r1', 'r2'], 'response_model': 'm', 'final_text': 'ok'}
    """
    return {
        "turns": len(script),
        "response_ids": [t.response_id for t in script],
        "response_model": response_model,
        "final_text": script[-1].text,
    }


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
    #: The script of a server made without one.
    default_script: tuple = ()

    def __init__(self, script: Optional[tuple] = None, host: str = "127.0.0.1", port: int = 0):
        self.script = tuple(self.default_script if script is None else script)
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
