"""The scheduler loop: find due traces, score them off the event loop, commit the results.

A thread wakes every ``tick_s`` (and whenever spans are stored), asks the
:class:`~ek_otel.serve.trace_index.TraceIndex` which traces are due, and submits each to the
scoring executor (worker processes by default: decoding is CPU-bound and the receiver keeps
the other core). Each result is committed by the group-commit writer in one transaction
(score + outbox rows + covered payloads); only then does the trace leave the index. A
failure of the executor itself (a worker died) is transient: the trace is retried.

Example:
    >>> s = Scheduler.__new__(Scheduler); s.in_flight = {}
    >>> s.busy
    False
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Executor, Future
from typing import Callable, Optional, Sequence

from .groupcommit import GroupCommitWriter
from .store import Store
from .trace_index import TraceIndex
from .worker import ScoringResult, ScoringSetup, score_traces, warm_up

__all__ = ["Scheduler", "MAX_SCORING_FAILURES"]

#: A trace whose scoring kills its worker this many times alone (with no other job in
#: flight) is recorded as failed.
MAX_SCORING_FAILURES = 3

_log = logging.getLogger(__name__)


class Scheduler:
    """Drive traces from due to scored.

    Args:
        index: The open-trace index.
        writer: The store's group-commit writer.
        reader: A read connection on the store (used from the scheduler thread only).
        setup: What scoring workers need.
        make_executor: Builds the scoring executor (called again if it breaks).
        sinks: Outbox sink names each score is queued for.
        on_scored: Called after results are committed (wakes the outbox).
        max_jobs: Most scoring jobs in flight at once.
        batch: Most traces per job (one round trip to a worker, one commit).
        tick_s: Polling period.
        warm_workers: Warm-up jobs (:func:`~ek_otel.serve.worker.warm_up`) submitted when the
            executor starts: one per worker process gets them all ready before the first
            trace is due.
    """

    def __init__(self, index: TraceIndex, writer: GroupCommitWriter, reader: Store,
                 setup: ScoringSetup, make_executor: Callable[[], Executor], *,
                 sinks: Sequence[str] = (), on_scored: Optional[Callable[[], None]] = None,
                 max_jobs: int = 4, batch: int = 32, tick_s: float = 0.1,
                 clock: Callable[[], float] = time.time, warm_workers: int = 0):
        self.index = index
        self.writer = writer
        self.reader = reader
        self.setup = setup
        self.make_executor = make_executor
        self.sinks = tuple(sinks)
        self.on_scored = on_scored
        self.max_jobs = max_jobs
        self.batch = batch
        self.jobs = 0
        self._failures: dict = {}
        self.tick_s = tick_s
        self.clock = clock
        self.executor: Optional[Executor] = None
        self.in_flight: dict[str, Future] = {}
        self.scored = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._ignore_grace = False
        self.warm_workers = warm_workers

    @property
    def busy(self) -> bool:
        """True while some trace is being scored."""
        return bool(self.in_flight)

    def start(self) -> None:
        """Start the executor and the loop thread."""
        self.executor = self.make_executor()
        self._warm_up()
        self._thread = threading.Thread(target=self._run, name="ek-otel-scheduler", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """New spans were stored: look for due traces now (rate-limited by ``tick_s``)."""
        self._wake.set()

    def drain(self, timeout_s: float) -> bool:
        """Score every trace whose root arrived (ignoring the grace) and wait for the results.

        Used on shutdown. Returns True when nothing due is left within ``timeout_s``.
        """
        self._ignore_grace = True
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.05)
            with self._lock:
                idle = not self.in_flight
            if idle and not self.index.due(self.clock(), ignore_grace=True):
                return True
        return False

    def stop(self) -> None:
        """Stop the loop and the executor (in-flight results are lost, not committed: they
        are redone after a restart)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
        self.reader.close()

    # -- the loop ---------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.tick_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.tick()
            except Exception:  # pragma: no cover - logged; the next tick retries
                _log.exception("scheduler tick failed")
            time.sleep(min(self.tick_s, 0.02))

    def tick(self) -> int:
        """Submit due traces, in jobs of up to ``batch`` traces, up to ``max_jobs`` jobs in
        flight; returns how many traces were submitted."""
        with self._lock:
            room = self.max_jobs - self.jobs
        if room <= 0:
            return 0
        due = self.index.due(self.clock(), ignore_grace=self._ignore_grace, limit=room * self.batch)
        # A trace whose job failed before goes alone, and with nothing else in flight: one
        # poison trace (one that kills its worker) must not keep failing the traces batched
        # with it, and a worker killed from outside (which breaks every job in the pool) must
        # not count against a trace that merely happened to be in flight.
        with self._lock:
            suspects = [t for t in due if t[0] in self._failures]
            busy = self.jobs > 0
        if suspects:
            if busy:
                return 0
            groups = [[suspects[0]]]
        else:
            groups = [due[i:i + self.batch] for i in range(0, len(due), self.batch)]
        submitted = 0
        for group in groups[:room]:
            upto = self.reader.max_payload_ids([trace_id for trace_id, _ in group])
            items = [(trace_id, self.index.start_scoring(trace_id), upto.get(trace_id, 0))
                     for trace_id, _ in group]
            try:
                fut = self.executor.submit(score_traces, self.setup, tuple(items))
            except Exception as exc:  # a broken pool: rebuild it, retry the traces later
                _log.warning("scoring executor unusable (%s); restarting it", exc)
                for trace_id, _, _ in items:
                    self.index.abort_scoring(trace_id)
                self._restart_executor()
                return submitted
            with self._lock:
                self.jobs += 1
                for trace_id, _, _ in items:
                    self.in_flight[trace_id] = fut
            fut.add_done_callback(lambda f, items=items: self._scored(items, f))
            submitted += len(items)
        return submitted

    def _warm_up(self) -> None:
        for _ in range(self.warm_workers):
            try:
                self.executor.submit(warm_up, self.setup)  # a failure shows when scoring
            except Exception:  # pragma: no cover - a broken pool is rebuilt by the next tick
                return

    def _restart_executor(self) -> None:
        old = self.executor
        self.executor = self.make_executor()
        self._warm_up()
        if old is not None:
            try:
                old.shutdown(wait=False, cancel_futures=True)
            except Exception:  # pragma: no cover
                pass

    def _scored(self, items: list, fut: Future) -> None:
        try:
            results: list = fut.result()
        except BaseException as exc:  # the worker died or the pool is shutting down
            _log.warning("scoring %d traces did not finish (%s); they will be retried",
                         len(items), exc)
            if len(items) == 1 and self._failed(items[0][0]) > MAX_SCORING_FAILURES:
                trace_id, revision, upto = items[0]
                self._record([ScoringResult(
                    trace_id, revision, upto, task_id=None, matched=False, success=None,
                    envelope=None, detail=f"scoring crashed {MAX_SCORING_FAILURES} times: "
                                          f"{type(exc).__name__}: {exc}"[:2000])], items)
                return
            if len(items) > 1:
                with self._lock:  # suspects now: each is retried alone
                    for trace_id, _, _ in items:
                        self._failures.setdefault(trace_id, 1)
            self._release(items, abort=True)  # a broken pool is rebuilt by the next tick
            return
        self._record(results, items)

    def _failed(self, trace_id: str) -> int:
        with self._lock:
            self._failures[trace_id] = self._failures.get(trace_id, 0) + 1
            return self._failures[trace_id]

    def _record(self, results: list, items: list) -> None:
        sinks = self.sinks

        def record(store) -> list:
            return [store.record_score(
                r.trace_id, r.revision, r.upto, task_id=r.task_id, matched=r.matched,
                success=r.success, envelope=r.envelope, detail=r.detail,
                comparability=r.comparability, sinks=sinks, prepared=dict(r.prepared))
                for r in results]

        commit = self.writer.submit(record, after=lambda outcomes: self._recorded(items, outcomes))
        commit.add_done_callback(lambda c: self._commit_done(items, c))

    def _recorded(self, items: list, outcomes: list) -> None:
        """In the writer thread, right after the commit: update the index in commit order."""
        recorded_any = False
        for (trace_id, _, _), (recorded, still_open) in zip(items, outcomes):
            with self._lock:
                self._failures.pop(trace_id, None)
            if not recorded:
                _log.warning("a stale scoring of %s was not recorded", trace_id)
            self.index.finish_scoring(trace_id, still_open)
            recorded_any = recorded_any or recorded
            if recorded:
                self.scored += 1
        self._release(items, abort=False)
        if recorded_any and self.on_scored is not None:
            self.on_scored()

    def _commit_done(self, items: list, commit: Future) -> None:
        if commit.exception() is not None:  # the commit failed (disk full...): retry later
            _log.warning("cannot record %d scores (%s); will retry", len(items),
                         commit.exception())
            self._release(items, abort=True)

    def _release(self, items: list, *, abort: bool) -> None:
        with self._lock:
            self.jobs -= 1
            for trace_id, _, _ in items:
                self.in_flight.pop(trace_id, None)
        if abort:
            for trace_id, _, _ in items:
                self.index.abort_scoring(trace_id)
        self._wake.set()
