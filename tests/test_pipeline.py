"""The pipeline: linking, scoring, write-back read back with our own reader, and revisions."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from ek_otel import __version__
from ek_otel.core.episode import Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel.emit.envelope import ScoreEnvelope
from ek_otel.emit.sinks import FileSink
from ek_otel.errors import InputError
from ek_otel.gold.native import load_tasks
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.records import LogRecord, SpanRecord
from ek_otel.pipeline import read_episodes, score_dump
from ek_otel.scoring import (
    LATE_EVICTED,
    NO_ROOT_SPAN,
    NO_TASK_ID,
    UNKNOWN_TASK,
    ScoreSettings,
    Unmatched,
    file_sha256,
    score_and_envelope,
    score_episodes,
)

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "examples" / "tasks.jsonl"
TRACES = ROOT / "examples" / "traces.jsonl"
TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT_SPAN = "b7ad6b7169203331"


def _tasks() -> dict:
    return {t.task_id: t for t in load_tasks(GOLD)}


def _episode(task_id="t", calls=(("search", {"q": "cats"}),), trace=TRACE, root=ROOT_SPAN, model="m"):
    return Episode(task_id, Trajectory([Step(n, a) for n, a in calls]),
                   run=RunProvenance(model=model),
                   provenance=Provenance(trace_id=trace, root_span_id=root, service_name="agent"))


TASKS = {"t": TaskSpec("t", gold=[("search", {"q": "cats"})])}


# ---------------------------------------------------------------------------
# One episode
# ---------------------------------------------------------------------------


def test_envelope_carries_ids_provenance_and_the_score():
    settings = ScoreSettings(level="arg", strategy="best_first", gold_sha256="ab" * 32, scored_at_ns=7)
    env = score_and_envelope(_episode(), TASKS, settings, revision=2)
    assert isinstance(env, ScoreEnvelope)
    assert (env.trace_id, env.root_span_id, env.task_id) == (TRACE, ROOT_SPAN, "t")
    assert env.revision == env.score.revision == 2
    assert env.evaluated_service == "agent"
    assert env.scored_at_ns == 7
    assert env.provenance.evaluator_version == __version__
    assert env.provenance.gold_sha256 == "ab" * 32
    assert env.provenance.matcher == {"matcher": "ek", "level": "arg", "strategy": "best_first",
                                      "canonicalizer": "default"}
    assert (env.score.f1, env.score.label, env.score.level) == (1.0, "pass", "arg")


@pytest.mark.parametrize(
    "episode, default, reason",
    [
        (_episode(task_id=""), None, NO_TASK_ID),
        (_episode(task_id="other"), None, UNKNOWN_TASK),
        (_episode(task_id="other"), "t", UNKNOWN_TASK),   # --task only fills in missing ids
        (_episode(root=""), None, NO_ROOT_SPAN),
    ],
)
def test_episodes_that_cannot_be_scored_say_why(episode, default, reason):
    outcome = score_and_envelope(episode, TASKS, ScoreSettings(default_task_id=default))
    assert isinstance(outcome, Unmatched)
    assert outcome.reason == reason
    assert outcome.trace_id == TRACE


def test_an_episode_without_task_id_takes_the_default_task():
    env = score_and_envelope(_episode(task_id="", calls=()), TASKS, ScoreSettings(default_task_id="t"))
    assert env.task_id == "t"
    assert env.score.label == "fail" and env.score.fn == 1.0


def test_unknown_settings_are_refused():
    with pytest.raises(ValueError):
        ScoreSettings(matcher="magic")
    with pytest.raises(ValueError):
        ScoreSettings(group_by="user")


# ---------------------------------------------------------------------------
# Many episodes
# ---------------------------------------------------------------------------


class ListSink:
    def __init__(self, ok=True):
        self.ok = ok
        self.batches = []

    def send(self, envelopes):
        self.batches.append(list(envelopes))
        return self.ok

    def close(self):
        pass


def test_score_episodes_batches_to_the_sink_and_counts_failures():
    episodes = [_episode(trace=f"{i + 1:032x}") for i in range(5)] + [_episode(task_id="zzz")]
    sink = ListSink(ok=False)
    run = score_episodes(episodes, TASKS, ScoreSettings(), sink=sink, batch_size=2)
    assert [len(b) for b in sink.batches] == [2, 2, 1]
    assert run.emitted == 5 and run.emit_failures == 5 and not run.emit_ok
    assert [u.task_id for u in run.unmatched] == ["zzz"]
    assert run.report.n_episodes == 5


def test_repeated_trials_give_pass_hat_k_and_several_models_are_grouped_not_refused():
    episodes = [
        _episode(trace="1" * 32),
        _episode(trace="2" * 32, calls=()),
        _episode(trace="3" * 32, model="other-model"),
    ]
    run = score_episodes(episodes, TASKS, ScoreSettings())
    assert run.report.k == 3
    assert run.report.pass_hat_k["t"] == 0.0   # one of three trials failed
    assert len(run.report.groups) == 2
    data = run.to_dict()
    assert data["aggregate"]["episodes"] == 3 and len(data["groups"]) == 2


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
        assert span.attributes["gen_ai.evaluation.score.value"] == by_trace[span.trace_id].score.f1
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
# The BFCL matcher
# ---------------------------------------------------------------------------


def _bfcl_task():
    from ek_otel.core.episode import AnyOf, ToolSpec

    return TaskSpec("simple_python_0", gold=[("f", {"x": AnyOf((1,))})],
                    tools=[ToolSpec("f", schema={"type": "dict", "required": ["x"],
                                                 "properties": {"x": {"type": "integer"}}})],
                    meta={"bfcl_category": "simple_python"})


def test_bfcl_matcher_uses_the_official_verdict():
    from ek_otel.bfcl.matcher import bfcl_verdict_for_calls

    task = _bfcl_task()
    tasks = {task.task_id: task}
    settings = ScoreSettings(matcher="bfcl")
    for calls in ([("f", {"x": 1})], [("f", {"x": True})], [("f", {"x": 2})], []):
        env = score_and_envelope(_episode(task.task_id, calls=calls), tasks, settings)
        verdict = bfcl_verdict_for_calls(calls, task)
        assert env.score.success is verdict.valid
        assert env.score.metric == "bfcl" and env.provenance.matcher["matcher"] == "bfcl"
        if not verdict.valid:
            assert verdict.error_type in env.score.explanation


def test_bfcl_matcher_refuses_gold_it_cannot_check():
    from ek_otel.errors import BfclDataError
    from ek_otel.scoring import check_tasks

    check_tasks({"simple_python_0": _bfcl_task()}, ScoreSettings(matcher="bfcl"))
    with pytest.raises(BfclDataError, match="weather-paris"):
        check_tasks(_tasks(), ScoreSettings(matcher="bfcl"))


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


def test_load_gold_default_task_rules(tmp_path):
    from ek_otel.errors import GoldFileError
    from ek_otel.scoring import load_gold

    tasks, default = load_gold(str(GOLD))
    assert len(tasks) > 1 and default is None  # several tasks: no default
    assert load_gold(str(GOLD), "weather-paris")[1] == "weather-paris"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# only a comment\n")
    with pytest.raises(GoldFileError, match="holds no task"):
        load_gold(str(empty))
