"""``GET /`` of ``ek-otel serve``: the live HTML report of what the server has scored.

Read-only (``GET`` and ``HEAD``; anything else is 405), behind the same bearer token as the
receiver when one is set (401 otherwise). The page is the one ``ek-otel report --html`` writes
for the server's store (:class:`~ek_otel.report.live.LivePage`), rendered in a thread of its
own so that the receiver never waits for it, again only when the store changed and at most
every :data:`MIN_RENDER_INTERVAL_S`; it reloads itself as runs are scored.

Example:
    >>> from aiohttp import web
    >>> from ek_otel.serve.config import ServeConfig
    >>> app = web.Application()
    >>> add_report_page(app, ServeConfig(gold="g.jsonl"), authorized=lambda request: True)
    >>> sorted(r.method for r in app.router.routes())
    ['*']
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from aiohttp import web

from ..errors import InputError
from ..report.live import LivePage
from .config import ServeConfig

__all__ = ["add_report_page", "MIN_RENDER_INTERVAL_S", "PAGE_HEADERS"]

_log = logging.getLogger(__name__)

#: A busy store is rendered at most this often (seconds); the cached page is served between.
MIN_RENDER_INTERVAL_S = 5.0

#: Sent with the page: no caching, no sniffing, no framing, no network access from the page.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "script-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
}


def add_report_page(app: web.Application, config: ServeConfig, *,
                    authorized: Callable[[web.Request], bool]) -> None:
    """Add ``GET /`` (the live report) to the receiver's application."""
    live = LivePage(config.store, gold=config.gold or None, trace_url=config.trace_url,
                    min_interval_s=MIN_RENDER_INTERVAL_S)
    executor = ThreadPoolExecutor(1, thread_name_prefix="ek-otel-report")

    async def index(request: web.Request) -> web.Response:
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=405, text="the report is read-only: use GET\n",
                                headers={"Allow": "GET, HEAD"})
        if not authorized(request):
            return web.Response(status=401, text="missing or invalid bearer token\n",
                                headers={"WWW-Authenticate": 'Bearer realm="ek-otel"'})
        try:
            body = await asyncio.get_running_loop().run_in_executor(executor, live.page)
        except InputError as exc:
            return web.Response(status=503, text=f"no report yet: {exc}\n",
                                headers={"Retry-After": "5"})
        except Exception as exc:  # ours: the receiver keeps serving
            _log.exception("rendering the report page failed")
            return web.Response(status=500, text=f"the report page failed: {type(exc).__name__}\n")
        return web.Response(body=body, content_type="text/html", charset="utf-8",
                            headers=PAGE_HEADERS)

    async def close(_app: web.Application) -> None:
        executor.shutdown(wait=False, cancel_futures=True)

    app.router.add_route("*", "/", index)
    app.on_cleanup.append(close)
