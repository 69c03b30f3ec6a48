"""One worker's share of the traces when a dump is read by several processes at once.

``ek-otel score --jobs N`` runs N processes over the same dump files (see
``docs/ARCHITECTURE.md``, "Parallel scoring"). Each reads every record, so that grouping by
trace (when a trace closes, duplicates, late records, evictions) is the same in every one,
but decodes in full only the records of **its** traces: a :class:`Shard` says which those
are (:func:`owner_of`: the CRC-32 of the trace id, so a trace read from JSON and from
protobuf has one owner; shard 0, the main process, which also gathers and writes the report,
may take a smaller share), and the other records are read light (ids, parent, resource and
scope: what grouping and the own-output check need; no attribute walk).

A :class:`Shard` is also the bad-input report of its worker (it has the
:class:`~ek_otel.ingest.bad_input.BadInputReport` ``add``), and the **clock** that puts the
cases of all workers back in the order one process meets them. The decoders tick it at
every unit (a file, line or frame), every resource batch and every record, and the worker at
every trace group it yields; all workers tick alike, since they read the same input the same
way. A case is kept, with its key ``(tick, n-th case of that tick)``, only by the worker that
would have met it: cases of a unit or a batch (undecodable lines, bad resources, invalid
ids) by shard 0, cases of a record (a bad attribute, a cut value) by the owner of its trace,
cases of building an episode by the owner of the group. :func:`merge_shard_reports` replays
them in key order into one report, the same (counts, order, first cases) as one process's.

Example:
    >>> from ek_otel.ingest.bad_input import BadInputReport
    >>> trace = "ab" * 16
    >>> shards = [Shard(i, 2) for i in range(2)]
    >>> for shard in shards:                  # what every worker does, in the same order
    ...     shard.unit(); shard.add("invalid JSON", "line 1")
    ...     if shard.item(trace): shard.add("nesting too deep", "span x")
    >>> report = BadInputReport()
    >>> merge_shard_reports([s.state() for s in shards], report)
    >>> report.counts
    {'invalid JSON': 1, 'nesting too deep': 1}
"""

from __future__ import annotations

import heapq
import zlib
from typing import Any, Optional, Sequence

from .bad_input import DEFAULT_KEEP, BadInputCase, BadInputReport

__all__ = ["BUCKETS", "Shard", "ShardReportState", "owner_of", "merge_shard_reports"]

_crc32 = zlib.crc32

#: Trace ids fall in this many buckets (by CRC-32); shard 0 takes the first ones.
BUCKETS = 4096


def owner_of(trace_id: str, count: int, first_share: Optional[float] = None) -> int:
    """The shard (0 to ``count - 1``) that decodes the records of ``trace_id`` (lowercase
    hex, as the decoders write it); ``""`` (no trace, or an invalid id) is shard 0's.
    Shard 0 owns ``first_share`` of the traces (None: ``1 / count``), the others equal parts
    of the rest.

    Example:
        >>> owner_of("", 4), owner_of("0af7651916cd43dd8448eb211c80319c", 4)
        (0, 3)
        >>> sum(owner_of(f"{i:032x}", 2, 0.25) == 0 for i in range(1000))
        246
    """
    if not trace_id or count == 1:
        return 0
    bucket = _crc32(trace_id.encode()) % BUCKETS
    first = _first_buckets(count, first_share)
    if bucket < first:
        return 0
    return 1 + (bucket - first) * (count - 1) // (BUCKETS - first)


def _first_buckets(count: int, first_share: Optional[float]) -> int:
    share = 1 / count if first_share is None else min(max(first_share, 0.0), 1.0)
    return min(round(share * BUCKETS), BUCKETS - 1) if count > 1 else BUCKETS


#: What a worker sends back of its bad input: ``(counts, cases)`` with ``counts`` a list of
#: ``(reason, count, key of its first case)`` and ``cases`` the first ``keep`` cases it kept
#: as ``(key, BadInputCase)``.
ShardReportState = tuple


class Shard:
    """One worker's share of the traces, its clock, and its part of the bad-input report.

    This is an accumulator (mutable on purpose), owned by one worker.

    Example:
        >>> shard = Shard(0, 1)
        >>> shard.item("ab" * 16), shard.clock
        (True, 1)
    """

    __slots__ = ("index", "count", "keep", "clock", "seq", "active", "counts", "cases", "first_share",
                 "_low", "_high")

    def __init__(self, index: int, count: int, keep: int = DEFAULT_KEEP, first_share: Optional[float] = None):
        if not 0 <= index < count:
            raise ValueError(f"shard index {index} is not in 0..{count - 1}")
        self.index, self.count, self.keep, self.first_share = index, count, keep, first_share
        # The buckets of this shard: [low, high) (see owner_of).
        first = _first_buckets(count, first_share)
        if index == 0:
            self._low, self._high = 0, first
        else:
            rest = BUCKETS - first
            self._low = first + -(-(index - 1) * rest // (count - 1))
            self._high = first + -(-index * rest // (count - 1))
        self.clock = 0
        self.seq = 0
        self.active = index == 0
        self.counts: dict = {}  # reason -> [count, key of the first case]
        self.cases: list = []  # (key, BadInputCase), the first ``keep``

    def unit(self) -> None:
        """Tick: a unit of input (file, line, frame, resource batch) starts; its cases are
        shard 0's."""
        self.clock += 1
        self.seq = 0
        self.active = self.index == 0

    def item(self, trace_id: str) -> bool:
        """Tick: a record (or a trace group) of ``trace_id`` comes; True when it is this
        shard's (decode it in full, build it), and then its cases are this shard's."""
        self.clock += 1
        self.seq = 0
        mine = self.owns(trace_id)
        self.active = mine
        return mine

    def owns(self, trace_id: str) -> bool:
        """True when the records of ``trace_id`` are this shard's (what :meth:`item` will
        say of it), without a tick: for readers that must know before the record is built.

        Example:
            >>> Shard(0, 2).owns(""), Shard(1, 2).owns("")
            (True, False)
        """
        if trace_id:
            return self._low <= _crc32(trace_id.encode()) % BUCKETS < self._high
        return self.index == 0

    def add(self, reason: str, detail: str = "", origin: Optional[Any] = None) -> None:
        """A bad-input case (the :meth:`BadInputReport.add` of one process), kept only when
        this shard is the one that meets it."""
        if not self.active:
            return
        key = (self.clock, self.seq)
        self.seq += 1
        counted = self.counts.get(reason)
        if counted is None:
            self.counts[reason] = [1, key]
        else:
            counted[0] += 1
        if len(self.cases) < self.keep:
            self.cases.append((key, BadInputCase(reason, detail[:300], origin)))

    def state(self) -> ShardReportState:
        """What :func:`merge_shard_reports` needs of this shard (picklable)."""
        return [(reason, n, key) for reason, (n, key) in self.counts.items()], list(self.cases)


def merge_shard_reports(states: Sequence[ShardReportState], report: BadInputReport) -> None:
    """Add the cases of every shard to ``report`` as one process would have: reasons in the
    order of their first case, the first ``report.keep`` cases in input order.

    Example:
        >>> a, b = Shard(0, 2), Shard(1, 2)
        >>> for s in (a, b):
        ...     if s.item("1" * 32): s.add("invalid id", "first")
        ...     if s.item("2" * 32): s.add("invalid UTF-8", "second")
        >>> r = BadInputReport()
        >>> merge_shard_reports([a.state(), b.state()], r)
        >>> [c.detail for c in r.cases], list(r.counts)
        (['first', 'second'], ['invalid id', 'invalid UTF-8'])
    """
    firsts: dict = {}
    totals: dict = {}
    for counts, _ in states:
        for reason, n, key in counts:
            totals[reason] = totals.get(reason, 0) + n
            if reason not in firsts or key < firsts[reason]:
                firsts[reason] = key
    for reason in sorted(firsts, key=firsts.__getitem__):
        report.counts[reason] = report.counts.get(reason, 0) + totals[reason]
    room = report.keep - len(report.cases)
    if room > 0:
        cases = heapq.merge(*(kept for _, kept in states), key=lambda pair: pair[0])
        for _, case in cases:
            if room <= 0:
                break
            report.cases.append(case)
            room -= 1
