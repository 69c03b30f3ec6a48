"""The outbox rows of the store: scores waiting for a sink, and what their export did.

:class:`~ek_otel.serve.store.Store` has these queries (it inherits :class:`OutboxQueries`);
the ``outbox`` table is in :data:`~ek_otel.serve.store.SCHEMA`. Each row is one score for one
sink: its envelope (or ``''``: the score row's, :meth:`OutboxQueries.envelope_of`), the bytes
the sink sends of it when the scoring worker prepared them (``prepared``,
:mod:`ek_otel.emit.prepared`), and the state of its export.

Example:
    >>> OutboxRow(1, "ab" * 16, 0, "", 0).key
    ('abababababababababababababababab', 0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Optional

__all__ = ["OutboxRow", "OutboxQueries"]


@dataclass(frozen=True)
class OutboxRow:
    """A score waiting to be exported."""

    id: int
    trace_id: str
    revision: int
    envelope: str
    attempts: int
    sending: Optional[int] = None
    first_failed: Optional[float] = None
    prepared: Optional[bytes] = None

    @property
    def key(self) -> tuple:
        """``(trace_id, revision)``: the key of its score's envelope (what sinks name)."""
        return (self.trace_id, self.revision)


class OutboxQueries:
    """The outbox's queries, on a store's ``conn`` and ``_transaction`` (a mixin of
    :class:`~ek_otel.serve.store.Store`, whose writes come from one thread)."""

    def pending_exports(self, sink: str, limit: int = 100, *,
                        fresh_first: bool = False) -> list[OutboxRow]:
        """Scores not yet exported to ``sink``, oldest first.

        With ``fresh_first``, rows never tried come before rows that failed (each group oldest
        first), so rows a backend keeps refusing cannot hold back the ones behind them.

        Example:
            >>> from ek_otel.serve.store import Store; s = Store(":memory:")
            >>> s.pending_exports("otlp", fresh_first=True)
            []
        """
        order = "(attempts > 0), id" if fresh_first else "id"
        return [
            OutboxRow(*r)
            for r in self.conn.execute(
                "SELECT id, trace_id, revision, envelope, attempts, sending, first_failed, "
                f"prepared FROM outbox WHERE sink=? AND exported IS NULL ORDER BY {order} LIMIT ?",
                (sink, limit),
            )
        ]

    def envelope_of(self, row: OutboxRow) -> str:
        """The envelope JSON of an outbox row's score (its own copy, else the score row's).

        Example:
            >>> from ek_otel.serve.store import Store; s = Store(":memory:")
            >>> s.envelope_of(OutboxRow(1, "ab" * 16, 0, '{"v": 1}', 0))
            '{"v": 1}'
        """
        if row.envelope:
            return row.envelope
        found = self.conn.execute("SELECT envelope FROM scores WHERE trace_id=? AND revision=?",
                                  (row.trace_id, row.revision)).fetchone()
        if found is None or not found[0]:
            raise LookupError(f"no score for the outbox row of trace {row.trace_id} "
                              f"(revision {row.revision})")
        return found[0]

    def mark_sending(self, ids: Iterable[int], offset: int) -> None:
        """Record, before a file write, the file size it starts at (to undo a torn write)."""
        self._transaction(
            self.conn.executemany,
            "UPDATE outbox SET sending=? WHERE id=? AND exported IS NULL",
            [(offset, i) for i in ids],
        )

    def interrupted_write(self, sink: str) -> Optional[int]:
        """The file offset of a write to ``sink`` that was started and never confirmed."""
        row = self.conn.execute(
            "SELECT MIN(sending) FROM outbox WHERE sink=? AND exported IS NULL "
            "AND sending IS NOT NULL", (sink,)
        ).fetchone()
        return row[0]

    def mark_exported(self, ids: Iterable[int], now: Optional[float] = None, *,
                      supersede: bool = False) -> None:
        """Mark outbox rows as exported (after the sink accepted them).

        With ``supersede`` (sinks that upsert: a newer revision replaces an older one), older
        revisions of the same trace still pending for that sink are marked exported too, so a
        late retry of an old revision never overwrites the new one.
        """
        ts = time.time() if now is None else now
        ids = list(ids)
        self._transaction(
            self.conn.executemany,
            "UPDATE outbox SET exported=? WHERE id=? AND exported IS NULL",
            [(ts, i) for i in ids],
        )
        if supersede:
            self._transaction(
                self.conn.executemany,
                "UPDATE outbox SET exported=? WHERE exported IS NULL AND id IN ("
                "SELECT o.id FROM outbox o JOIN outbox d ON o.sink=d.sink "
                "AND o.trace_id=d.trace_id AND o.revision<d.revision WHERE d.id=?)",
                [(ts, i) for i in ids],
            )

    def count_attempt(self, ids: Iterable[int], now: Optional[float] = None) -> None:
        """Count a failed export attempt of outbox rows (the first failure's time is kept)."""
        ts = time.time() if now is None else now
        self._transaction(
            self.conn.executemany,
            "UPDATE outbox SET attempts=attempts+1, first_failed=COALESCE(first_failed, ?) "
            "WHERE id=?",
            [(ts, i) for i in ids],
        )

    def give_up(self, reasons: dict, now: Optional[float] = None) -> None:
        """Stop exporting outbox rows: ``{row id: why}``. They count as ``export_failed``.

        Example:
            >>> from ek_otel.serve.store import Store; s = Store(":memory:")
            >>> s.give_up({})
            >>> s.counts()["export_failed"]
            0
        """
        ts = time.time() if now is None else now
        self._transaction(
            self.conn.executemany,
            "UPDATE outbox SET exported=?, given_up=? WHERE id=? AND exported IS NULL",
            [(ts, why, i) for i, why in reasons.items()],
        )

    def export_failures(self) -> list[tuple]:
        """The given-up outbox rows: ``(sink, trace_id, revision, reason)``, oldest first.

        Example:
            >>> from ek_otel.serve.store import Store; Store(":memory:").export_failures()
            []
        """
        return [tuple(r) for r in self.conn.execute(
            "SELECT sink, trace_id, revision, given_up FROM outbox WHERE given_up IS NOT NULL "
            "ORDER BY id")]
