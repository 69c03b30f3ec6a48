"""A real HTTP server on 127.0.0.1 for the emit tests (aiohttp, in a thread)."""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
from typing import NamedTuple

from aiohttp import web


class Received(NamedTuple):
    path: str
    query: dict
    body: bytes  # gunzipped
    headers: dict  # lower-cased names


class HttpServer:
    """``answers[path]`` (``"GET /path"`` for another method than POST) is a list of ``(status, body)`` served in turn (the last repeats); a
    callable body is called with the request body and returns ``(status, body)``. Every
    request is recorded in ``requests``."""

    def __init__(self, answers: dict):
        self.answers = {path: list(items) for path, items in answers.items()}
        self.requests: list = []
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if request.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.requests.append(Received(request.path, dict(request.query), body,
                                      {k.lower(): v for k, v in request.headers.items()}))
        key = request.path if request.method == "POST" else f"{request.method} {request.path}"
        items = self.answers[key]
        status, payload = items.pop(0) if len(items) > 1 else items[0]
        if callable(payload):
            status, payload = payload(body)
        return web.Response(status=status, body=payload)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        for path in self.answers:  # "GET /x" for another method than POST
            method, _, route = path.rpartition(" ")
            app.router.add_route(method or "POST", route, self._handle)
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.loop.run_until_complete(web.SockSite(self.runner, sock).start())
        self._ready.set()
        self.loop.run_forever()

    def __enter__(self) -> "HttpServer":
        self._thread.start()
        assert self._ready.wait(30)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list:
        return [r.path for r in self.requests]
