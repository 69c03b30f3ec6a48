"""Deciding when a trace is complete, and bounding what waits in memory.

The :class:`TraceIndex` mirrors the store's open traces (first/last arrival, root seen,
pending bytes). A trace is *due* when its root span has arrived and ``grace_s`` passed with
no new payload, or ``max_wait_s`` passed since its first unscored payload. Admission control
lives here too: a request that would push the open traces or pending bytes over their caps
is refused with :class:`~ek_otel.errors.Overloaded` (503 / UNAVAILABLE with retry), never
silently dropped.

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

import threading
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

from ..errors import Overloaded

__all__ = ["TraceIndex"]


@dataclass
class _Entry:
    first_seen: float
    last_seen: float
    has_root: bool
    pending_bytes: int
    revision: int
    scoring: bool = False


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
                self._traces[trace_id] = _Entry(now, now, has_root, stored_bytes, revision)
            else:
                e.last_seen = max(e.last_seen, now)
                e.has_root = e.has_root or has_root
                e.pending_bytes += stored_bytes
            self._pending_bytes += stored_bytes

    def restore(self, trace_id: str, *, first_seen: float, last_seen: float, has_root: bool,
                pending_bytes: int, revision: int) -> None:
        """Re-add an open trace read from the store (on start, or left open after scoring)."""
        with self._lock:
            old = self._traces.pop(trace_id, None)
            if old is not None:
                self._pending_bytes -= old.pending_bytes
            self._traces[trace_id] = _Entry(first_seen, last_seen, has_root, pending_bytes,
                                            revision)
            self._pending_bytes += pending_bytes

    # -- completion ------------------------------------------------------------------------

    def due(self, now: float, *, ignore_grace: bool = False) -> list[tuple[str, int]]:
        """``(trace_id, revision)`` of every trace ready to score and not being scored.

        With ``ignore_grace`` (shutdown), every trace whose root arrived is due.
        """
        out = []
        with self._lock:
            for tid, e in self._traces.items():
                if e.scoring:
                    continue
                rooted = e.has_root and (ignore_grace or now - e.last_seen >= self.grace_s)
                if rooted or now - e.first_seen >= self.max_wait_s:
                    out.append((e.first_seen, tid, e.revision))
        out.sort()
        return [(tid, rev) for _, tid, rev in out]

    def start_scoring(self, trace_id: str) -> int:
        """Mark a due trace as being scored; returns the revision to score."""
        with self._lock:
            e = self._traces[trace_id]
            e.scoring = True
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
