"""Envelopes → SDK spans and log records, checked through the SDK's in-memory exporters."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from ek_otel import __version__
from ek_otel.core.scores import EpisodeScore
from ek_otel.emit.encode import encode_log_records, encode_spans
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.sinks import ExporterSink

try:
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as InMemoryLogs
except ImportError:  # pragma: no cover
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as InMemoryLogs

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "b7ad6b7169203331"
SCORED_AT = 1_764_460_800_000_000_000


def _envelope(trace=TRACE, root=ROOT, revision=0, f1=1.0, success=True) -> ScoreEnvelope:
    return ScoreEnvelope(
        trace, root, "weather-paris",
        EpisodeScore("weather-paris", trace_id=trace, tp=1.0, precision=1.0, recall=1.0, f1=f1,
                     exact=success, success=success),
        ScoreProvenance(__version__, "ef" * 32, {"matcher": "ek", "level": "call"}),
        revision=revision, evaluated_service="weather-agent", scored_at_ns=SCORED_AT,
    )


@pytest.fixture
def exporters():
    spans, logs = InMemorySpanExporter(), InMemoryLogs()
    sink = ExporterSink(spans, logs)
    yield sink, spans, logs
    sink.close()


def test_evaluation_span_is_a_child_of_the_root_span_in_the_same_trace(exporters):
    sink, spans, _ = exporters
    assert sink.send([_envelope()])
    (span,) = spans.get_finished_spans()
    assert f"{span.context.trace_id:032x}" == TRACE
    assert f"{span.parent.span_id:016x}" == ROOT
    assert f"{span.parent.trace_id:032x}" == TRACE
    assert span.context.span_id != int(ROOT, 16)
    assert span.context.trace_flags.sampled
    assert span.kind == SpanKind.INTERNAL
    assert span.name == "evaluation ek.tool_call"
    assert span.start_time == span.end_time == SCORED_AT
    attrs = dict(span.attributes)
    assert attrs["gen_ai.evaluation.name"] == "ek.tool_call"
    assert attrs["gen_ai.evaluation.score.value"] == 1.0
    assert attrs["gen_ai.evaluation.score.label"] == "pass"
    assert attrs["ek.evaluator.version"] == __version__
    assert attrs["ek.gold.sha256"] == "ef" * 32
    assert span.resource.attributes["service.name"] == "ek-otel"
    assert span.instrumentation_scope.name == "ek_otel.emit"


def test_evaluation_event_points_at_the_root_span(exporters):
    sink, _, logs = exporters
    assert sink.send([_envelope(f1=0.0, success=False)])
    (record,) = logs.get_finished_logs()
    log = record.log_record
    assert log.event_name == "gen_ai.evaluation.result"
    assert f"{log.trace_id:032x}" == TRACE
    assert f"{log.span_id:016x}" == ROOT
    assert log.timestamp == SCORED_AT
    assert log.attributes["gen_ai.evaluation.score.label"] == "fail"
    assert log.attributes["gen_ai.evaluation.score.value"] == 0.0
    assert record.resource.attributes["service.name"] == "ek-otel"


def test_several_envelopes_each_go_into_their_own_trace(exporters):
    sink, spans, logs = exporters
    other_trace, other_root = "1" * 32, "2" * 16
    assert sink.send([_envelope(), _envelope(other_trace, other_root)])
    got = {(f"{s.context.trace_id:032x}", f"{s.parent.span_id:016x}") for s in spans.get_finished_spans()}
    assert got == {(TRACE, ROOT), (other_trace, other_root)}
    got_logs = {(f"{r.log_record.trace_id:032x}", f"{r.log_record.span_id:016x}")
                for r in logs.get_finished_logs()}
    assert got_logs == got


def test_encoding_is_deterministic_and_revisions_get_new_span_ids():
    first = encode_spans([_envelope()])[0]
    again = encode_spans([_envelope()])[0]
    revised = encode_spans([_envelope(revision=1)])[0]
    assert first.context.span_id == again.context.span_id
    assert dict(first.attributes) == dict(again.attributes)
    assert revised.context.span_id != first.context.span_id
    assert revised.attributes["ek.revision"] == 1
    assert encode_log_records([_envelope(revision=1)])[0].log_record.attributes["ek.revision"] == 1


def test_phoenix_evaluator_span_has_exactly_one_link_to_the_root():
    spans, logs = InMemorySpanExporter(), InMemoryLogs()
    assert ExporterSink(spans, logs, phoenix=True).send([_envelope()])
    by_kind = {s.attributes.get("openinference.span.kind", "semconv"): s for s in spans.get_finished_spans()}
    evaluator = by_kind["EVALUATOR"]
    assert len(evaluator.links) == 1
    link = evaluator.links[0].context
    assert (f"{link.trace_id:032x}", f"{link.span_id:016x}") == (TRACE, ROOT)
    assert evaluator.attributes["evaluations.0.evaluation.score"] == 1.0
    assert evaluator.context.span_id != by_kind["semconv"].context.span_id
    assert len(logs.get_finished_logs()) == 1


def test_a_failing_exporter_makes_send_return_false():
    class Failing(InMemorySpanExporter):
        def export(self, spans):
            raise ConnectionError("backend down")

    sink = ExporterSink(Failing(), InMemoryLogs())
    assert not sink.send([_envelope()])


def test_a_closed_sink_refuses_to_send(exporters):
    sink, spans, _ = exporters
    sink.close()
    sink.close()  # twice is harmless
    assert not sink.send([_envelope()])
    assert spans.get_finished_spans() == ()


# ---------------------------------------------------------------------------
# Time: the scores do not stretch the traces they score
# ---------------------------------------------------------------------------


def _windows(spans) -> dict:
    out: dict = {}
    for span in spans:
        start, end = out.get(span.trace_id, (span.start_ns, span.end_ns))
        out[span.trace_id] = (min(start, span.start_ns), max(end, span.end_ns))
    return out


def test_a_scored_trace_keeps_its_duration(tmp_path):
    """Score the example dumps, write the scores to a file, read agent spans and score spans
    back together: every trace's window (first start, last end) is what it was."""
    import os

    from ek_otel.emit.sinks import FileSink
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.ingest.dumps import read_dump
    from ek_otel.ingest.records import SpanRecord
    from ek_otel.pipeline import score_dump
    from ek_otel.scoring.link import load_settings

    examples = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
    traces, gold = os.path.join(examples, "traces.jsonl"), os.path.join(examples, "tasks.jsonl")
    report = BadInputReport()
    agent_spans = [r for r in read_dump([traces], report=report) if isinstance(r, SpanRecord)]
    before = _windows(agent_spans)
    tasks, settings = load_settings(gold)
    out = tmp_path / "scores.jsonl"
    sink = FileSink(str(out), phoenix=True)
    run = score_dump([traces], tasks, settings, report=BadInputReport(), sink=sink)
    sink.close()
    assert len(run.envelopes) == 9
    score_spans = [r for r in read_dump([str(out)], report=BadInputReport())
                   if isinstance(r, SpanRecord)]
    assert len(score_spans) == 18  # evaluation + EVALUATOR span per score
    assert _windows(agent_spans + score_spans) == {t: before[t] for t in before}
    roots = {(s.trace_id, s.span_id): s for s in agent_spans}
    for span in score_spans:
        root = roots[(span.trace_id, span.parent_span_id)]
        assert span.start_ns == span.end_ns == root.end_ns  # at the root's end, zero duration
        scored_at = span.attributes["ek.scored_at"]
        assert scored_at.endswith("Z") and scored_at > "2026-12"  # the real scoring time


def test_without_the_root_end_the_spans_fall_back_to_the_scoring_time():
    (span,) = encode_spans([_envelope()])
    assert span.start_time == span.end_time == SCORED_AT
    (placed,) = encode_spans([ScoreEnvelope.from_dict({**_envelope().to_dict(), "root_end_ns": 42})])
    assert placed.start_time == placed.end_time == 42
    (record,) = encode_log_records([ScoreEnvelope.from_dict({**_envelope().to_dict(),
                                                             "root_end_ns": 42})])
    assert record.log_record.timestamp == 42
    assert record.log_record.observed_timestamp == SCORED_AT
