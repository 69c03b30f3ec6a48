"""The pipeline: dumps scored, written back and read back with our own reader, late spans
as revisions (the scoring layer itself: tests/scoring/)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from ek_otel.emit.attributes import score_value
from ek_otel.core.episode import TaskSpec
from ek_otel.emit.sinks import FileSink
from ek_otel.errors import InputError
from ek_otel.gold.native import load_tasks
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.records import LogRecord, SpanRecord
from ek_otel.pipeline import read_episodes, score_dump
from ek_otel.scoring import LATE_EVICTED, UNKNOWN_TASK, ScoreSettings, file_sha256

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "examples" / "tasks.jsonl"
TRACES = ROOT / "examples" / "traces.jsonl"
TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT_SPAN = "b7ad6b7169203331"


def _tasks() -> dict:
    return {t.task_id: t for t in load_tasks(GOLD)}


class ListSink:
    def __init__(self):
        self.batches = []

    def send(self, envelopes):
        self.batches.append(list(envelopes))
        return True

    def close(self):
        pass


TASKS = {"t": TaskSpec("t", gold=[("search", {"q": "cats"})])}


# ---------------------------------------------------------------------------
# The bundled example: scored, written back, read back
# ---------------------------------------------------------------------------


def _example_runs():
    spec = importlib.util.spec_from_file_location("make_example_traces",
                                                  ROOT / "scripts" / "make_example_traces.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up while executing
    spec.loader.exec_module(module)
    return module


def _span_facts(path):
    """What the dump says, independent of the SDK version that wrote it."""
    return [
        (s.trace_id, s.span_id, s.parent_span_id, s.name, s.kind, s.start_ns, s.end_ns,
         json.dumps(dict(s.attributes), sort_keys=True), s.resource.get("service.name"))
        for s in read_dump([str(path)], report=BadInputReport())
    ]


def test_bundled_example_dump_is_what_the_script_makes(tmp_path):
    module = _example_runs()
    out = tmp_path / "traces.jsonl"
    module.make_dump(out)
    assert _span_facts(out) == _span_facts(TRACES)


def test_bundled_example_scores_as_its_runs_were_made():
    module = _example_runs()
    tasks = _tasks()
    report = BadInputReport()
    run = score_dump([str(TRACES)], tasks, ScoreSettings(), report=report)
    assert report.ok, report.summary()
    expected = Counter((r.task_id, r.right) for r in module.RUNS if r.task_id in tasks)
    got = Counter((e.task_id, e.score.success) for e in run.envelopes)
    assert got == expected
    assert [(u.task_id, u.reason) for u in run.unmatched] == [
        (r.task_id, UNKNOWN_TASK) for r in module.RUNS if r.task_id not in tasks]


def test_scores_written_back_land_on_the_root_spans_of_the_scored_traces(tmp_path):
    out = tmp_path / "scores.jsonl"
    sink = FileSink(str(out))
    settings = ScoreSettings(gold_sha256=file_sha256(GOLD))
    run = score_dump([str(TRACES)], _tasks(), settings, report=BadInputReport(), sink=sink)
    sink.close()
    assert run.emit_ok and run.emitted == len(run.envelopes)

    source = list(read_dump([str(TRACES)], report=BadInputReport()))
    roots = {s.trace_id: s for s in source if isinstance(s, SpanRecord) and not s.parent_span_id}
    back = list(read_dump([str(out)], report=BadInputReport()))
    spans = [r for r in back if isinstance(r, SpanRecord)]
    events = [r for r in back if isinstance(r, LogRecord)]
    assert len(spans) == len(events) == len(run.envelopes)
    by_trace = {e.trace_id: e for e in run.envelopes}
    for span in spans:
        assert span.parent_span_id == roots[span.trace_id].span_id
        assert span.attributes["ek.task.id"] == roots[span.trace_id].attributes["ek.task.id"]
        assert span.attributes["ek.gold.sha256"] == file_sha256(GOLD)
        assert span.attributes["gen_ai.evaluation.score.value"] == score_value(by_trace[span.trace_id].score)
        assert span.resource["service.name"] == "ek-otel"
        assert span.attributes["ek.evaluated.service.name"] == roots[span.trace_id].resource["service.name"]
    for event in events:
        assert event.event_name == "gen_ai.evaluation.result"
        assert event.span_id == roots[event.trace_id].span_id
        label = "pass" if by_trace[event.trace_id].score.success else "fail"
        assert event.attributes["gen_ai.evaluation.score.label"] == label


def test_our_own_output_is_not_scored_again(tmp_path):
    """A dump holding the agent's spans and ek-otel's scores scores the same as without."""
    out = tmp_path / "scores.jsonl"
    sink = FileSink(str(out))
    first = score_dump([str(TRACES)], _tasks(), ScoreSettings(), report=BadInputReport(), sink=sink)
    sink.close()
    # close_after=2: the scores arrive long after their traces were closed (late records)
    both = score_dump([str(TRACES), str(out)], _tasks(), ScoreSettings(), report=BadInputReport(),
                      close_after=2)
    assert both.revisions == 0 and not both.unmatched[1:]
    assert sorted((e.trace_id, e.score.f1) for e in both.envelopes) == sorted(
        (e.trace_id, e.score.f1) for e in first.envelopes)


def test_a_missing_path_fails_before_anything_is_emitted(tmp_path):
    sink = ListSink()
    with pytest.raises(InputError):
        score_dump([str(TRACES), str(tmp_path / "nope.jsonl")], _tasks(), ScoreSettings(),
                   report=BadInputReport(), sink=sink)
    assert sink.batches == []


# ---------------------------------------------------------------------------
# Late spans: revisions
# ---------------------------------------------------------------------------


def _span_line(trace, span, parent, name, attrs):
    attributes = [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]
    record = {"traceId": trace, "spanId": span, "name": name, "attributes": attributes,
              "startTimeUnixNano": "1000", "endTimeUnixNano": "2000"}
    if parent:
        record["parentSpanId"] = parent
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent"}}]},
        "scopeSpans": [{"spans": [record]}]}]})


def _tool(trace, span, parent, tool, args):
    return _span_line(trace, span, parent, f"execute_tool {tool}", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
        "gen_ai.tool.call.arguments": json.dumps(args)})


def _late_dump(path: Path) -> None:
    late_trace = "a" * 32
    lines = [
        _span_line(late_trace, "1" * 16, "", "invoke_agent a", {"ek.task.id": "t",
                                                                 "gen_ai.operation.name": "invoke_agent"}),
        _tool(late_trace, "2" * 16, "1" * 16, "search", {"q": "dogs"}),
    ]
    for i in range(6):  # other traces go by: the first trace is closed
        lines.append(_span_line(f"{i + 1:032x}", f"{i + 1:016x}", "", "invoke_agent b",
                                {"ek.task.id": "t"}))
    lines.append(_tool(late_trace, "3" * 16, "1" * 16, "search", {"q": "cats"}))  # late
    path.write_text("\n".join(lines) + "\n")


def test_late_spans_rescore_the_episode_and_emit_a_revision(tmp_path):
    dump = tmp_path / "dump.jsonl"
    _late_dump(dump)
    out = tmp_path / "scores.jsonl"
    sink = FileSink(str(out))
    run = score_dump([str(dump)], TASKS, ScoreSettings(), report=BadInputReport(), sink=sink,
                     close_after=2)
    sink.close()
    assert run.revisions == 1
    latest = {e.trace_id: e for e in run.envelopes}
    assert latest["a" * 32].revision == 1
    assert latest["a" * 32].score.tp == 1.0 and latest["a" * 32].score.fp == 1.0  # both calls seen
    assert run.report.n_episodes == 7            # the revision replaced the first score
    spans = [r for r in read_dump([str(out)], report=BadInputReport()) if isinstance(r, SpanRecord)]
    revisions = sorted(s.attributes["ek.revision"] for s in spans if s.trace_id == "a" * 32)
    assert revisions == [0, 1]
    assert len({s.span_id for s in spans if s.trace_id == "a" * 32}) == 2
    assert all(s.parent_span_id == "1" * 16 for s in spans if s.trace_id == "a" * 32)


def test_late_spans_of_a_forgotten_trace_are_listed_not_half_scored(tmp_path):
    dump = tmp_path / "dump.jsonl"
    _late_dump(dump)
    run = score_dump([str(dump)], TASKS, ScoreSettings(), report=BadInputReport(), close_after=2,
                     keep_closed=0)
    assert run.revisions == 0
    assert [(u.trace_id, u.reason) for u in run.unmatched] == [("a" * 32, LATE_EVICTED)]
    assert {e.trace_id: e for e in run.envelopes}["a" * 32].score.fp == 1.0  # the first score stays


# ---------------------------------------------------------------------------
# read_episodes: what `score` and `episodes` both read
# ---------------------------------------------------------------------------


def test_read_episodes_rebuilds_a_trace_from_its_late_spans(tmp_path):
    dump = tmp_path / "dump.jsonl"
    _late_dump(dump)
    episodes = list(read_episodes([str(dump)], report=BadInputReport(), close_after=2))
    of_late_trace = [e for e in episodes if e.provenance.trace_id == "a" * 32]
    assert [len(e.trajectory) for e in of_late_trace] == [1, 2]  # the rebuilt one has both calls
    assert of_late_trace[-1].meta.get("late") is True
    assert of_late_trace[-1].task_id == "t"


def test_read_episodes_lists_late_spans_of_a_forgotten_trace(tmp_path):
    dump = tmp_path / "dump.jsonl"
    _late_dump(dump)
    evicted: list = []
    episodes = list(read_episodes([str(dump)], report=BadInputReport(), close_after=2,
                                  keep_closed=0, evicted=evicted))
    assert [(u.trace_id, u.reason) for u in evicted] == [("a" * 32, LATE_EVICTED)]
    assert [len(e.trajectory) for e in episodes if e.provenance.trace_id == "a" * 32] == [1]


def test_read_episodes_skips_our_own_scores(tmp_path):
    out = tmp_path / "scores.jsonl"
    sink = FileSink(str(out))
    score_dump([str(TRACES)], _tasks(), ScoreSettings(), report=BadInputReport(), sink=sink)
    sink.close()
    ours: list = []
    assert list(read_episodes([str(out)], report=BadInputReport(), on_own_output=ours.append)) == []
    assert len(ours) == 18  # an evaluation span and an event per scored episode
    alone = list(read_episodes([str(TRACES)], report=BadInputReport()))
    both = list(read_episodes([str(TRACES), str(out)], report=BadInputReport()))
    assert [e.provenance.span_count for e in both] == [e.provenance.span_count for e in alone]
    assert [e.calls for e in both] == [e.calls for e in alone]


def test_read_episodes_checks_paths_before_reading():
    with pytest.raises(InputError, match="nope.jsonl"):
        read_episodes(["/no/where/nope.jsonl"], report=BadInputReport())
