"""The OTLP/HTTP receiver (aiohttp): ``POST /v1/traces`` and ``/v1/logs``, plus health.

A stored request answers 200 (with ``partial_success`` when records were rejected); every
refusal is an exception, answered by the status table of :mod:`ek_otel.serve.responses`
(the one the gRPC receiver uses too): 400 undecodable, 401 token, 405 not POST, 408 body too
slow, 413 body over the cap after decompression, 415 content type or encoding, 503 with
``Retry-After`` at a memory cap, when not ready, or on any failure of ours. Error bodies are
``google.rpc.Status`` in the request's content type. ``GET /healthz`` is 200 while the
server runs; ``GET /readyz`` is 200 only once the store is open and the server is not
shutting down. ``GET /`` is the live HTML report (:mod:`ek_otel.serve.report_page`).

Example:
    >>> from ek_otel.serve.config import ServeConfig
    >>> app = make_app(None, ServeConfig(gold="g"), ready=lambda: False)
    >>> sorted({r.resource.canonical for r in app.router.routes()})
    ['/', '/healthz', '/readyz', '/v1/logs', '/v1/traces']
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import ssl
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from aiohttp import ClientPayloadError, web

from ..ingest.formats import MEDIA_TYPES, format_of_content_type
from .body import BodyTooLarge, Decompressor
from .config import ServeConfig
from .intake import InflightBudget, Intake, Prepared
from .report_page import add_report_page
from .responses import (
    BodyTimeout,
    ClientGone,
    MethodNotAllowed,
    NotReady,
    Unauthenticated,
    refusal_for,
    response_body,
    status_body,
)

__all__ = ["make_app", "HttpReceiver"]

_log = logging.getLogger(__name__)

#: Protobuf bodies up to this size are split on the event loop (bigger ones, and JSON, in a
#: thread, so health checks stay responsive).
_INLINE_SPLIT_BYTES = 1 * 2**20

_READ_CHUNK = 256 * 1024


class _Endpoints:
    """The request handlers of one receiver, and what they share (intake, config, budget)."""

    def __init__(self, intake: Intake, config: ServeConfig, ready: Callable[[], bool],
                 budget: InflightBudget, executor: ThreadPoolExecutor):
        self.intake = intake
        self.config = config
        self.ready = ready
        self.budget = budget
        self.executor = executor

    # -- routes ------------------------------------------------------------------------------

    async def traces(self, request: web.Request) -> web.Response:
        return await self.export(request, "traces")

    async def logs(self, request: web.Request) -> web.Response:
        return await self.export(request, "logs")

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "serving"})

    async def readyz(self, request: web.Request) -> web.Response:
        if self.ready():
            return web.json_response({"status": "ready"})
        return web.json_response({"status": "not ready"}, status=503,
                                 headers={"Retry-After": str(self.config.retry_after_s)})

    # -- export ------------------------------------------------------------------------------

    async def export(self, request: web.Request, signal: str) -> web.Response:
        """Check, read, split, admit and commit one request; answer 200 once it is durable."""
        # Errors before the content type is known are answered in the format it suggests.
        fmt = "json" if "json" in (request.headers.get("Content-Type") or "") else "protobuf"
        try:
            self._check(request)
            fmt = format_of_content_type(request.headers.get("Content-Type"))
            if not self.ready():
                raise NotReady("not ready; retry later", self.config.retry_after_s)
            prepared = await self._store(request, signal, fmt)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return self._refuse(fmt, exc, signal)
        return web.Response(status=200, body=response_body(signal, fmt, prepared.rejected,
                                                           prepared.error_message),
                            content_type=MEDIA_TYPES[fmt])

    def authorized(self, request: web.Request) -> bool:
        """True without a token, or with the right bearer token (the report page asks too)."""
        token = self.config.auth_token
        if not token:
            return True
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(),
                                                                  token.encode())

    def _check(self, request: web.Request) -> None:
        if request.method != "POST":
            raise MethodNotAllowed(f"{request.method} is not allowed; use POST")
        if not self.authorized(request):
            raise Unauthenticated("missing or invalid bearer token")

    async def _store(self, request: web.Request, signal: str, fmt: str) -> Prepared:
        reserved = 0
        try:
            try:
                body, reserved = await asyncio.wait_for(self._read_body(request),
                                                        self.config.body_timeout_s)
            except asyncio.TimeoutError:
                raise BodyTimeout("the body did not arrive in time") from None
            except (ConnectionError, ClientPayloadError) as exc:
                # The client went away mid-body (or sent a broken chunked framing): nothing
                # was stored and no one is there to read an answer.
                raise ClientGone(str(exc)) from exc
            if len(body) <= _INLINE_SPLIT_BYTES and fmt == "protobuf":
                # Parse + group of a typical SDK batch takes ~1 ms: cheaper inline than two
                # thread hops (each may wait a GIL switch interval under load).
                prepared = self.intake.prepare(signal, body, fmt)
            else:
                loop = asyncio.get_running_loop()
                prepared = await loop.run_in_executor(self.executor, self.intake.prepare,
                                                      signal, body, fmt)
            del body
            self.intake.admit(prepared)
            await asyncio.wrap_future(self.intake.commit(prepared))
            return prepared
        finally:
            self.budget.release(reserved)

    async def _read_body(self, request: web.Request) -> tuple[bytes, int]:
        """The decompressed body, and the bytes reserved for it in the in-flight budget."""
        cap = self.config.max_body_bytes
        dec = Decompressor(request.headers.get("Content-Encoding"), cap)
        length = request.content_length
        if length is not None and length > cap:
            raise BodyTooLarge(f"body of {length} bytes is over the cap of {cap}")
        reserved = length or 0
        self.budget.acquire(reserved)
        try:
            read = 0
            async for chunk in request.content.iter_chunked(_READ_CHUNK):
                read += len(chunk)
                dec.feed(chunk)
                need = read + dec.size
                if need > reserved:
                    self.budget.acquire(need - reserved)
                    reserved = need
            body = dec.finish()
            if len(body) + read > reserved:
                self.budget.acquire(len(body) + read - reserved)
                reserved = len(body) + read
        except BaseException:
            self.budget.release(reserved)
            raise
        return body, reserved

    def _refuse(self, fmt: str, exc: Exception, signal: str) -> web.Response:
        refusal = refusal_for(exc, retry_after_s=self.config.retry_after_s, noun="body")
        if refusal.ours:
            _log.exception("receiving %s failed", signal)
        elif isinstance(exc, ClientGone):
            _log.debug("client of %s went away: %s", signal, exc)
        return web.Response(status=refusal.http_status,
                            body=status_body(fmt, refusal.rpc_code, refusal.message),
                            content_type=MEDIA_TYPES[fmt], headers=refusal.http_headers())


def make_app(intake: Intake, config: ServeConfig, *, ready: Callable[[], bool],
             budget: Optional[InflightBudget] = None,
             executor: Optional[ThreadPoolExecutor] = None) -> web.Application:
    """Build the aiohttp application of the receiver (routes of :class:`_Endpoints`)."""
    endpoints = _Endpoints(
        intake, config, ready,
        budget or InflightBudget(config.max_inflight_bytes, config.retry_after_s),
        executor or ThreadPoolExecutor(2, thread_name_prefix="ek-otel-split"))
    app = web.Application(client_max_size=config.max_body_bytes)
    app.router.add_route("*", "/v1/traces", endpoints.traces)
    app.router.add_route("*", "/v1/logs", endpoints.logs)
    app.router.add_get("/healthz", endpoints.healthz)
    app.router.add_get("/readyz", endpoints.readyz)
    add_report_page(app, config, authorized=endpoints.authorized)
    return app


class HttpReceiver:
    """Run :func:`make_app` on a host and port (with TLS when configured)."""

    def __init__(self, intake: Intake, config: ServeConfig, *, ready: Callable[[], bool]):
        self.config = config
        self.executor = ThreadPoolExecutor(2, thread_name_prefix="ek-otel-split")
        self.app = make_app(intake, config, ready=ready, executor=self.executor)
        self._runner: Optional[web.AppRunner] = None
        self.port: Optional[int] = None

    async def start(self) -> None:
        """Bind and start serving."""
        host, port = self.config.http
        ssl_context = None
        if self.config.tls:
            ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ssl_context.load_cert_chain(self.config.tls_cert, self.config.tls_key)
        # auto_decompress=False: bodies are decompressed by our capped stream decoder, so a
        # gzip bomb never inflates inside the HTTP parser.
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False,
                                     keepalive_timeout=75.0, auto_decompress=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, ssl_context=ssl_context, backlog=1024)
        await site.start()
        sockets = site._server.sockets if site._server else []  # noqa: SLF001
        self.port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        """Stop accepting, let in-flight requests finish, then close."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self.executor.shutdown(wait=True)
