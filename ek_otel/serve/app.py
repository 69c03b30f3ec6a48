"""Wiring of ``ek-otel serve``: store, writer, index, receivers, scheduler, outbox, lifecycle.

Start order: open the store (the writer thread, and the WAL checkpointer's), rebuild the open-trace index from it,
start the scoring executor and the outbox exporters, then the receivers; ``/readyz`` turns
200. On SIGTERM (or :meth:`ServeApp.request_stop`): readiness drops, the receivers stop
accepting and finish their in-flight requests, every trace whose root arrived is scored,
the outbox is flushed (bounded), the store is closed, and :func:`serve` returns 0.

Example:
    >>> from ek_otel.serve.config import ServeConfig
    >>> ServeApp(ServeConfig(gold="g.jsonl")).ready
    False
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Callable, Optional

from ..errors import InputError
from .checkpointer import BACKSTOP_PAGES, Checkpointer
from .config import ServeConfig
from .groupcommit import GroupCommitWriter
from .intake import Intake
from .outbox import OVERWRITING_SINKS, OutboxExporter
from .scheduler import Scheduler
from .store import Store
from .store_lock import StoreLock
from .trace_index import TraceIndex
from .worker import ScoringSetup, worker_init

__all__ = ["ServeApp", "serve", "DEFAULT_DRAIN_S", "DEFAULT_FLUSH_S"]

_log = logging.getLogger(__name__)

#: Seconds allowed, on shutdown, to score the traces that are complete.
DEFAULT_DRAIN_S = 30.0
#: Seconds allowed, on shutdown, to deliver the outbox.
DEFAULT_FLUSH_S = 10.0


class ServeApp:
    """One running ``ek-otel serve``.

    Args:
        config: The validated :class:`ServeConfig`.
        make_sinks: Override of the sinks (name → (sink, file path or None)); tests use it.
        log: Where one-line status messages go (the CLI passes ``click.echo`` to stderr).
    """

    def __init__(self, config: ServeConfig, *, make_sinks: Optional[Callable[[], dict]] = None,
                 log: Callable[[str], None] = lambda line: _log.info(line)):
        self.config = config
        self.log = log
        self._make_sinks = make_sinks or self._default_sinks
        self._ready = False
        self.writer: Optional[GroupCommitWriter] = None
        self.checkpointer: Optional[Checkpointer] = None
        self.index: Optional[TraceIndex] = None
        self.intake: Optional[Intake] = None
        self.scheduler: Optional[Scheduler] = None
        self.exporters: list[OutboxExporter] = []
        self.http = None
        self.grpc = None
        self.http_port: Optional[int] = None
        self.grpc_port: Optional[int] = None
        self._lock: Optional[StoreLock] = None

    @property
    def ready(self) -> bool:
        """True once the store is open and until shutdown begins."""
        return self._ready

    # -- pieces -----------------------------------------------------------------------------

    def _default_sinks(self) -> dict:
        from ..emit.sinks import make_sinks

        cfg = self.config
        sinks = make_sinks(**cfg.emit_options(),
                           warn=lambda message: self.log(f"ek-otel serve: warning: {message}"))
        return {name: (sink, cfg.emit_file if name == "file" else None)
                for name, sink in sinks.items()}

    def _make_executor(self):
        n = self.config.scorer_processes
        if n <= 0:
            return ThreadPoolExecutor(1, thread_name_prefix="ek-otel-scorer")
        return ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=worker_init)

    def open(self) -> None:
        """Open the store and start everything but the receivers."""
        cfg = self.config
        store_path = os.path.abspath(cfg.store)
        self._lock = StoreLock(store_path)
        self.checkpointer = Checkpointer(store_path, synchronous=cfg.synchronous)
        self.writer = GroupCommitWriter(
            lambda: Store(store_path, synchronous=cfg.synchronous,
                          autocheckpoint_pages=BACKSTOP_PAGES),
            on_commit=self.checkpointer.wake)
        try:
            self.writer.start()
        except sqlite3.DatabaseError as exc:  # not a database, corrupt, locked...
            raise InputError(f"cannot open the store: {exc}", path=cfg.store) from None
        self.checkpointer.start()
        gold = os.path.abspath(cfg.gold)

        def record_meta(store: Store) -> list:
            store.set_meta("gold", gold)
            store.set_meta("score_settings", cfg.score_settings)
            return store.open_traces()

        open_traces = self.writer.call(record_meta)
        self.index = TraceIndex(grace_s=cfg.grace_s, max_wait_s=cfg.max_wait_s,
                                max_open_traces=cfg.max_open_traces,
                                max_pending_bytes=cfg.max_pending_bytes,
                                retry_after_s=cfg.retry_after_s)
        now = time.time()
        for t in open_traces:
            # After a restart, every open run gets a fresh grace (clients are re-sending what
            # the crash cut off) and at least a grace before its max-wait backstop.
            self.index.restore(t.trace_id,
                               first_seen=max(t.first_seen, now - cfg.max_wait_s + cfg.grace_s),
                               last_seen=max(t.last_seen, now), has_root=t.has_root,
                               pending_bytes=t.pending_bytes, revision=t.revisions)
        sinks = self._make_sinks()
        for name, (sink, path) in sinks.items():
            exporter = OutboxExporter(name, sink, self.writer,
                                      lambda: Store(store_path, readonly=True), file_path=path,
                                      give_up_s=cfg.export_give_up_s,
                                      overwrites=name in OVERWRITING_SINKS)
            exporter.start()
            self.exporters.append(exporter)
        # the sinks whose requests can be framed from scores encoded in the scoring workers
        encodings = tuple((name, sink.encoding) for name, (sink, _) in sinks.items()
                          if getattr(sink, "encoding", None) is not None)
        setup = ScoringSetup(store_path, gold, cfg.score_settings, encodings)
        self.scheduler = Scheduler(
            self.index, self.writer, Store(store_path, readonly=True), setup,
            self._make_executor, sinks=tuple(sinks), on_scored=self._wake_outbox,
            tick_s=min(0.1, max(0.01, cfg.grace_s / 4)), warm_workers=cfg.scorer_processes)
        self.scheduler.start()
        self.intake = Intake(self.writer, self.index, on_stored=self.scheduler.wake)
        self.intake.warm_up()
        if open_traces:
            self.log(f"ek-otel serve: {len(open_traces)} open traces restored from {cfg.store}")

    def _wake_outbox(self) -> None:
        for exporter in self.exporters:
            exporter.wake()

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the store, start the receivers, become ready."""
        await asyncio.get_running_loop().run_in_executor(None, self.open)
        from .grpc_receiver import GrpcReceiver
        from .http_receiver import HttpReceiver

        if self.config.grpc is not None:
            self.grpc = GrpcReceiver(self.intake, self.config, ready=lambda: self._ready)
            self.grpc.start()
            self.grpc_port = self.grpc.port
        if self.config.http is not None:
            self.http = HttpReceiver(self.intake, self.config, ready=lambda: self._ready)
            await self.http.start()
            self.http_port = self.http.port
        self._ready = True

    async def stop(self, *, drain_s: float = DEFAULT_DRAIN_S,
                   flush_s: float = DEFAULT_FLUSH_S) -> dict:
        """Graceful shutdown; returns the store's counts at the end."""
        self._ready = False
        loop = asyncio.get_running_loop()
        if self.grpc is not None:
            await loop.run_in_executor(None, self.grpc.stop, 5.0)
        if self.http is not None:
            await self.http.stop()
        return await loop.run_in_executor(None, self._stop_sync, drain_s, flush_s)

    def _stop_sync(self, drain_s: float, flush_s: float) -> dict:
        counts: dict = {}
        if self.scheduler is not None:
            if drain_s > 0 and not self.scheduler.drain(drain_s):
                self.log("ek-otel serve: some complete traces were not scored in time; "
                         "they will be scored on the next start")
            self.scheduler.stop()
        for exporter in self.exporters:
            exporter.stop(flush_s)
        if self.checkpointer is not None:
            self.checkpointer.stop()
        if self.writer is not None:
            try:
                counts = self.writer.call(lambda s: s.counts(), timeout=30)
            except Exception:  # pragma: no cover - reporting only
                counts = {}
            self.writer.stop()
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        return counts


def serve(config: ServeConfig, *, log: Callable[[str], None] = print,
          on_ready: Optional[Callable[[ServeApp], None]] = None,
          stop_event: Optional[threading.Event] = None) -> int:
    """Run the server until SIGTERM/SIGINT (or ``stop_event``); returns the exit code 0.

    Example (not run here: it binds ports):
        serve(ServeConfig(gold="gold.jsonl").validate())
    """
    config.validate()

    async def main() -> int:
        app = ServeApp(config, log=log)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (NotImplementedError, RuntimeError):  # not the main thread
                pass
        try:
            await app.start()
        except InputError:  # a store that is not ours, corrupt or in use: one line, exit 2
            await app.stop(drain_s=0.0, flush_s=0.0)
            raise
        except OSError as exc:  # a port in use, a missing certificate...: one line, exit 2
            await app.stop(drain_s=0.0, flush_s=0.0)
            raise InputError(f"cannot start the receivers: {exc}") from None
        parts = []
        if app.http_port is not None:
            parts.append(f"http {config.http[0]}:{app.http_port}")
        if app.grpc_port is not None:
            parts.append(f"grpc {config.grpc[0]}:{app.grpc_port}")
        log(f"ek-otel serve: listening on {', '.join(parts)}; store {config.store}")
        if on_ready is not None:
            on_ready(app)
        if stop_event is not None:
            while not stop.is_set() and not stop_event.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), 0.2)
                except asyncio.TimeoutError:
                    pass
        else:
            await stop.wait()
        log("ek-otel serve: stopping (finishing requests, scoring complete traces, "
            "flushing the outbox)")
        started = time.monotonic()
        counts = await app.stop()
        log(f"ek-otel serve: stopped in {time.monotonic() - started:.1f}s; "
            + ", ".join(f"{k} {v}" for k, v in counts.items()))
        return 0

    return asyncio.run(main())
