"""The live page of `ek-otel serve`: rendered from the store, again only when it changed."""

from __future__ import annotations

import os

import pytest

from ek_otel.errors import InputError
from ek_otel.report.live import LivePage


def test_the_page_is_cached_until_the_store_changes(example_report, tmp_path):
    _, data = example_report
    store = tmp_path / "s.db"
    store.write_bytes(b"x")
    loads = []

    def load(path, gold):
        loads.append(path)
        return data

    live = LivePage(str(store), load=load, refresh_seconds=5)
    first = live.page()
    assert b"ek-otel live report" in first and b'data-seconds="5"' in first
    assert live.page() == first and live.renders == 1
    store.write_bytes(b"xy")  # the server wrote (size and mtime change)
    live.page()
    assert live.renders == 2 and len(loads) == 2
    (tmp_path / "s.db-wal").write_bytes(b"w")  # or committed to the write-ahead log
    live.page()
    assert live.renders == 3


def test_no_store_and_bad_trace_url_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such store yet"):
        LivePage(str(tmp_path / "none.db")).page()
    with pytest.raises(InputError, match="--trace-url"):
        LivePage(str(tmp_path / "s.db"), trace_url="javascript:{trace_id}")
