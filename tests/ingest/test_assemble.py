"""Streaming grouping of spans and logs by trace id."""

from __future__ import annotations

import dataclasses

import pytest

from ek_otel.ingest.assemble import TraceGroup, group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.records import LogRecord, SpanRecord


def _trace_id(n: int) -> str:
    return f"{n + 1:032x}"


def _span_id(n: int) -> str:
    return f"{n + 1:016x}"


def _trace(n: int, size: int = 3) -> list:
    """One trace: a root and ``size - 1`` children, the root last (as the SDK exports it)."""
    trace_id = _trace_id(n)
    root = SpanRecord(trace_id, _span_id(n * 100), name=f"root {n}")
    children = [SpanRecord(trace_id, _span_id(n * 100 + k), root.span_id, name=f"child {k}")
                for k in range(1, size)]
    return children + [root]


class _Tap:
    """Wraps an iterable and counts how many items were pulled from it."""

    def __init__(self, items):
        self.items = items
        self.pulled = 0

    def __iter__(self):
        for item in self.items:
            self.pulled += 1
            yield item


def test_sdk_dump_spread_over_lines_groups_back_into_traces(tmp_path, telemetry):
    lines = [telemetry.traces_json([s]) for s in telemetry.spans] + [telemetry.logs_json([r]) for r in telemetry.logs]
    (tmp_path / "dump.jsonl").write_text("\n".join(lines))
    groups = list(group_traces(read_dump([str(tmp_path)], report=BadInputReport())))
    by_trace = {g.trace_id: g for g in groups}
    assert set(by_trace) == telemetry.trace_ids() | {""}
    for trace_id in telemetry.trace_ids():
        group = by_trace[trace_id]
        assert len(group.spans) == 3 and len(group.logs) == 1 and not group.late
        assert group.root is not None and group.root.name == "invoke_agent weather"
        assert {s.trace_id for s in group.spans} == {trace_id}
    assert [r.event_name for r in by_trace[""].logs] == ["ek.test.orphan"] * 3


def test_traces_are_yielded_soon_after_they_close_so_memory_stays_bounded():
    records = [r for n in range(2000) for r in _trace(n)]
    position = {id(r): i + 1 for i, r in enumerate(records)}
    tap = _Tap(records)
    close_after = 5
    lags = []
    for group in group_traces(tap, close_after=close_after):
        lags.append(tap.pulled - max(position[id(s)] for s in group.spans))
    assert len(lags) == 2000
    assert max(lags) <= close_after


def test_interleaved_traces_are_kept_apart_in_input_order():
    a, b = _trace(1, 4), _trace(2, 4)
    interleaved = [r for pair in zip(a, b) for r in pair]
    groups = list(group_traces(interleaved, close_after=100))
    assert [g.trace_id for g in groups] == [_trace_id(1), _trace_id(2)]
    assert list(groups[0].spans) == a and list(groups[1].spans) == b


def test_duplicate_spans_are_dropped_while_open_and_just_after_closing():
    trace = _trace(1)
    retried = trace + trace[:1] + [_trace(2)[0]] * 10 + trace
    groups = list(group_traces(retried, close_after=2))
    assert [(g.trace_id, len(g.spans), g.late) for g in groups] == [(_trace_id(1), 3, False),
                                                                     (_trace_id(2), 1, False)]


def test_spans_for_a_closed_trace_come_as_a_late_group():
    trace = _trace(1)
    late_span = SpanRecord(_trace_id(1), _span_id(999), trace[-1].span_id, name="late")
    filler = _trace(2)
    groups = list(group_traces(trace + filler + [late_span], close_after=1))
    assert [(g.trace_id, [s.name for s in g.spans], g.late) for g in groups] == [
        (_trace_id(1), ["child 1", "child 2", "root 1"], False),
        (_trace_id(2), ["child 1", "child 2", "root 2"], False),
        (_trace_id(1), ["late"], True),
    ]


def test_close_after_none_waits_for_the_end_of_input():
    trace = _trace(1)
    late_span = SpanRecord(_trace_id(1), _span_id(999), trace[-1].span_id)
    stream = trace + [r for n in range(2, 50) for r in _trace(n)] + [late_span]
    groups = list(group_traces(stream, close_after=None))
    assert len(groups) == 49 and not any(g.late for g in groups)
    assert len(groups[0].spans) == 4


def test_a_trace_whose_root_never_comes_is_closed_by_the_backstop():
    orphan_children = _trace(1)[:-1]
    rest = [r for n in range(2, 40) for r in _trace(n)]
    tap = _Tap(orphan_children + rest)
    for group in group_traces(tap, close_after=5, max_idle=30):
        if group.trace_id == _trace_id(1):
            break
    assert len(group.spans) == 2 and all(s.parent_span_id for s in group.spans)
    assert group.root == group.spans[0]  # its parent is missing: a root for assembly
    assert tap.pulled == len(orphan_children) + 30 < len(orphan_children) + len(rest)


def test_logs_join_their_trace_and_trace_less_logs_form_their_own_groups():
    trace = _trace(1)
    log = LogRecord(trace_id=_trace_id(1), span_id=trace[0].span_id, event_name="gen_ai.choice")
    orphans = [LogRecord(event_name=f"orphan {i}") for i in range(5)]
    groups = list(group_traces([log] + orphans + trace, close_after=2))
    orphan_groups = [g for g in groups if g.trace_id == ""]
    assert sum(len(g.logs) for g in orphan_groups) == 5
    assert all(len(g.logs) <= 2 for g in orphan_groups)
    (traced,) = [g for g in groups if g.trace_id]
    assert traced.logs == (log,) and len(traced.spans) == 3


def test_negative_close_after_is_refused():
    with pytest.raises(ValueError):
        list(group_traces([], close_after=-1))


def test_trace_group_is_frozen():
    group = TraceGroup(_trace_id(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        group.late = True  # type: ignore[misc]


def test_gc_thresholds_are_relaxed_while_grouping_and_restored_after():
    import gc

    from ek_otel.ingest.assemble import GC_THRESHOLDS

    before = gc.get_threshold()
    seen = []
    for _ in group_traces(_trace(1) + _trace(2), close_after=1):
        seen.append(gc.get_threshold())
    assert seen and all(t == GC_THRESHOLDS for t in seen)
    assert gc.get_threshold() == before
    groups = group_traces(_trace(1) + _trace(2), close_after=1)
    next(groups)
    groups.close()  # abandoned half way
    assert gc.get_threshold() == before
    assert [gc.get_threshold() for _ in group_traces(_trace(1), tune_gc=False)] == [before]


def test_a_late_record_is_known_as_late_long_after_its_trace_left_memory(monkeypatch):
    from ek_otel.ingest import assemble

    # the rest go to the temporary file (set where group_traces reads it)
    monkeypatch.setitem(assemble.group_traces.__globals__, "CLOSED_TRACE_IDS", 3)
    traces = [f"{i + 1:032x}" for i in range(5000)]
    records = [SpanRecord(t, f"{i + 1:016x}") for i, t in enumerate(traces)]
    records.append(SpanRecord(traces[0], "f" * 16, f"{1:016x}"))  # late, 5000 traces later
    groups = list(assemble.group_traces(records, close_after=0))
    assert [g.late for g in groups[:-1]] == [False] * 5000
    assert groups[-1].trace_id == traces[0] and groups[-1].late


def test_closed_traces_forget_nothing():
    from ek_otel.ingest.closed_traces import ClosedTraces

    closed = ClosedTraces(in_memory=10)
    ids = [f"{i:032x}" for i in range(1, 9000)] + ["not-hex-" * 4, "short", "é" * 8]
    for trace_id in ids:
        closed.add(trace_id)
    assert all(trace_id in closed for trace_id in ids)
    assert f"{9001:032x}" not in closed and "other" not in closed and 5 not in closed
    assert len(closed) == len(ids)
    closed.close()
    assert ids[0] not in closed
