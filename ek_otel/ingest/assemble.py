"""Streaming grouping of records by trace id, with memory bounded by the traces still open.

Nothing in OTLP marks a trace as finished, so a trace is **closed** when its root span
(a span with no parent) has been seen and ``close_after`` further input records have gone
by without a new record for it. A trace whose root never arrives is closed after
``max_idle`` records without news (a backstop), and everything still open is flushed at
the end of the input.

- Duplicate spans (same trace id and span id: exporters retry) are dropped, also when they
  arrive shortly after their trace was closed.
- Logs with a trace id join their trace; logs without one are yielded in groups with
  ``trace_id == ""`` (at most ``close_after`` records each, and at the end).
- A record that arrives for a trace already closed starts a new group for that trace
  marked ``late=True``; the scoring layer turns it into a revision of the episode.
  ``close_after=None`` never closes a trace before the end of the input (no late groups,
  memory bounded by the input).

**Memory** is bounded by the traces still open, not by the input: the span ids of the last
:data:`RECENT_CLOSED_TRACES` closed traces (late duplicates), and the ids of every closed
trace (late records), the last :data:`CLOSED_TRACE_IDS` of them in memory and the older ones
in a temporary file (:mod:`~ek_otel.ingest.closed_traces`).

**Garbage collection.** Holding the open traces while JSON parsers churn out short-lived
containers makes CPython's cyclic GC rescan the held records again and again (measured on
``bench/ingest.py``, 100k JSON spans, CPU s: 4.9 with CPython's default thresholds
(700, 10, 10), 3.9 with (50000, 10, 10), 3.0 with :data:`GC_THRESHOLDS`, 3.1 with no GC at
all). So while it runs, :func:`group_traces` sets :data:`GC_THRESHOLDS` (``tune_gc=False``
leaves the GC alone) and puts the previous thresholds back when it ends or is closed
(:func:`restore_gc_thresholds`). The records hold no reference cycles, so this delays no
memory they use.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> t1, t2 = "1" * 32, "2" * 32
    >>> records = [SpanRecord(t1, "a" * 16), SpanRecord(t2, "c" * 16, "d" * 16),
    ...            SpanRecord(t1, "a" * 16),             # a retried duplicate
    ...            SpanRecord(t1, "b" * 16, "a" * 16), SpanRecord(t2, "e" * 16)]
    >>> [(g.trace_id[0], len(g.spans), g.late) for g in group_traces(records, close_after=3)]
    [('1', 2, False), ('2', 2, False)]
    >>> [(g.trace_id[0], len(g.spans), g.late) for g in group_traces(records, close_after=1)]
    [('1', 1, False), ('2', 2, False), ('1', 1, True)]
"""

from __future__ import annotations

import gc
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Union

from .closed_traces import ClosedTraces
from .records import LogRecord, SpanRecord

__all__ = [
    "DEFAULT_CLOSE_AFTER",
    "DEFAULT_MAX_IDLE",
    "RECENT_CLOSED_TRACES",
    "CLOSED_TRACE_IDS",
    "GC_THRESHOLDS",
    "restore_gc_thresholds",
    "TraceGroup",
    "group_traces",
    "KEEP_CLOSED_TRACES",
    "LateRecords",
]

#: Records to wait, after a trace's root span, without news for that trace before closing it
#: (about one Collector batch: its batch processor sends 8192 spans at a time).
DEFAULT_CLOSE_AFTER = 10_000

#: Records to wait without news for a trace whose root span never came.
DEFAULT_MAX_IDLE = 200_000

#: How many closed traces keep their span ids, to drop late duplicates of their spans.
RECENT_CLOSED_TRACES = 10_000

#: How many of the most recently closed trace ids are kept in memory (some 130 bytes each),
#: to mark their late records ``late=True``; older ones are kept in a temporary file
#: (:class:`~ek_otel.ingest.closed_traces.ClosedTraces`), so none is forgotten.
CLOSED_TRACE_IDS = 100_000

#: The GC thresholds while :func:`group_traces` runs (CPython's default: (700, 10, 10)):
#: fewer young collections, and full collections a thousand times rarer.
GC_THRESHOLDS = (10_000, 100, 100)


@dataclass(frozen=True)
class TraceGroup:
    """The spans and log records of one trace (``trace_id == ""``: logs with no trace).

    ``late`` is True when the trace had already been closed and yielded before these
    records arrived: a revision of that trace, not a new one.

    Example:
        >>> g = TraceGroup("1" * 32, spans=(SpanRecord("1" * 32, "a" * 16),))
        >>> g.root.span_id == "a" * 16, g.late
        (True, False)
    """

    trace_id: str
    spans: tuple[SpanRecord, ...] = ()
    logs: tuple[LogRecord, ...] = ()
    late: bool = False

    @property
    def root(self) -> Optional[SpanRecord]:
        """The first span with no parent; else the earliest span whose parent is missing
        from the group (a root for assembly); None for a group without spans.

        Example:
            >>> t = "1" * 32
            >>> TraceGroup(t, spans=(SpanRecord(t, "b" * 16, "a" * 16, start_ns=2),
            ...                      SpanRecord(t, "c" * 16, "9" * 16, start_ns=1))).root.span_id
            'cccccccccccccccc'
        """
        for span in self.spans:
            if not span.parent_span_id:
                return span
        present = {span.span_id for span in self.spans}
        orphans = [span for span in self.spans if span.parent_span_id not in present]
        return min(orphans, key=lambda span: span.start_ns) if orphans else None


class _TraceBuffer:
    """The records of one trace being grouped (not yet closed)."""

    __slots__ = ("spans", "logs", "span_ids", "root_seen", "last_seen", "late")

    def __init__(self, late: bool):
        self.spans: list = []
        self.logs: list = []
        self.span_ids: set = set()
        self.root_seen = False
        self.last_seen = 0
        self.late = late


class _Assembler:
    """The grouping state; :func:`group_traces` drives it."""

    def __init__(self, close_after: Optional[int], max_idle: Optional[int]):
        self.close_after = close_after
        self.max_idle = max_idle if close_after is not None else None
        self.open: dict = {}
        self.waiting_root: deque = deque()  # (index, trace id) of traces whose root was seen
        self.waiting_idle: deque = deque()  # (index, trace id) of every record (backstop)
        self.recent_closed: dict = {}  # trace id -> frozenset of span ids
        self.closed_ids = ClosedTraces(CLOSED_TRACE_IDS)
        self.orphan_logs: list = []
        self.index = 0

    def push(self, record: Union[SpanRecord, LogRecord]) -> Optional[list]:
        """Take one record; return the groups it closes (None when none: the common case)."""
        self.index += 1
        trace_id = record.trace_id
        closed = None
        if type(record) is SpanRecord or isinstance(record, SpanRecord):
            self._add_span(record, trace_id)
        elif trace_id:
            self._trace(trace_id).logs.append(record)
        else:
            self.orphan_logs.append(record)
            if self.close_after is not None and len(self.orphan_logs) >= max(self.close_after, 1):
                closed = [self._orphans()]
        if self.close_after is not None:
            now = self.index
            root, idle = self.waiting_root, self.waiting_idle
            if (root and root[0][0] + self.close_after <= now) or (
                    idle and idle[0][0] + self.max_idle <= now):
                closed = (closed or []) + list(self._close_due())
        return closed

    def _trace(self, trace_id: str) -> _TraceBuffer:
        trace = self.open.get(trace_id)
        if trace is None:
            trace = self.open[trace_id] = _TraceBuffer(late=trace_id in self.closed_ids)
        trace.last_seen = self.index
        if self.max_idle is not None:
            self.waiting_idle.append((self.index, trace_id))
        return trace

    def _add_span(self, span: SpanRecord, trace_id: str) -> None:
        recent = self.recent_closed.get(trace_id)
        if recent is not None and span.span_id in recent:
            return
        trace = self.open.get(trace_id)
        if trace is not None and span.span_id in trace.span_ids:
            return
        trace = self._trace(trace_id)
        trace.span_ids.add(span.span_id)
        trace.spans.append(span)
        if not span.parent_span_id:
            trace.root_seen = True
        if trace.root_seen and self.close_after is not None:
            self.waiting_root.append((self.index, trace_id))

    def _close_due(self) -> Iterator[TraceGroup]:
        now = self.index
        waiting = self.waiting_root
        while waiting and waiting[0][0] + self.close_after <= now:
            seen, trace_id = waiting.popleft()
            trace = self.open.get(trace_id)
            if trace is not None and trace.last_seen == seen:
                yield self._close(trace_id)
        idle = self.waiting_idle
        while idle and idle[0][0] + self.max_idle <= now:
            seen, trace_id = idle.popleft()
            trace = self.open.get(trace_id)
            if trace is not None and trace.last_seen == seen:
                yield self._close(trace_id)

    def _close(self, trace_id: str) -> TraceGroup:
        trace = self.open.pop(trace_id)
        self.recent_closed[trace_id] = frozenset(trace.span_ids)
        if len(self.recent_closed) > RECENT_CLOSED_TRACES:
            del self.recent_closed[next(iter(self.recent_closed))]
        self.closed_ids.add(trace_id)
        return TraceGroup(trace_id, tuple(trace.spans), tuple(trace.logs), trace.late)

    def _orphans(self) -> TraceGroup:
        group = TraceGroup("", (), tuple(self.orphan_logs))
        self.orphan_logs = []
        return group

    def flush(self) -> Iterator[TraceGroup]:
        for trace_id in list(self.open):
            yield self._close(trace_id)
        if self.orphan_logs:
            yield self._orphans()


def group_traces(
    records: Iterable[Union[SpanRecord, LogRecord]],
    *,
    close_after: Optional[int] = DEFAULT_CLOSE_AFTER,
    max_idle: Optional[int] = DEFAULT_MAX_IDLE,
    tune_gc: bool = True,
) -> Iterator[TraceGroup]:
    """Group a stream of span and log records by trace id, yielding each trace once closed.

    Args:
        records: Spans and logs in input order (e.g. from
            :func:`~ek_otel.ingest.dumps.read_dump`).
        close_after: Input records to wait after a trace's root span without news for it;
            ``None`` closes traces only at the end of the input.
        max_idle: Input records to wait without news for a trace whose root never came;
            ``None`` waits for the end of the input.
        tune_gc: Set :data:`GC_THRESHOLDS` while grouping (see above).

    Example:
        >>> from ek_otel.ingest.records import LogRecord, SpanRecord
        >>> t = "1" * 32
        >>> stream = [SpanRecord(t, "a" * 16), LogRecord(trace_id=t, event_name="gen_ai.choice"),
        ...           LogRecord(event_name="orphan"), SpanRecord(t, "b" * 16, "a" * 16)]
        >>> [(g.trace_id[:1], len(g.spans), len(g.logs), g.late)
        ...  for g in group_traces(stream, close_after=0)]
        [('1', 1, 0, False), ('', 0, 1, False), ('1', 1, 1, True)]
        >>> [(g.trace_id[:1], len(g.spans), len(g.logs)) for g in group_traces(stream, close_after=None)]
        [('1', 2, 1), ('', 0, 1)]
    """
    if close_after is not None and close_after < 0:
        raise ValueError("close_after must be >= 0 or None")
    if max_idle is not None and close_after is not None and max_idle < close_after:
        max_idle = close_after
    assembler = _Assembler(close_after, max_idle)
    push = assembler.push
    thresholds = gc.get_threshold()
    if tune_gc:
        gc.set_threshold(*GC_THRESHOLDS)
    try:
        for record in records:
            closed = push(record)
            if closed:
                yield from closed
        yield from assembler.flush()
    finally:
        assembler.closed_ids.close()
        if tune_gc:
            restore_gc_thresholds(thresholds)


def restore_gc_thresholds(thresholds: tuple) -> None:
    """Put the GC ``thresholds`` back after a run under :data:`GC_THRESHOLDS` (unless someone
    changed them meanwhile), and move what the run holds to the oldest generation without a
    collection (:func:`gc.freeze`, then :func:`gc.unfreeze`). Under :data:`GC_THRESHOLDS` the
    young generations fill with up to a million objects (the scores, rows and records the run
    keeps); with the default thresholds back, the next young collection would walk them all
    once (0.3-0.5 s of the main process's serial tail on 100k spans, ``ek-otel score``).
    Cyclic garbage among them waits for the next full collection.

    Example:
        >>> import gc
        >>> before = gc.get_threshold()
        >>> gc.set_threshold(*GC_THRESHOLDS)
        >>> restore_gc_thresholds(before)
        >>> gc.get_threshold() == before
        True
    """
    if gc.get_threshold() == GC_THRESHOLDS:
        gc.freeze()
        gc.unfreeze()
        gc.set_threshold(*thresholds)


# ---------------------------------------------------------------------------
# Late records: merged with the kept records of their trace
# ---------------------------------------------------------------------------

#: How many closed traces keep their records so that late spans can re-score them.
KEEP_CLOSED_TRACES = 2_000


class LateRecords:
    """Keeps the records of the ``keep`` most recently closed traces, and merges each late
    group (``late=True``, from :func:`group_traces`) with them: the trace comes again whole,
    so its episode is rebuilt from every record, as a revision.

    A late group for a trace no longer kept is not yielded (an episode from half a trace
    would be wrong); its trace id is added to :attr:`evicted`.

    Example:
        >>> t = "1" * 32
        >>> late = LateRecords(keep=10)
        >>> groups = [TraceGroup(t, spans=(SpanRecord(t, "a" * 16),)),
        ...           TraceGroup(t, spans=(SpanRecord(t, "b" * 16, "a" * 16),), late=True),
        ...           TraceGroup("2" * 32, spans=(SpanRecord("2" * 32, "c" * 16),), late=True)]
        >>> [(g.trace_id[0], len(g.spans), g.late) for g in late.merge(groups)]
        [('1', 1, False), ('1', 2, True)]
        >>> [trace_id[0] for trace_id in late.evicted]
        ['2']
    """

    def __init__(self, keep: int = KEEP_CLOSED_TRACES):
        self.keep = keep
        self.closed: "OrderedDict[str, tuple]" = OrderedDict()
        self.evicted: list = []

    def merge(self, groups: Iterable[TraceGroup]) -> Iterator[TraceGroup]:
        """The groups, each late one merged with the kept records of its trace."""
        for group in groups:
            trace_id = group.trace_id
            if not trace_id:
                yield group
                continue
            if group.late:
                earlier = self.closed.pop(trace_id, None)
                if earlier is None:
                    self.evicted.append(trace_id)
                    continue
                group = TraceGroup(trace_id, earlier[0] + tuple(group.spans),
                                   earlier[1] + tuple(group.logs), True)
            if self.keep:
                self.closed[trace_id] = (tuple(group.spans), tuple(group.logs))
                self.closed.move_to_end(trace_id)
                while len(self.closed) > self.keep:
                    self.closed.popitem(last=False)
            yield group
