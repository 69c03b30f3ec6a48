"""A private temporary SQLite database: where a long run keeps what would otherwise grow in
memory with its input (:mod:`ek_otel.scoring.spool`, :mod:`ek_otel.ingest.closed_traces`).

``sqlite3.connect("")`` makes a file in SQLite's temporary directory (``$SQLITE_TMPDIR``,
else ``$TMPDIR``, else ``/var/tmp`` or ``/tmp``) that SQLite deletes when the connection is
closed; this closes it when its owner is garbage-collected too. Nothing outside the process
writes it. sqlite3 is imported only when a database is made.

Example:
    >>> class Owner: pass
    >>> owner = Owner()
    >>> conn = temporary_database(owner)
    >>> conn.execute("CREATE TABLE t (x)").fetchall(), conn.execute("SELECT 1").fetchone()
    ([], (1,))
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["temporary_database"]


def temporary_database(owner: Any, *, cache_kib: int = 2048) -> Any:
    """A new private temporary database (autocommit off: the caller's writes go in one
    transaction, never journaled or synced), closed when ``owner`` is garbage-collected."""
    import sqlite3

    conn = sqlite3.connect("", check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
    weakref.finalize(owner, conn.close)
    return conn
