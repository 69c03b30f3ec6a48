"""The store: dedup, revisions, the outbox, and what a crash leaves."""

from __future__ import annotations

import sqlite3

import pytest

from ek_otel.serve.store import STORE_FORMAT, IncomingChunk, NewerStore, Store

T = "ab" * 16


def chunk(spans, root=False, payload=None, trace=T):
    return IncomingChunk("traces", trace, payload or ("|".join(spans)).encode(), tuple(spans), root)


def test_dedup_by_trace_and_span_id(tmp_path):
    s = Store(str(tmp_path / "s.db"))
    assert s.ingest([chunk(["01" * 8, "02" * 8], root=True)], now=1.0) == [(len(b"|".join([b"01" * 8, b"02" * 8])), 0, True)]
    # The same spans in another batch shape: nothing new.
    assert s.ingest([chunk(["02" * 8], payload=b"other")], now=2.0)[0][0] == 0
    # One new span among known ones: the payload is kept (decoding dedups the old span).
    assert s.ingest([chunk(["02" * 8, "03" * 8], payload=b"new")], now=3.0)[0][0] == 3
    assert s.counts()["spans"] == 3 and s.counts()["payloads"] == 2
    # The same span id in another trace is another span.
    assert s.ingest([chunk(["01" * 8], trace="cd" * 16)], now=4.0)[0][0] > 0


def test_logs_dedup_by_digest():
    s = Store(":memory:")
    log = IncomingChunk("logs", T, b"event-bytes")
    assert s.ingest([log])[0][0] == 11 and s.ingest([log])[0][0] == 0


def test_revisions_are_recorded_once_and_late_payloads_stay_open():
    s = Store(":memory:")
    s.ingest([chunk(["01" * 8], root=True)], now=1.0)
    upto = s.max_payload_id(T)
    s.ingest([chunk(["02" * 8], payload=b"late")], now=2.0)      # arrives while scoring
    recorded, still_open = s.record_score(T, 0, upto, task_id="t", matched=True, success=True,
                                          envelope="{}", sinks=("file", "otlp"))
    assert recorded and still_open is not None and still_open.revisions == 1
    assert still_open.pending_bytes == 4 and still_open.first_seen == 2.0
    # A stale or repeated scoring of revision 0 changes nothing.
    assert s.record_score(T, 0, upto, task_id="t", matched=True, success=True,
                          envelope="{}", sinks=("file",))[0] is False
    recorded, still_open = s.record_score(T, 1, s.max_payload_id(T), task_id="t", matched=True,
                                          success=False, envelope="{}", sinks=("file", "otlp"))
    assert recorded and still_open is None
    assert [(r.revision, r.success) for r in s.latest_scores()] == [(1, False)]
    assert s.revision_count() == 1
    assert len(s.pending_exports("file")) == 2 and len(s.pending_exports("otlp")) == 2
    assert s.scored_payloads(T, 0) == [("traces", ("01" * 8).encode())]


def test_unmatched_has_no_outbox_row():
    s = Store(":memory:")
    s.ingest([chunk(["01" * 8], root=True)])
    s.record_score(T, 0, s.max_payload_id(T), task_id=None, matched=False, success=None,
                   envelope=None, detail="no task id", sinks=("file",))
    assert s.pending_exports("file") == [] and s.counts()["unmatched"] == 1


def test_outbox_marks_and_interrupted_writes():
    s = Store(":memory:")
    s.ingest([chunk(["01" * 8], root=True)])
    s.record_score(T, 0, 1, task_id="t", matched=True, success=True, envelope="{}", sinks=("file",))
    (row,) = s.pending_exports("file")
    s.mark_sending([row.id], 123)
    assert s.interrupted_write("file") == 123
    s.mark_exported([row.id])
    assert s.interrupted_write("file") is None and s.pending_exports("file") == []


def test_uncommitted_work_is_not_visible_after_a_crash(tmp_path):
    path = str(tmp_path / "s.db")
    s = Store(path)
    s.begin()
    s.ingest([chunk(["01" * 8], root=True)])
    # The process dies here: the connection goes away without COMMIT.
    s.conn.close()
    again = Store(path)
    assert again.counts()["spans"] == 0
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_payloads_are_stored_packed_and_read_back_as_split(tmp_path):
    """The receiver hands payloads packed (zstd) with the digest of the raw bytes; readers get
    the raw bytes back, and uncompressed payloads of older stores are read as they are."""
    from ek_otel.serve.payload import pack_payload, payload_digest

    path = str(tmp_path / "s.db")
    s = Store(path)
    raw = b"\x0a" + b"gen_ai.tool.call.arguments" * 200
    log = b"\x0a" + b"event" * 100

    def packed(signal, data, spans=()):
        return IncomingChunk(signal, T, pack_payload(data), spans, bool(spans), payload_digest(data))

    assert s.ingest([packed("traces", raw, ("01" * 8,)), packed("logs", log)], now=1.0)[0][0] < 200
    s.ingest([IncomingChunk("traces", T, b"\x0aold", ("02" * 8,))], now=2.0)  # an older store's
    assert s.ingest([packed("logs", log)], now=3.0) == [(0, 0, False)]       # deduplicated
    assert s.payloads_for(T, 10**9) == [("traces", raw), ("logs", log), ("traces", b"\x0aold")]
    sizes = [r[0] for r in sqlite3.connect(path).execute("SELECT LENGTH(data) FROM payloads")]
    assert sizes[0] < len(raw) / 10 and sizes[2] == 4
    # What is pending is counted in stored bytes, and a scoring takes it all back.
    (row,) = s.open_traces()
    assert row.pending_bytes == sum(sizes)
    s.record_score(T, 0, s.max_payload_id(T), task_id="t", matched=True, success=True,
                   envelope="{}")
    assert s.open_traces() == [] and s.counts()["open"] == 0


#: The outbox table of the ek-otel before prepared scores (and of the first release: no
#: first_failed, no given_up).
_OLD_OUTBOX = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE outbox(
    id INTEGER PRIMARY KEY, sink TEXT NOT NULL, trace_id TEXT NOT NULL,
    revision INTEGER NOT NULL, envelope TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    sending INTEGER, exported REAL, UNIQUE(sink, trace_id, revision));
INSERT INTO outbox(sink, trace_id, revision, envelope) VALUES('file', 'ab', 0, '{"old": 1}');
"""


def test_an_older_store_opens_and_its_outbox_rows_keep_their_envelopes(tmp_path):
    path = str(tmp_path / "old.db")
    conn = sqlite3.connect(path)
    conn.executescript(_OLD_OUTBOX)
    conn.close()
    s = Store(path)
    (row,) = s.pending_exports("file")
    assert row.prepared is None and s.envelope_of(row) == '{"old": 1}'
    assert {"prepared", "first_failed", "given_up"} <= {
        r[1] for r in s.conn.execute("PRAGMA table_info(outbox)")}
    assert s.conn.execute("PRAGMA user_version").fetchone()[0] == STORE_FORMAT
    s.close()


def test_a_store_of_a_newer_format_is_refused_for_writing_and_reading(tmp_path):
    """Its outbox rows may be what this ek-otel cannot send: refused, never half-read."""
    path = str(tmp_path / "newer.db")
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={STORE_FORMAT + 1}")
    conn.close()
    for readonly in (False, True):
        with pytest.raises(NewerStore, match=f"store format {STORE_FORMAT + 1}; this one reads up to"):
            Store(path, readonly=readonly)


def test_a_prepared_outbox_row_reads_its_envelope_from_the_score_row():
    s = Store(":memory:")
    s.ingest([IncomingChunk("traces", T, b"p", ("01" * 8,), True)], now=1.0)
    s.record_score(T, 0, s.max_payload_id(T), task_id="t", matched=True, success=True,
                   envelope='{"e": 1}', sinks=("file", "phoenix"),
                   prepared={"file": b"bytes"})
    rows = {r[0]: r[1:] for r in s.conn.execute("SELECT sink, envelope, prepared FROM outbox")}
    assert rows == {"file": ("", b"bytes"), "phoenix": ('{"e": 1}', None)}
    (file_row,) = s.pending_exports("file")
    assert file_row.prepared == b"bytes" and s.envelope_of(file_row) == '{"e": 1}'
