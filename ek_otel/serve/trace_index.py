"""Deciding when a trace is complete, and bounding what waits in memory.

The :class:`TraceIndex` mirrors the store's open traces (first/last arrival, root seen,
pending bytes). A trace is *due* when its root span has arrived and ``grace_s`` passed with
no new payload, or ``max_wait_s`` passed since its first unscored payload. Admission control
lives here too: a request that would push the open traces or pending bytes over their caps
is refused with :class:`~ek_otel.errors.Overloaded` (503 / UNAVAILABLE with retry), never
silently dropped.

:meth:`TraceIndex.due` runs on every scheduler tick with thousands of traces open, so it
never walks them all: each trace has a *deadline* (the earlier of its root's grace and its
max-wait) in a heap; traces whose deadline passed move to a heap of ready traces ordered by
first arrival, and ``due(now, limit=n)`` takes the first ``n`` of those. A change to a trace
(a new payload, a restore) gives it a new version; heap items of an older version are
dropped when they surface.

Example:
    >>> idx = TraceIndex(grace_s=2.0, max_wait_s=60.0, max_open_traces=10, max_pending_bytes=100)
    >>> idx.admit({"t1": 40}); idx.observe("t1", 40, has_root=True, now=0.0)
    >>> idx.due(now=1.0), idx.due(now=2.5)
    ([], [('t1', 0)])
    >>> idx.start_scoring("t1")
    0
    >>> idx.admit({"t2": 70})
    Traceback (most recent call last):
    ...
    ek_otel.errors.Overloaded: pending bytes at the cap (110 > 100); retry later
"""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Iterable, Mapping, Optional

from ..errors import Overloaded

__all__ = ["TraceIndex"]


class _Entry:
    __slots__ = ("first_seen", "last_seen", "has_root", "pending_bytes", "revision", "scoring",
                 "ready", "version")

    def __init__(self, first_seen: float, last_seen: float, has_root: bool, pending_bytes: int,
                 revision: int, version: int):
        self.first_seen = first_seen
        self.last_seen = last_seen
        self.has_root = has_root
        self.pending_bytes = pending_bytes
        self.revision = revision
        self.scoring = False
        self.ready = False      # in the ready heap (its deadline passed)
        self.version = version  # heap items of another version are stale


class TraceIndex:
    """Thread-safe in-memory index of open traces: completion and caps."""

    def __init__(self, *, grace_s: float, max_wait_s: float, max_open_traces: int,
                 max_pending_bytes: int, retry_after_s: int = 1):
        self.grace_s = grace_s
        self.max_wait_s = max_wait_s
        self.max_open_traces = max_open_traces
        self.max_pending_bytes = max_pending_bytes
        self.retry_after_s = retry_after_s
        self._lock = threading.Lock()
        self._traces: dict[str, _Entry] = {}
        self._pending_bytes = 0
        self._versions = itertools.count()
        self._deadlines: list = []  # heap of (deadline, version, trace id)
        self._ready: list = []      # heap of (first seen, trace id, version)

    # -- admission -------------------------------------------------------------------------

    def admit(self, incoming: Mapping[str, int]) -> None:
        """Refuse (raise :class:`Overloaded`) a request whose trace-id → bytes would break a cap."""
        with self._lock:
            new_traces = sum(1 for t in incoming if t not in self._traces)
            if new_traces and len(self._traces) + new_traces > self.max_open_traces:
                raise Overloaded(
                    f"open traces at the cap ({len(self._traces) + new_traces} > "
                    f"{self.max_open_traces}); retry later", self.retry_after_s)
            total = self._pending_bytes + sum(incoming.values())
            if total > self.max_pending_bytes:
                raise Overloaded(
                    f"pending bytes at the cap ({total} > {self.max_pending_bytes}); retry later",
                    self.retry_after_s)

    # -- arrivals --------------------------------------------------------------------------

    def observe(self, trace_id: str, stored_bytes: int, *, has_root: bool, now: float,
                revision: int = 0) -> None:
        """Record a payload stored for a trace (call after the store committed it)."""
        with self._lock:
            e = self._traces.get(trace_id)
            if e is None:
                e = self._traces[trace_id] = _Entry(now, now, has_root, stored_bytes, revision,
                                                    next(self._versions))
            else:
                e.last_seen = max(e.last_seen, now)
                e.has_root = e.has_root or has_root
                e.pending_bytes += stored_bytes
            self._pending_bytes += stored_bytes
            self._schedule(trace_id, e)

    def restore(self, trace_id: str, *, first_seen: float, last_seen: float, has_root: bool,
                pending_bytes: int, revision: int) -> None:
        """Re-add an open trace read from the store (on start, or left open after scoring)."""
        with self._lock:
            old = self._traces.pop(trace_id, None)
            if old is not None:
                self._pending_bytes -= old.pending_bytes
            e = self._traces[trace_id] = _Entry(first_seen, last_seen, has_root, pending_bytes,
                                                revision, next(self._versions))
            self._pending_bytes += pending_bytes
            self._schedule(trace_id, e)

    def _schedule(self, trace_id: str, e: _Entry) -> None:
        """(Re)start the trace's deadline under a new version (the lock is held)."""
        e.version = next(self._versions)
        e.ready = False
        heapq.heappush(self._deadlines, (self._deadline(e), e.version, trace_id))
        if len(self._deadlines) > 2 * len(self._traces) + 1024:
            self._compact()

    def _compact(self) -> None:
        """Drop the stale heap items (each change of a trace leaves one behind)."""
        traces = self._traces
        self._deadlines = [item for item in self._deadlines
                           if (e := traces.get(item[2])) is not None and e.version == item[1]]
        heapq.heapify(self._deadlines)
        self._ready = [item for item in self._ready
                       if (e := traces.get(item[1])) is not None and e.version == item[2] and e.ready]
        heapq.heapify(self._ready)

    def _deadline(self, e: _Entry) -> float:
        deadline = e.first_seen + self.max_wait_s
        if e.has_root:
            deadline = min(deadline, e.last_seen + self.grace_s)
        return deadline

    def _is_due(self, e: _Entry, now: float) -> bool:
        return (e.has_root and now - e.last_seen >= self.grace_s) or \
            now - e.first_seen >= self.max_wait_s

    # -- completion ------------------------------------------------------------------------

    def due(self, now: float, *, ignore_grace: bool = False,
            limit: Optional[int] = None) -> list[tuple[str, int]]:
        """``(trace_id, revision)`` of traces ready to score and not being scored, first
        arrived first: all of them, or the first ``limit``.

        With ``ignore_grace`` (shutdown), every trace whose root arrived is due.
        """
        with self._lock:
            if ignore_grace:
                out = sorted((e.first_seen, tid, e.revision) for tid, e in self._traces.items()
                             if not e.scoring and (e.has_root or self._is_due(e, now)))
                return [(tid, rev) for _, tid, rev in out[:limit]]
            traces, deadlines, ready = self._traces, self._deadlines, self._ready
            early = []  # the clock is not monotonic: not due yet after all
            while deadlines and deadlines[0][0] <= now:
                item = heapq.heappop(deadlines)
                e = traces.get(item[2])
                if e is None or e.version != item[1]:
                    continue
                if not self._is_due(e, now):
                    early.append(item)
                    continue
                e.ready = True
                heapq.heappush(ready, (e.first_seen, item[2], e.version))
            out = []
            taken = []
            while ready and (limit is None or len(out) < limit):
                item = heapq.heappop(ready)
                e = traces.get(item[1])
                if e is None or e.version != item[2] or not e.ready:
                    continue
                if not self._is_due(e, now):  # the clock went back
                    e.ready = False
                    early.append((self._deadline(e), e.version, item[1]))
                    continue
                taken.append(item)
                if not e.scoring:
                    out.append((item[1], e.revision))
            for item in taken:
                heapq.heappush(ready, item)
            for item in early:
                heapq.heappush(deadlines, item)
            return out

    def start_scoring(self, trace_id: str) -> int:
        """Mark a due trace as being scored; returns the revision to score."""
        with self._lock:
            e = self._traces[trace_id]
            e.scoring = True
            e.ready = False  # its ready item is dropped; abort_scoring schedules it again
            return e.revision

    def finish_scoring(self, trace_id: str, reopened: Optional[object] = None) -> None:
        """Forget a scored trace, or keep it open (``reopened``: the store's OpenTraceRow)."""
        with self._lock:
            e = self._traces.pop(trace_id, None)
            if e is not None:
                self._pending_bytes -= e.pending_bytes
        if reopened is not None:
            self.restore(trace_id, first_seen=reopened.first_seen, last_seen=reopened.last_seen,
                         has_root=reopened.has_root, pending_bytes=reopened.pending_bytes,
                         revision=reopened.revisions)

    def abort_scoring(self, trace_id: str) -> None:
        """Scoring failed transiently: make the trace due again later."""
        with self._lock:
            e = self._traces.get(trace_id)
            if e is not None:
                e.scoring = False
                if not e.ready:
                    self._schedule(trace_id, e)

    # -- figures ---------------------------------------------------------------------------

    @property
    def open_count(self) -> int:
        """Traces waiting (or being scored)."""
        return len(self._traces)

    @property
    def pending_bytes(self) -> int:
        """Raw bytes of payloads waiting to be scored."""
        return self._pending_bytes

    def trace_ids(self) -> Iterable[str]:
        """A snapshot of the open trace ids."""
        with self._lock:
            return list(self._traces)
