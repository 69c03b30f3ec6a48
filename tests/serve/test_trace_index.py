"""When traces are due, and the memory caps."""

from __future__ import annotations

import pytest

from ek_otel.errors import Overloaded
from ek_otel.serve.trace_index import TraceIndex
from ek_otel.serve.store import OpenTraceRow


def index(**kw):
    params = dict(grace_s=2.0, max_wait_s=10.0, max_open_traces=3, max_pending_bytes=1000)
    params.update(kw)
    return TraceIndex(**params)


def test_root_and_grace():
    idx = index()
    idx.observe("a", 10, has_root=False, now=0.0)
    assert idx.due(5.0) == []                         # no root yet
    idx.observe("a", 10, has_root=True, now=5.0)
    assert idx.due(6.9) == [] and idx.due(7.1) == [("a", 0)]
    idx.observe("a", 10, has_root=False, now=7.0)     # a new span restarts the grace
    assert idx.due(8.0) == [] and idx.due(9.1) == [("a", 0)]


def test_max_wait_without_root_and_shutdown_ignores_grace():
    idx = index()
    idx.observe("a", 10, has_root=False, now=0.0)
    idx.observe("b", 10, has_root=True, now=0.0)
    assert idx.due(0.5, ignore_grace=True) == [("b", 0)]
    assert [t for t, _ in idx.due(10.5)] == ["a", "b"]


def test_scoring_lifecycle_and_revisions():
    idx = index()
    idx.observe("a", 100, has_root=True, now=0.0)
    assert idx.start_scoring("a") == 0 and idx.due(100.0) == []
    idx.finish_scoring("a", OpenTraceRow("a", 50.0, 50.0, True, 20, 1))
    assert idx.pending_bytes == 20 and idx.due(53.0) == [("a", 1)]
    idx.start_scoring("a")
    idx.abort_scoring("a")
    assert idx.due(53.0) == [("a", 1)]
    idx.finish_scoring("a")
    assert idx.open_count == 0 and idx.pending_bytes == 0


def test_caps():
    idx = index()
    for t in "abc":
        idx.admit({t: 100})
        idx.observe(t, 100, has_root=False, now=0.0)
    with pytest.raises(Overloaded) as err:
        idx.admit({"d": 1})
    assert err.value.retry_after_s == 1
    idx.admit({"a": 600})                              # an open trace may grow
    with pytest.raises(Overloaded):
        idx.admit({"a": 800})                          # ... up to the byte cap
