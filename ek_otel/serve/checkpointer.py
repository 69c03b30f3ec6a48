"""WAL checkpoints in a thread of their own, off the group-commit writer's path.

SQLite copies the write-ahead log back into the database file (a *checkpoint*) inside the
commit that makes the log pass ``wal_autocheckpoint`` pages: that commit then also writes
megabytes and syncs the database file, and every request waiting on it waits for that too
(on the bench's dump, with the default 1000 pages, the slowest commits took two to four
times the others). So the writer's connection checkpoints only as a backstop
(:data:`BACKSTOP_PAGES`), and this thread runs a ``PASSIVE`` checkpoint on its own
connection after commits, at most every ``period_s``: it never blocks the writer nor the
readers, and copies only the frames no reader still needs.

Durability does not depend on checkpoints: a commit is durable once its frames are in the
log (and synced, with ``synchronous=FULL``). A checkpoint cut by a crash is redone from the
log on the next open; a lagging checkpointer only lets the log grow, up to the backstop,
where the writer checkpoints by itself as SQLite always does.

Example:
    >>> import os, tempfile
    >>> from ek_otel.serve.store import Store
    >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> writer = Store(path, autocheckpoint_pages=BACKSTOP_PAGES)
    >>> c = Checkpointer(path, period_s=0.01)
    >>> c.start()
    >>> writer.set_meta("k", "v"); c.wake()
    >>> c.stop(); c.checkpoints >= 1
    True
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from typing import Optional

from .store import connect

__all__ = ["Checkpointer", "BACKSTOP_PAGES"]

_log = logging.getLogger(__name__)

#: The writer connection's own ``wal_autocheckpoint`` (pages of 4 KiB: 256 MiB of log), in
#: case this thread falls behind.
BACKSTOP_PAGES = 65536


class Checkpointer:
    """The thread (``ek-otel-checkpoint``) that checkpoints the store's WAL.

    Args:
        path: The store file.
        period_s: The least time between two checkpoints (the log gathers what is committed
            in between: about as much as SQLite's default of 1000 pages under load).
        synchronous: The store's ``synchronous`` level (with FULL a checkpoint syncs the
            database file).
    """

    def __init__(self, path: str, *, period_s: float = 0.5, synchronous: str = "FULL"):
        self.path = path
        self.period_s = period_s
        self.synchronous = synchronous
        self.checkpoints = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> None:
        """Start the thread."""
        self._thread = threading.Thread(target=self._run, name="ek-otel-checkpoint", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """The writer committed (called from the writer thread after each commit)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Checkpoint what was committed since the last checkpoint, then stop (safe twice)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(timeout)
        self._thread = None

    def _run(self) -> None:
        conn: Optional[sqlite3.Connection] = None
        try:
            while True:
                stopping = self._stop.wait(self.period_s)
                if self._wake.is_set():
                    self._wake.clear()
                    try:
                        if conn is None:
                            conn = connect(self.path, synchronous=self.synchronous)
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                        self.checkpoints += 1
                    except sqlite3.Error as exc:  # the writer's backstop takes over
                        _log.warning("WAL checkpoint failed: %s", exc)
                if stopping:
                    return
        finally:
            if conn is not None:
                conn.close()
