"""Group commit: many operations per transaction, failures isolated, order of after-hooks."""

from __future__ import annotations

import threading

import pytest

from ek_otel.serve.groupcommit import GroupCommitWriter, WriterClosed
from ek_otel.serve.store import IncomingChunk, Store


def test_concurrent_submissions_share_commits(tmp_path):
    path = str(tmp_path / "s.db")
    w = GroupCommitWriter(lambda: Store(path))
    w.start()
    order: list = []
    futures = []
    lock = threading.Lock()

    def submit(i):
        c = IncomingChunk("traces", f"{i:032x}", b"x" * 10, (f"{i:016x}",), True)
        f = w.submit(lambda s: s.ingest([c]), after=lambda r, i=i: order.append(i))
        with lock:
            futures.append(f)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(f.result(30)[0][0] == 10 for f in futures)
    assert w.operations == 200 and w.commits < 200   # grouped
    assert sorted(order) == list(range(200))
    w.stop()
    assert Store(path).counts()["spans"] == 200


def test_a_failing_operation_fails_alone():
    w = GroupCommitWriter(lambda: Store(":memory:"))
    w.start()
    ok = w.submit(lambda s: s.ingest([IncomingChunk("traces", "a" * 32, b"x", ("b" * 16,))]))

    def boom(store):
        store.conn.execute("INSERT INTO meta(key, value) VALUES('k', 'v')")
        raise RuntimeError("bad op")

    bad = w.submit(boom)
    assert ok.result(10)[0][0] == 1
    with pytest.raises(RuntimeError):
        bad.result(10)
    assert w.call(lambda s: s.meta("k")) is None        # its write was rolled back
    w.stop()
    with pytest.raises(WriterClosed):
        w.submit(lambda s: None).result(5)
