"""The ids of the traces already closed, remembered with flat memory: so that a record that
comes for one of them later is known as late, however long the input.

:class:`ClosedTraces` keeps the most recent ``in_memory`` ids in a dict; older ones go to a
private temporary SQLite database (:func:`~ek_otel.tempdb.temporary_database`: a file in
``$TMPDIR`` that SQLite deletes when it is closed or garbage-collected), 16 bytes each,
written in batches. Nothing is forgotten: a dump of millions of traces takes some 40 bytes of
disk per trace and no more memory than a small one.
The file is only made once more than ``in_memory`` traces have closed.

Example:
    >>> closed = ClosedTraces(in_memory=2)
    >>> for trace_id in ("1" * 32, "2" * 32, "3" * 32):
    ...     closed.add(trace_id)
    >>> "1" * 32 in closed, "3" * 32 in closed, "4" * 32 in closed, len(closed)
    (True, True, False, 3)
    >>> closed.close()
"""

from __future__ import annotations

from typing import Any, Optional

from ..tempdb import temporary_database

__all__ = ["ClosedTraces"]

#: Ids written to the file at once.
_BATCH = 4096


def _key(trace_id: str) -> bytes:
    """16 bytes for a well-formed trace id; the UTF-8 text of anything else (never 16 bytes
    long, so the two never collide)."""
    if len(trace_id) == 32:
        try:
            return bytes.fromhex(trace_id)
        except ValueError:
            pass
    key = trace_id.encode("utf-8", "surrogatepass")
    return key if len(key) != 16 else b"\x00" + key


class ClosedTraces:
    """A set of trace ids that only grows, most of it on disk (module doc)."""

    def __init__(self, in_memory: int):
        self.in_memory = in_memory
        self.recent: dict = {}  # trace id -> None, oldest first
        self.pending: set = set()  # keys evicted from ``recent``, not yet written
        self.conn: Any = None
        self.on_disk = 0

    def add(self, trace_id: str) -> None:
        recent = self.recent
        if trace_id in recent:
            return
        recent[trace_id] = None
        if len(recent) > self.in_memory:
            oldest = next(iter(recent))
            del recent[oldest]
            self.pending.add(_key(oldest))
            if len(self.pending) >= _BATCH:
                self._write()

    def __contains__(self, trace_id: object) -> bool:
        if trace_id in self.recent:
            return True
        if not isinstance(trace_id, str) or (not self.pending and self.conn is None):
            return False
        key = _key(trace_id)
        if key in self.pending:
            return True
        return self.conn is not None and self.conn.execute(
            "SELECT 1 FROM closed WHERE id = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return len(self.recent) + len(self.pending) + self.on_disk

    def _write(self) -> None:
        if self.conn is None:
            conn = temporary_database(self)
            conn.execute("CREATE TABLE closed (id BLOB PRIMARY KEY) WITHOUT ROWID")
            self.conn = conn
        before = self.conn.total_changes
        self.conn.executemany("INSERT OR IGNORE INTO closed VALUES (?)",
                              ((key,) for key in self.pending))
        self.on_disk += self.conn.total_changes - before
        self.pending = set()

    def close(self) -> None:
        """Forget everything and delete the file."""
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self.recent, self.pending, self.on_disk = {}, set(), 0
