"""The live report page of ``ek-otel serve`` (``GET /``): the ``ek-otel report`` page of the
store, rendered again only when the store changed.

:class:`LivePage` reads the store the server writes (read-only, as ``ek-otel report`` does)
and keeps the last page with the state of the store files it was made from (size and mtime of
the database and its write-ahead log): a request that finds the store unchanged gets the
cached page; one that finds it changed renders it again, one render at a time. Rendering is
CPU work (a 10,000-episode store takes about a second): call :meth:`LivePage.page` from a
worker thread, never on the event loop. The page reloads itself every ``refresh_seconds``
while no detail is open (a checkbox turns that off).

Example:
    >>> import os, tempfile
    >>> live = LivePage(os.path.join(tempfile.mkdtemp(), "none.db"))
    >>> live.page()
    Traceback (most recent call last):
    ...
    ek_otel.errors.InputError: ...none.db: no such store yet
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, Optional

from ..core.text import utf8_bytes
from ..errors import InputError

__all__ = ["LivePage", "REFRESH_SECONDS"]

#: How often the live page reloads itself while nobody is reading a detail.
REFRESH_SECONDS = 10


def _signature(path: str) -> tuple:
    parts = []
    for name in (path, f"{path}-wal"):
        try:
            st = os.stat(name)
            parts.append((st.st_size, st.st_mtime_ns))
        except OSError:
            parts.append(None)
    return tuple(parts)


class LivePage:
    """The HTML page of a serve store, cached until the store changes.

    Args:
        store_path: The SQLite store of ``ek-otel serve``.
        gold: The gold file (default: the one the store records).
        trace_url: A ``--trace-url`` template for the trace links (checked here).
        refresh_seconds: How often the page reloads itself.
        min_interval_s: The least time between two renders: a store that keeps changing is
            rendered at most this often (the cached page is served in between), so that
            rendering never takes much of the server's time.
        load: ``load(store_path, gold) -> dict`` giving the JSON report (tests; default: the
            ``ek-otel report`` reader).
    """

    def __init__(self, store_path: str, *, gold: Optional[str] = None,
                 trace_url: Optional[str] = None, refresh_seconds: int = REFRESH_SECONDS,
                 min_interval_s: float = 0.0,
                 load: Optional[Callable[[str, Optional[str]], dict]] = None):
        self.store_path = store_path
        self.gold = gold
        self.trace_url = None
        if trace_url is not None:  # the page's modules (jinja2, numpy) load with the first page
            from .page_data import validate_trace_url

            self.trace_url = validate_trace_url(trace_url)
        self.refresh_seconds = refresh_seconds
        self.min_interval_s = min_interval_s
        self._rendered_at = 0.0
        self._load = load or _load_store
        self._lock = threading.Lock()
        self._cached: Optional[tuple] = None  # (signature, page bytes)
        self.renders = 0

    def page(self) -> bytes:
        """The page (UTF-8 HTML), rendered again only if the store changed since the last one.

        Raises:
            InputError: no store yet, or one that cannot be read.

        Example:
            >>> import os, tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "s.db"); _ = open(path, "w").write("x")
            >>> live = LivePage(path, load=lambda p, g: {"aggregate": {}, "per_task": {}})
            >>> live.page() is live.page(), live.renders
            (True, 1)
        """
        if not os.path.exists(self.store_path):
            raise InputError("no such store yet", path=self.store_path)
        with self._lock:
            signature = _signature(self.store_path)
            if self._cached is not None and (
                    self._cached[0] == signature
                    or time.monotonic() - self._rendered_at < self.min_interval_s):
                return self._cached[1]
            from .html import render_run
            from .model import report_from_dict

            data = self._load(self.store_path, self.gold)
            html = render_run(report_from_dict(data, self.store_path), trace_url=self.trace_url,
                              gold_path=self.gold, title="ek-otel live report",
                              refresh_seconds=self.refresh_seconds)
            body = utf8_bytes(html)
            self._cached = (signature, body)
            self._rendered_at = time.monotonic()
            self.renders += 1
            return body


def _load_store(store_path: str, gold: Optional[str]) -> dict:
    from ..serve.report import load_run

    return load_run(store_path, gold=gold).to_dict()
