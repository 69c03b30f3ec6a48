"""The SQLite store of ``ek-otel serve``: raw span payloads, trace states, scores, the outbox.

Why SQLite in WAL mode: readers (the scorer, the outbox, ``ek-otel report``) never block the
single writer, and a commit is one append to the WAL. ``synchronous=FULL`` by default: an
acknowledged request survives a power loss, not only a ``kill -9`` (NORMAL already survives a
process crash in WAL mode, and is a config option). The fsync is paid once per *group* of
concurrent requests (:mod:`ek_otel.serve.groupcommit`), not once per request.

State machine of a trace (the ``traces`` table):

- ``open``: it has payloads not yet scored (ids above the highest ``scores.upto`` of the
  trace);
- ``scored`` / ``unmatched``: every payload is in a committed revision.

Scoring commits, in ONE transaction, the score row ``(trace_id, revision)`` (its ``upto``
says which payloads it covered: every one with ``id <= upto``), its outbox row and the trace's
revision counter and pending bytes, so a crash either loses the whole scoring (it is redone
after restart) or none of it: each revision is scored exactly once. Payload rows are never
rewritten: ``payloads.revision``, which older stores set, is no longer read or written.
Payloads are deduplicated by ``(trace_id, span_id)`` (a chunk with no new span is dropped)
and, for logs, by a digest of the payload.

Payloads are stored zstd-compressed (:func:`~ek_otel.serve.payload.pack_payload`, about 4x smaller for GenAI spans:
the WAL writes, the checkpoints and the fsync of each group commit shrink with them);
:meth:`Store.payloads_for` hands them back as the protobuf the receiver split, and reads the
uncompressed payloads of older stores as they are.

Example:
    >>> s = Store(":memory:")
    >>> chunk = IncomingChunk("traces", "ab" * 16, b"raw", ("01" * 8,), True)
    >>> s.ingest([chunk], now=10.0)               # (bytes stored, next revision, has root)
    [(3, 0, True)]
    >>> s.ingest([chunk], now=11.0)               # the same spans again: nothing new
    [(0, 0, False)]
    >>> [(t.trace_id[:4], t.has_root, t.pending_bytes) for t in s.open_traces()]
    [('abab', True, 3)]
    >>> s.payloads_for("ab" * 16, upto=10**9)
    [('traces', b'raw')]
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from ..errors import ConfigError
from .outbox_rows import OutboxQueries, OutboxRow
from .payload import payload_digest, unpack_payload

__all__ = [
    "SCHEMA",
    "IncomingChunk",
    "OpenTraceRow",
    "ScoreRow",
    "OutboxRow",
    "Store",
    "NotAStore",
    "NewerStore",
    "STORE_FORMAT",
    "connect",
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS traces(
    trace_id TEXT PRIMARY KEY,
    first_seen REAL NOT NULL,        -- arrival of the first payload not yet scored
    last_seen REAL NOT NULL,         -- arrival of the latest payload
    has_root INTEGER NOT NULL DEFAULT 0,
    pending_bytes INTEGER NOT NULL DEFAULT 0,
    revisions INTEGER NOT NULL DEFAULT 0,   -- revisions scored so far; the next is this number
    state TEXT NOT NULL DEFAULT 'open'      -- open | scored | unmatched
);
CREATE INDEX IF NOT EXISTS traces_state ON traces(state);
CREATE TABLE IF NOT EXISTS payloads(
    id INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL,
    signal TEXT NOT NULL,            -- traces | logs ('spans' in stores of ek-otel 0.1.0)
    digest BLOB NOT NULL,
    data BLOB NOT NULL,
    received REAL NOT NULL,
    revision INTEGER,                -- unused (older stores): covered = id <= MAX(scores.upto)
    UNIQUE(trace_id, digest)
);
CREATE INDEX IF NOT EXISTS payloads_trace ON payloads(trace_id, id);
CREATE TABLE IF NOT EXISTS spans(
    trace_id TEXT NOT NULL,
    span_id TEXT NOT NULL,
    PRIMARY KEY(trace_id, span_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scores(
    trace_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    task_id TEXT,
    matched INTEGER NOT NULL,
    success INTEGER,
    upto INTEGER NOT NULL,           -- highest payload id this revision covered
    envelope TEXT,                   -- the ScoreEnvelope JSON (NULL when unmatched)
    detail TEXT,                     -- why unmatched, or why scoring failed
    comparability TEXT,              -- JSON RunProvenance.comparability_key() of the episode
    created REAL NOT NULL,
    PRIMARY KEY(trace_id, revision)
);
CREATE TABLE IF NOT EXISTS outbox(
    id INTEGER PRIMARY KEY,
    sink TEXT NOT NULL,              -- which sink: each one is delivered to independently
    trace_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    envelope TEXT NOT NULL,          -- the ScoreEnvelope JSON ('': the score row's, see prepared)
    attempts INTEGER NOT NULL DEFAULT 0,
    sending INTEGER,                 -- file sinks: the file size before the write began
    exported REAL,                   -- NULL until the sink accepted it, or gave it up
    first_failed REAL,               -- when the first export attempt failed
    given_up TEXT,                   -- why the row was given up (then exported is set too)
    prepared BLOB,                   -- what the sink sends of the score (emit.prepared), packed
    UNIQUE(sink, trace_id, revision)
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(sink, exported, id);
"""


#: A payload's trace: opened, or re-opened, with the payload's bytes pending. Returns the
#: trace's revisions and whether its root arrived, in the same statement where SQLite can.
_UPSERT_TRACE = (
    "INSERT INTO traces(trace_id, first_seen, last_seen, has_root, pending_bytes, state) "
    "VALUES(?, ?, ?, ?, ?, 'open') "
    "ON CONFLICT(trace_id) DO UPDATE SET "
    " first_seen = CASE WHEN state='open' THEN first_seen ELSE excluded.first_seen END,"
    " last_seen = excluded.last_seen,"
    " has_root = MAX(has_root, excluded.has_root),"
    " pending_bytes = pending_bytes + excluded.pending_bytes,"
    " state = 'open'"
    + (" RETURNING revisions, has_root" if sqlite3.sqlite_version_info >= (3, 35) else "")
)


def connect(path: str, *, synchronous: str = "FULL", readonly: bool = False,
            autocheckpoint_pages: Optional[int] = None) -> sqlite3.Connection:
    """Open the store database with WAL and the given ``synchronous`` level.

    The connection is in autocommit mode (``isolation_level=None``): transactions are
    explicit ``BEGIN IMMEDIATE`` / ``COMMIT``. ``autocheckpoint_pages`` sets the log size at
    which its commits checkpoint (SQLite's default, 1000, when None; see
    :mod:`ek_otel.serve.checkpointer`).

    Example:
        >>> connect(":memory:").execute("PRAGMA foreign_keys").fetchone()[0]
        0
    """
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA busy_timeout=30000")
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        if autocheckpoint_pages is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint={int(autocheckpoint_pages)}")
    else:
        conn.execute("PRAGMA query_only=1")
    return conn


class NotAStore(ConfigError):
    """The file is a SQLite database of something else (``ek-otel serve`` refuses it).

    Example:
        >>> import os, sqlite3, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "app.db")
        >>> sqlite3.connect(path).execute("CREATE TABLE users(x)").connection.commit()
        >>> Store(path)
        Traceback (most recent call last):
        ...
        ek_otel.serve.store.NotAStore: ...app.db: not an ek-otel store (it holds other tables: users); choose another store
    """


class NewerStore(ConfigError):
    """The store was written by a newer ek-otel, whose rows this one cannot read.

    A store records its format in SQLite's ``user_version`` (:data:`STORE_FORMAT`); one of a
    higher format is refused, never half-read.

    Example:
        >>> import os, sqlite3, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
        >>> Store(path).close()
        >>> sqlite3.connect(path).execute("PRAGMA user_version=99").connection.close()
        >>> Store(path)
        Traceback (most recent call last):
        ...
        ek_otel.serve.store.NewerStore: ...s.db: written by a newer ek-otel (store format 99; this one reads up to 2); upgrade ek-otel or choose another store
    """


#: The store's format, kept in SQLite's ``user_version``. 0: no stamp (stores before
#: formats were recorded: opened and brought up to date); 2: outbox rows may hold a sink's
#: prepared bytes and no envelope copy (``outbox.prepared``), which an ek-otel of format 0
#: cannot send (it retries them with a warning, and loses nothing).
STORE_FORMAT = 2


@dataclass(frozen=True)
class IncomingChunk:
    """One trace's share of a request, as the receiver hands it to the store.

    ``signal`` is the OTLP signal, ``"traces"`` or ``"logs"``; ``span_ids`` is empty for logs.
    ``payload`` is stored as given: the receiver hands it packed (:func:`~ek_otel.serve.payload.pack_payload`), with
    ``digest``, the :func:`~ek_otel.serve.payload.payload_digest` of the payload before packing (``b""``: the
    digest of ``payload``).
    """

    signal: str
    trace_id: str
    payload: bytes
    span_ids: tuple = ()
    has_root: bool = False
    digest: bytes = b""


@dataclass(frozen=True)
class OpenTraceRow:
    """A trace with payloads not yet scored (what the TraceIndex tracks in memory)."""

    trace_id: str
    first_seen: float
    last_seen: float
    has_root: bool
    pending_bytes: int
    revisions: int


@dataclass(frozen=True)
class ScoreRow:
    """One scored revision of one trace."""

    trace_id: str
    revision: int
    task_id: Optional[str]
    matched: bool
    success: Optional[bool]
    envelope: Optional[str]
    detail: Optional[str]
    comparability: Optional[str] = None


class Store(OutboxQueries):
    """Transactions over the store; every method that writes is one transaction.

    Writes must come from one thread at a time (the group-commit writer's); reads may use
    their own :class:`Store` on the same file.
    """

    def __init__(self, path: str, *, synchronous: str = "FULL", readonly: bool = False,
                 autocheckpoint_pages: Optional[int] = None):
        self.path = path
        self.conn = connect(path, synchronous=synchronous, readonly=readonly,
                            autocheckpoint_pages=autocheckpoint_pages)
        stamped = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if stamped > STORE_FORMAT:
            self.conn.close()
            raise NewerStore(f"written by a newer ek-otel (store format {stamped}; this one reads up "
                             f"to {STORE_FORMAT}); upgrade ek-otel or choose another {{store}}",
                             fields=("store",), path=path)
        if not readonly:
            tables = {r[0] for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "meta" not in tables:
                # Another application's database: never add our tables to it.
                self.conn.close()
                raise NotAStore(f"not an ek-otel store (it holds other tables: "
                                f"{', '.join(sorted(tables)[:5])}); choose another {{store}}",
                                fields=("store",), path=path)
            self.conn.executescript(SCHEMA)
            columns = {r[1] for r in self.conn.execute("PRAGMA table_info(outbox)")}
            for column, kind in (("first_failed", "REAL"), ("given_up", "TEXT"),
                                 ("prepared", "BLOB")):
                if column not in columns:  # a store written by an older ek-otel
                    self.conn.execute(f"ALTER TABLE outbox ADD COLUMN {column} {kind}")
            if stamped != STORE_FORMAT:
                self.conn.execute(f"PRAGMA user_version={STORE_FORMAT}")

    def close(self) -> None:
        """Close the connection (safe to call twice)."""
        try:
            self.conn.close()
        except sqlite3.Error:  # pragma: no cover - closing is best effort
            pass

    # -- transactions -----------------------------------------------------------------

    def begin(self) -> None:
        """Start a write transaction (the group-commit writer batches work inside one)."""
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        """Commit the current transaction."""
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        """Roll back the current transaction, if any."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def _transaction(self, fn, *args, **kwargs):
        if self.conn.in_transaction:  # inside a group commit: the writer commits
            return fn(*args, **kwargs)
        self.begin()
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            self.rollback()
            raise
        self.commit()
        return result

    # -- meta ---------------------------------------------------------------------------

    def set_meta(self, key: str, value: str) -> None:
        """Record a setting (the gold path, the scoring options) for ``ek-otel report``.

        Example:
            >>> s = Store(":memory:"); s.set_meta("gold", "g.jsonl"); s.meta("gold")
            'g.jsonl'
        """
        self._transaction(
            self.conn.execute,
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def meta(self, key: str) -> Optional[str]:
        """A recorded setting, or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    # -- ingest ---------------------------------------------------------------------------

    def ingest(self, chunks: Sequence[IncomingChunk], now: Optional[float] = None) -> list[tuple]:
        """Store the chunks of one request; returns, per chunk, ``(bytes stored, revisions,
        has_root)``: ``revisions`` is the number of revisions the trace already has (the next
        one), ``has_root`` whether its root span was ever stored.

        A span chunk all of whose span ids are already known is dropped (a retried
        delivery); a log chunk whose digest is known is dropped too.
        """
        return self._transaction(self._ingest, chunks, time.time() if now is None else now)

    def _ingest(self, chunks: Sequence[IncomingChunk], now: float) -> list[tuple]:
        stored = []
        conn = self.conn
        cur = conn.cursor()
        for chunk in chunks:
            trace_id = chunk.trace_id
            if chunk.signal == "traces":
                before = conn.total_changes
                cur.executemany(
                    "INSERT OR IGNORE INTO spans(trace_id, span_id) VALUES(?, ?)",
                    [(trace_id, s) for s in chunk.span_ids],
                )
                if conn.total_changes == before:
                    stored.append((0, 0, False))
                    continue
            cur.execute(
                "INSERT OR IGNORE INTO payloads(trace_id, signal, digest, data, received) "
                "VALUES(?, ?, ?, ?, ?)",
                (trace_id, chunk.signal, chunk.digest or payload_digest(chunk.payload),
                 chunk.payload, now),
            )
            if cur.rowcount != 1:
                stored.append((0, 0, False))
                continue
            size = len(chunk.payload)
            row = cur.execute(_UPSERT_TRACE, (trace_id, now, now, int(chunk.has_root), size)).fetchone()
            if row is None:  # SQLite before 3.35: no RETURNING
                row = cur.execute("SELECT revisions, has_root FROM traces WHERE trace_id=?",
                                  (trace_id,)).fetchone()
            stored.append((size, row[0], bool(row[1])))
        return stored

    # -- scoring --------------------------------------------------------------------------

    def open_traces(self) -> list[OpenTraceRow]:
        """Every trace with payloads not yet scored (to rebuild the TraceIndex on start)."""
        rows = self.conn.execute(
            "SELECT trace_id, first_seen, last_seen, has_root, pending_bytes, revisions "
            "FROM traces WHERE state='open' ORDER BY first_seen"
        ).fetchall()
        return [OpenTraceRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows]

    def max_payload_id(self, trace_id: str) -> int:
        """The highest payload id of a trace (0 when none): what a scoring run covers."""
        row = self.conn.execute(
            "SELECT MAX(id) FROM payloads WHERE trace_id=?", (trace_id,)
        ).fetchone()
        return row[0] or 0

    def max_payload_ids(self, trace_ids: Sequence[str]) -> dict:
        """:meth:`max_payload_id` of several traces in one query: trace id → highest payload
        id (traces with no payload are left out).

        Example:
            >>> s = Store(":memory:")
            >>> s.ingest([IncomingChunk("logs", "ab" * 16, b"x")], now=1.0)
            [(1, 0, False)]
            >>> s.max_payload_ids(["ab" * 16, "cd" * 16])
            {'abababababababababababababababab': 1}
        """
        out: dict = {}
        for start in range(0, len(trace_ids), 500):  # within SQLite's bound-parameter limit
            part = trace_ids[start:start + 500]
            out.update(self.conn.execute(
                f"SELECT trace_id, MAX(id) FROM payloads WHERE trace_id IN "
                f"({','.join('?' * len(part))}) GROUP BY trace_id", part).fetchall())
        return out

    def payloads_for(self, trace_id: str, upto: int) -> list[tuple[str, bytes]]:
        """All ``(signal, data)`` payloads of a trace with id ≤ ``upto``, in arrival order.

        ``signal`` is ``"traces"`` or ``"logs"`` (a store of ek-otel 0.1.0 recorded traces as
        ``"spans"``: read as ``"traces"``).
        """
        return [
            (r[0], unpack_payload(r[1]))
            for r in self.conn.execute(
                "SELECT CASE signal WHEN 'spans' THEN 'traces' ELSE signal END, data "
                "FROM payloads WHERE trace_id=? AND id<=? ORDER BY id",
                (trace_id, upto),
            )
        ]

    def record_score(
        self,
        trace_id: str,
        revision: int,
        upto: int,
        *,
        task_id: Optional[str],
        matched: bool,
        success: Optional[bool],
        envelope: Optional[str],
        detail: Optional[str] = None,
        comparability: Optional[str] = None,
        sinks: Sequence[str] = (),
        prepared: Optional[Mapping[str, bytes]] = None,
        now: Optional[float] = None,
    ) -> tuple:
        """Commit one scored revision: score row, outbox row, covered payloads, trace state.

        One outbox row is added per name in ``sinks`` (when the episode matched a task). A
        sink named in ``prepared`` gets those bytes (what it sends of the score,
        :mod:`ek_otel.emit.prepared`) in its row, and no copy of the envelope: the score
        row's is read when needed (:meth:`envelope_of`).
        Returns ``(recorded, open_trace)``: ``open_trace`` is the trace's :class:`OpenTraceRow`
        when it still has payloads not covered (newer than ``upto``: it stays open for the
        next revision), else None. A revision that is not the trace's next one (a scoring
        redone by mistake) is not recorded (``recorded`` False) and changes nothing.
        """
        return self._transaction(
            self._record_score, trace_id, revision, upto, task_id, matched, success,
            envelope, detail, comparability, tuple(sinks), prepared or {},
            time.time() if now is None else now,
        )

    def _record_score(self, trace_id, revision, upto, task_id, matched, success, envelope,
                      detail, comparability, sinks, prepared, now):
        row = self.conn.execute(
            "SELECT revisions FROM traces WHERE trace_id=?", (trace_id,)
        ).fetchone()
        if row is None or row[0] != revision:
            return False, self._open_trace(trace_id)
        self.conn.execute(
            "INSERT INTO scores(trace_id, revision, task_id, matched, success, upto, envelope, "
            "detail, comparability, created) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (trace_id, revision, task_id, int(matched),
             None if success is None else int(success), upto, envelope, detail, comparability,
             now),
        )
        if matched and envelope is not None:
            self.conn.executemany(
                "INSERT INTO outbox(sink, trace_id, revision, envelope, prepared) "
                "VALUES(?, ?, ?, ?, ?)",
                [(sink, trace_id, revision, "" if prepared.get(sink) else envelope,
                  prepared.get(sink)) for sink in sinks],
            )
        # Payload ids grow with arrival, and a revision covers every payload up to its
        # ``upto``: the payloads still pending are those above the highest upto recorded.
        # (No UPDATE of the payload rows: it would rewrite every payload's bytes.)
        before = self.conn.execute(
            "SELECT COALESCE(MAX(upto), 0) FROM scores WHERE trace_id=? AND revision<?",
            (trace_id, revision),
        ).fetchone()[0]
        covered = self.conn.execute(
            "SELECT COALESCE(SUM(LENGTH(data)), 0) FROM payloads "
            "WHERE trace_id=? AND id>? AND id<=?",
            (trace_id, before, upto),
        ).fetchone()[0]
        left = self.conn.execute(
            "SELECT MIN(received), COUNT(*) FROM payloads WHERE trace_id=? AND id>?",
            (trace_id, max(before, upto)),
        ).fetchone()
        state = "open" if left[1] else ("scored" if matched else "unmatched")
        self.conn.execute(
            "UPDATE traces SET revisions=?, pending_bytes=MAX(0, pending_bytes-?), state=?, "
            "first_seen=COALESCE(?, first_seen) WHERE trace_id=?",
            (revision + 1, covered, state, left[0], trace_id),
        )
        return True, (self._open_trace(trace_id) if state == "open" else None)

    def _open_trace(self, trace_id: str) -> Optional[OpenTraceRow]:
        r = self.conn.execute(
            "SELECT trace_id, first_seen, last_seen, has_root, pending_bytes, revisions "
            "FROM traces WHERE trace_id=? AND state='open'", (trace_id,)
        ).fetchone()
        return None if r is None else OpenTraceRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5])

    # -- reading scores ---------------------------------------------------------------------

    def latest_scores(self) -> list[ScoreRow]:
        """The latest revision of every scored trace, each trace once, oldest trace first."""
        rows = self.conn.execute(
            "SELECT s.trace_id, s.revision, s.task_id, s.matched, s.success, s.envelope, s.detail, "
            "s.comparability "
            "FROM scores s JOIN (SELECT trace_id, MAX(revision) AS r FROM scores GROUP BY trace_id) m "
            "ON s.trace_id=m.trace_id AND s.revision=m.r ORDER BY s.created, s.trace_id"
        ).fetchall()
        return [
            ScoreRow(r[0], r[1], r[2], bool(r[3]), None if r[4] is None else bool(r[4]), r[5], r[6],
                     r[7])
            for r in rows
        ]

    def revision_count(self) -> int:
        """How many re-scores (revisions after the first) were recorded.

        Example:
            >>> Store(":memory:").revision_count()
            0
        """
        return self.conn.execute("SELECT COUNT(*) FROM scores WHERE revision > 0").fetchone()[0]

    def scored_payloads(self, trace_id: str, revision: int) -> list[tuple[str, bytes]]:
        """The payloads a recorded revision covered (what that revision's episode was built from)."""
        row = self.conn.execute(
            "SELECT upto FROM scores WHERE trace_id=? AND revision=?", (trace_id, revision)
        ).fetchone()
        return [] if row is None else self.payloads_for(trace_id, row[0])

    def counts(self) -> dict:
        """Row counts by table and state, for tests, logs and the shutdown summary.

        Example:
            >>> Store(":memory:").counts()["open"]
            0
        """
        c = self.conn
        by_state = dict(c.execute("SELECT state, COUNT(*) FROM traces GROUP BY state").fetchall())
        return {
            "traces": sum(by_state.values()),
            "open": by_state.get("open", 0),
            "scored": by_state.get("scored", 0),
            "unmatched": by_state.get("unmatched", 0),
            "spans": c.execute("SELECT COUNT(*) FROM spans").fetchone()[0],
            "payloads": c.execute("SELECT COUNT(*) FROM payloads").fetchone()[0],
            "scores": c.execute("SELECT COUNT(*) FROM scores").fetchone()[0],
            "outbox_pending": c.execute(
                "SELECT COUNT(*) FROM outbox WHERE exported IS NULL").fetchone()[0],
            "exported": c.execute(
                "SELECT COUNT(*) FROM outbox WHERE exported IS NOT NULL AND given_up IS NULL"
            ).fetchone()[0],
            "export_failed": c.execute(
                "SELECT COUNT(*) FROM outbox WHERE given_up IS NOT NULL").fetchone()[0],
        }
