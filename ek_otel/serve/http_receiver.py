"""The OTLP/HTTP receiver (aiohttp): ``POST /v1/traces`` and ``/v1/logs``, plus health.

Status codes follow the OTLP spec (``reference/otlp.md``):

======================================  =================================================
200                                     stored durably (``partial_success`` when spans
                                        were rejected)
400                                     undecodable body (the client never retries)
401                                     missing or wrong bearer token
405 / 415                               not POST / unsupported content type or encoding
408                                     the body did not arrive within the body timeout
413                                     body over the cap after decompression
503 + ``Retry-After``                   at a memory cap, store not ready, or any
                                        problem of ours (the client retries)
======================================  =================================================

Error bodies are ``google.rpc.Status`` in the request's content type. ``GET /healthz`` is 200
while the server runs; ``GET /readyz`` is 200 only once the store is open and the server is
not shutting down.

Example:
    >>> status_body("json", 3, "bad")
    b'{"code": 3, "message": "bad"}'
    >>> response_body("traces", "json", 2, "invalid id")
    b'{"partialSuccess": {"rejectedSpans": "2", "errorMessage": "invalid id"}}'
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import ssl
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from aiohttp import ClientPayloadError, web

from ..errors import DecodeError
from .assembler import Overloaded
from .body import BodyTooLarge, Decompressor, UnsupportedMediaType, format_of
from .config import ServeConfig
from .intake import InflightBudget, Intake, response_body
from .report_page import add_report_page

__all__ = ["status_body", "response_body", "make_app", "HttpReceiver"]

_log = logging.getLogger(__name__)

#: Protobuf bodies up to this size are split on the event loop (bigger ones, and JSON, in a
#: thread, so health checks stay responsive).
_INLINE_SPLIT_BYTES = 1 * 2**20

_CONTENT_TYPES = {"protobuf": "application/x-protobuf", "json": "application/json"}

# google.rpc.Code values
_INVALID_ARGUMENT = 3
_UNAUTHENTICATED = 16
_UNAVAILABLE = 14
_RESOURCE_EXHAUSTED = 8
_UNIMPLEMENTED = 12
_DEADLINE_EXCEEDED = 4


def status_body(fmt: str, code: int, message: str) -> bytes:
    """A ``google.rpc.Status`` error body, protobuf or JSON."""
    if fmt == "json":
        return json.dumps({"code": code, "message": message}).encode()
    from google.rpc import status_pb2

    return status_pb2.Status(code=code, message=message).SerializeToString()


def _error(fmt: str, status: int, code: int, message: str, headers: Optional[dict] = None):
    return web.Response(status=status, body=status_body(fmt, code, message),
                        content_type=_CONTENT_TYPES[fmt], headers=headers)


def make_app(intake: Intake, config: ServeConfig, *, ready: Callable[[], bool],
             budget: Optional[InflightBudget] = None,
             executor: Optional[ThreadPoolExecutor] = None) -> web.Application:
    """Build the aiohttp application of the receiver."""
    budget = budget or InflightBudget(config.max_inflight_bytes, config.retry_after_s)
    executor = executor or ThreadPoolExecutor(2, thread_name_prefix="ek-otel-split")
    token = config.auth_token
    retry_headers = {"Retry-After": str(config.retry_after_s)}

    def authorized(request: web.Request) -> bool:
        if not token:
            return True
        header = request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(),
                                                                  token.encode())

    async def read_body(request: web.Request, fmt: str) -> tuple[bytes, int]:
        dec = Decompressor(request.headers.get("Content-Encoding"), config.max_body_bytes)
        length = request.content_length
        if length is not None and length > config.max_body_bytes:
            raise BodyTooLarge(f"body of {length} bytes is over the cap of {config.max_body_bytes}")
        reserved = length or 0
        budget.acquire(reserved)
        try:
            read = 0
            async for chunk in request.content.iter_chunked(256 * 1024):
                read += len(chunk)
                dec.feed(chunk)
                need = read + dec.size
                if need > reserved:
                    budget.acquire(need - reserved)
                    reserved = need
            body = dec.finish()
            if len(body) + read > reserved:
                budget.acquire(len(body) + read - reserved)
                reserved = len(body) + read
        except BaseException:
            budget.release(reserved)
            raise
        return body, reserved

    async def export(request: web.Request, signal: str) -> web.Response:
        guess = "json" if "json" in (request.headers.get("Content-Type") or "") else "protobuf"
        if request.method != "POST":
            resp = _error(guess, 405, _UNIMPLEMENTED, f"{request.method} is not allowed; use POST")
            resp.headers["Allow"] = "POST"
            return resp
        if not authorized(request):
            return _error(guess, 401, _UNAUTHENTICATED, "missing or invalid bearer token",
                          {"WWW-Authenticate": "Bearer"})
        try:
            fmt = format_of(request.headers.get("Content-Type"))
        except UnsupportedMediaType as exc:
            return _error(guess, 415, _INVALID_ARGUMENT, str(exc))
        if not ready():
            return _error(fmt, 503, _UNAVAILABLE, "not ready; retry later", retry_headers)
        reserved = 0
        try:
            try:
                body, reserved = await asyncio.wait_for(read_body(request, fmt),
                                                        config.body_timeout_s)
            except asyncio.TimeoutError:
                return _error(fmt, 408, _DEADLINE_EXCEEDED, "the body did not arrive in time")
            what = "spans" if signal == "traces" else "logs"
            if len(body) <= _INLINE_SPLIT_BYTES and fmt == "protobuf":
                # Parse + group of a typical SDK batch takes ~1 ms: cheaper inline than two
                # thread hops (each may wait a GIL switch interval under load).
                prepared = intake.prepare(what, body, fmt)
            else:
                loop = asyncio.get_running_loop()
                prepared = await loop.run_in_executor(executor, intake.prepare, what, body, fmt)
            del body
            intake.admit(prepared)
            await asyncio.wrap_future(intake.commit(prepared))
        except UnsupportedMediaType as exc:
            return _error(fmt, 415, _INVALID_ARGUMENT, str(exc))
        except BodyTooLarge as exc:
            return _error(fmt, 413, _RESOURCE_EXHAUSTED, str(exc))
        except (DecodeError, RecursionError) as exc:
            return _error(fmt, 400, _INVALID_ARGUMENT, f"undecodable body: {exc}"[:1000])
        except Overloaded as exc:
            return _error(fmt, 503, _UNAVAILABLE, str(exc),
                          {"Retry-After": str(exc.retry_after_s)})
        except asyncio.CancelledError:
            raise
        except (ConnectionError, ClientPayloadError) as exc:
            # The client went away mid-body (or sent a broken chunked framing): nothing was
            # stored and no one is there to read an answer. Not our failure: no traceback,
            # or any client could flood the log by hanging up.
            _log.debug("client of %s went away: %s", signal, exc)
            return _error(fmt, 400, _INVALID_ARGUMENT, f"incomplete body: {exc}"[:1000])
        except Exception as exc:  # ours, not the client's: retryable
            _log.exception("receiving %s failed", signal)
            return _error(fmt, 503, _UNAVAILABLE, f"temporary failure: {type(exc).__name__}",
                          retry_headers)
        finally:
            budget.release(reserved)
        return web.Response(status=200, body=response_body(signal, fmt, prepared.rejected,
                                                           prepared.error_message),
                            content_type=_CONTENT_TYPES[fmt])

    async def traces(request: web.Request) -> web.Response:
        return await export(request, "traces")

    async def logs(request: web.Request) -> web.Response:
        return await export(request, "logs")

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "serving"})

    async def readyz(request: web.Request) -> web.Response:
        if ready():
            return web.json_response({"status": "ready"})
        return web.json_response({"status": "not ready"}, status=503, headers=retry_headers)

    app = web.Application(client_max_size=config.max_body_bytes)
    app.router.add_route("*", "/v1/traces", traces)
    app.router.add_route("*", "/v1/logs", logs)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    add_report_page(app, config, authorized=authorized)
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
