"""Group commit: one writer thread runs the store's write operations, many per transaction.

Every request that must be durable before it is acknowledged submits an operation and waits
for its future. The writer takes everything queued, runs each operation inside a savepoint of
one transaction, commits once (one fsync), then resolves every future. Under load, concurrent
requests share a commit; alone, a request pays one commit.

Example:
    >>> from ek_otel.serve.store import Store, IncomingChunk
    >>> w = GroupCommitWriter(lambda: Store(":memory:"))
    >>> w.start()
    >>> w.submit(lambda s: s.ingest([IncomingChunk("traces", "a" * 32, b"x", ("b" * 16,))])).result(5)
    [(1, 0, False)]
    >>> w.call(lambda s: s.counts()["spans"])
    1
    >>> w.stop()
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable, Optional

from .store import Store

__all__ = ["DEFAULT_MAX_BATCH", "WriterClosed", "GroupCommitWriter"]

#: Most operations committed together.
DEFAULT_MAX_BATCH = 512

_STOP = object()

_log = logging.getLogger(__name__)


class WriterClosed(RuntimeError):
    """The writer is stopped: the operation was not run (a transient error: answer 503)."""


class GroupCommitWriter:
    """The single thread that writes to the store, committing operations in groups.

    Args:
        open_store: Called once, in the writer thread, to open the write connection.
        max_batch: Most operations per transaction.
        on_commit: Called in the writer thread after each commit, before the futures
            resolve (the WAL checkpointer's wake-up).
    """

    def __init__(self, open_store: Callable[[], Store], *, max_batch: int = DEFAULT_MAX_BATCH,
                 on_commit: Optional[Callable[[], None]] = None):
        self._open_store = open_store
        self._max_batch = max_batch
        self._on_commit = on_commit
        self._queue: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._thread: Optional[threading.Thread] = None
        self._ready = threading.Event()
        self._closed = False
        self._open_error: Optional[BaseException] = None
        self.commits = 0
        self.operations = 0

    def start(self) -> None:
        """Start the writer thread and wait until the store is open (raises if it cannot be)."""
        self._thread = threading.Thread(target=self._run, name="ek-otel-writer", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._open_error is not None:
            raise self._open_error

    def submit(self, op: Callable[[Store], Any],
               after: Optional[Callable[[Any], None]] = None) -> Future:
        """Queue ``op(store)``; its future resolves after the transaction holding it commits.

        ``after(result)``, when given, runs in the writer thread right after the commit, in
        commit order: in-memory state updated there follows the store exactly.
        """
        fut: Future = Future()
        if self._closed:
            fut.set_exception(WriterClosed("the store writer is stopped"))
            return fut
        self._queue.put((op, fut, after))
        return fut

    def call(self, op: Callable[[Store], Any], timeout: Optional[float] = 60.0) -> Any:
        """Run ``op(store)`` durably and return its result (blocking)."""
        return self.submit(op).result(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Run what is queued, then stop the thread and close the store (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            store = self._open_store()
        except BaseException as exc:  # reported by start()
            self._open_error = exc
            self._closed = True
            self._ready.set()
            return
        self._ready.set()
        try:
            stopping = False
            while not stopping:
                item = self._queue.get()
                batch = []
                while True:
                    if item is _STOP:
                        stopping = True
                    else:
                        batch.append(item)
                    if len(batch) >= self._max_batch:
                        break
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                if batch:
                    self._run_batch(store, batch)
            # Anything submitted after stop() was called fails cleanly.
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not _STOP:
                    item[1].set_exception(WriterClosed("the store writer is stopped"))
        finally:
            store.close()

    def _run_batch(self, store: Store, batch: list) -> None:
        results: list = []
        try:
            store.begin()
            for i, (op, fut, _) in enumerate(batch):
                if not fut.set_running_or_notify_cancel():
                    results.append((False, None))
                    continue
                store.conn.execute(f"SAVEPOINT op{i}")
                try:
                    value = op(store)
                except Exception as exc:  # this operation fails alone
                    store.conn.execute(f"ROLLBACK TO op{i}")
                    store.conn.execute(f"RELEASE op{i}")
                    results.append((False, exc))
                else:
                    store.conn.execute(f"RELEASE op{i}")
                    results.append((True, value))
            store.commit()
        except Exception as exc:  # the commit itself failed: nothing is durable
            store.rollback()
            for _, fut, _ in batch:
                if fut.running():
                    fut.set_exception(exc)
            return
        self.commits += 1
        self.operations += len(batch)
        if self._on_commit is not None:
            self._on_commit()
        for (_, fut, after), (ok, value) in zip(batch, results):
            if ok and after is not None:
                try:
                    after(value)
                except Exception:  # pragma: no cover - a bug in a hook must not stop the writer
                    _log.exception("after-commit hook failed")
        for (_, fut, _), (ok, value) in zip(batch, results):
            if not fut.running():
                continue
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(value)
