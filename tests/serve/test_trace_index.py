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


def _due_by_definition(idx, now):
    """What due() must return, computed the slow way (every open trace looked at)."""
    out = sorted((e.first_seen, tid, e.revision) for tid, e in idx._traces.items()
                 if not e.scoring and ((e.has_root and now - e.last_seen >= idx.grace_s)
                                       or now - e.first_seen >= idx.max_wait_s))
    return [(tid, rev) for _, tid, rev in out]


@pytest.mark.parametrize("seed", range(40))
def test_due_matches_its_definition_under_random_traffic(seed):
    """The deadline heaps give what a walk over every open trace gives, in the same order,
    with a clock that sometimes goes back, restores, aborted and finished scorings."""
    import random

    rnd = random.Random(seed)
    idx = index(grace_s=rnd.choice([0.0, 1.0, 2.0]), max_wait_s=rnd.choice([3.0, 10.0]),
                max_open_traces=10**6, max_pending_bytes=10**9)
    now, scoring = 0.0, set()
    for _ in range(300):
        now += rnd.choice([0.0, 0.1, 0.5, 1.0, -0.3])
        op, tid = rnd.random(), f"t{rnd.randrange(25)}"
        if op < 0.4:
            idx.observe(tid, 5, has_root=rnd.random() < 0.3, now=now)
        elif op < 0.55 and (due := idx.due(now)):
            t = rnd.choice(due)[0]
            idx.start_scoring(t)
            scoring.add(t)
        elif op < 0.7 and scoring:
            t = rnd.choice(sorted(scoring))
            scoring.discard(t)
            if op < 0.6:
                idx.abort_scoring(t)
            else:
                reopened = OpenTraceRow(t, now - 1, now, rnd.random() < 0.5, 5, 1) \
                    if rnd.random() < 0.3 else None
                idx.finish_scoring(t, reopened)
        limit = rnd.choice([None, 1, 3])
        assert idx.due(now, limit=limit) == _due_by_definition(idx, now)[:limit]
