"""The id-level flow of dump reading, which ``ek-otel score`` in one process and each process
of a parallel run (:mod:`ek_otel.parallel`) share: records -> ek-otel's own output dropped
(:func:`~ek_otel.ingest.own_output.is_own_output`) -> grouped by trace
(:func:`~ek_otel.ingest.assemble.group_traces`) -> late groups merged with the kept records
of their trace (:class:`~ek_otel.ingest.assemble.LateRecords`). Below both :mod:`ek_otel.pipeline`
and :mod:`ek_otel.parallel`, so that neither imports the other for it.

Example:
    >>> from ek_otel.ingest.bad_input import BadInputReport
    >>> groups, late = trace_groups(["examples/traces.jsonl"], BadInputReport())
    >>> len(list(groups)) > 0, late.evicted
    (True, [])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Optional

from .core.episode import Episode
from .ingest.assemble import KEEP_CLOSED_TRACES
from .ingest.own_output import is_own_output

__all__ = ["trace_groups", "groups_of_records", "not_ours", "real_episodes"]


def trace_groups(paths: Sequence[str], report: Any, *, keep_closed: int = KEEP_CLOSED_TRACES,
                 close_after: Optional[int] = None,
                 on_own_output: Optional[Callable[[Any], None]] = None,
                 shard: Any = None) -> tuple:
    """``(groups, late)``: the trace groups of dump files, late ones merged with the kept
    records of their trace (an iterator of :class:`~ek_otel.ingest.assemble.TraceGroup`),
    and the :class:`~ek_otel.ingest.assemble.LateRecords` that merges them (its ``evicted``
    is complete once the groups are). The id-level flow that one process and each process
    of a parallel run (``shard``: see :func:`~ek_otel.ingest.dumps.read_dump`) share.

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> groups, late = trace_groups(["examples/traces.jsonl"], BadInputReport())
        >>> len(list(groups)) > 0, late.evicted
        (True, [])
    """
    from .ingest.dumps import read_dump

    return groups_of_records(read_dump(paths, report=report, shard=shard),
                             keep_closed=keep_closed, close_after=close_after,
                             on_own_output=on_own_output)


def groups_of_records(records: Iterable[Any], *, keep_closed: int = KEEP_CLOSED_TRACES,
                      close_after: Optional[int] = None,
                      on_own_output: Optional[Callable[[Any], None]] = None) -> tuple:
    """``(groups, late)`` of decoded records (see :func:`trace_groups`, which reads them
    from dump files): ek-otel's own output dropped, grouped by trace, late groups merged.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> groups, late = groups_of_records([SpanRecord("1" * 32, "a" * 16)])
        >>> [len(g.spans) for g in groups], late.evicted
        ([1], [])
    """
    from .ingest.assemble import LateRecords, group_traces

    grouping = {} if close_after is None else {"close_after": close_after}
    late = LateRecords(keep_closed)
    return late.merge(group_traces(not_ours(records, on_own_output), **grouping)), late


def not_ours(records: Iterable[Any], on_own: Optional[Callable[[Any], None]] = None) -> Iterator[Any]:
    """Drop ek-otel's own output (scores written back), so it never re-scores a trace."""
    for record in records:
        if not is_own_output(record.resource, record.scope_name):
            yield record
        elif on_own is not None:
            on_own(record)


def real_episodes(episodes: Iterable[Episode]) -> Iterator[Episode]:
    """Skip the pseudo-episodes of log records that belong to no trace and no span."""
    for episode in episodes:
        provenance = episode.provenance
        if provenance is not None and not provenance.trace_id and not provenance.span_count \
                and not episode.trajectory.steps:
            continue
        yield episode
