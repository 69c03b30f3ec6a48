"""The attributes written back: semconv names and types, ek.* detail, provenance."""

from __future__ import annotations

import json

from ek_otel.core.episode import AnyOf, Cost
from ek_otel.core.scores import ArgDiff, EpisodeScore
from ek_otel.ingest.own_output import is_own_output
from ek_otel.emit.attributes import (
    event_attributes,
    explanation,
    phoenix_attributes,
    result_attributes,
    span_attributes,
)
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "b7ad6b7169203331"


def _envelope(**score_kwargs) -> ScoreEnvelope:
    score = EpisodeScore(**{"task_id": "refund", "trace_id": TRACE, **score_kwargs})
    return ScoreEnvelope(TRACE, ROOT, "refund", score,
                         ScoreProvenance("9.9.9", "ab" * 32,
                                         {"matcher": "ek", "level": "arg", "strategy": "optimal",
                                          "canonicalizer": "default"}),
                         revision=3, evaluated_service="support-agent", scored_at_ns=1)


def test_semconv_attributes_have_the_required_names_and_types():
    attrs = result_attributes(_envelope(f1=0.75, success=False, explanation="two wrong"))
    assert attrs == {
        "gen_ai.evaluation.name": "ek.tool_call",
        "gen_ai.evaluation.score.value": 0.75,
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.explanation": "two wrong",
    }
    assert isinstance(attrs["gen_ai.evaluation.score.value"], float)


def test_a_passing_score_is_labelled_pass_and_a_zero_f1_is_still_a_double():
    attrs = result_attributes(_envelope(f1=0, success=True))
    assert attrs["gen_ai.evaluation.score.label"] == "pass"
    assert isinstance(attrs["gen_ai.evaluation.score.value"], float)


def test_event_carries_provenance_and_revision():
    attrs = event_attributes(_envelope())
    assert attrs["ek.evaluator.version"] == "9.9.9"
    assert attrs["ek.gold.sha256"] == "ab" * 32
    assert attrs["ek.matcher.level"] == "arg"
    assert attrs["ek.matcher.strategy"] == "optimal"
    assert attrs["ek.revision"] == 3
    assert attrs["ek.task.id"] == "refund"
    assert attrs["ek.evaluated.service.name"] == "support-agent"
    assert "ek.tp" not in attrs  # detail lives on the span


def test_span_carries_detail_with_json_call_lists():
    env = _envelope(
        tp=1.0, fp=1.0, fn=2.0, precision=0.5, recall=1 / 3, f1=0.4, exact=False,
        arg_diffs=(ArgDiff("refund", "amount", "wrong_value", AnyOf((35.5,)), 355, 20.0),),
        missing_calls=(("notify", {"to": "customer"}),),
        spurious_calls=(("cancel_order", {"order_id": "1042"}),),
        cost=Cost(input_tokens=100, output_tokens=20, cached_input_tokens=5, reasoning_tokens=3,
                  retries=1, latency_s=2.5),
        dollars=0.0123,
    )
    attrs = span_attributes(env)
    assert attrs["gen_ai.operation.name"] == "evaluation"
    assert (attrs["ek.tp"], attrs["ek.fp"], attrs["ek.fn"]) == (1.0, 1.0, 2.0)
    assert attrs["ek.precision"] == 0.5 and attrs["ek.exact"] is False
    assert attrs["ek.cost.input_tokens"] == 100 and attrs["ek.cost.total_tokens"] == 128
    assert attrs["ek.cost.latency_s"] == 2.5 and attrs["ek.dollars"] == 0.0123
    assert json.loads(attrs["ek.arg_diffs"]) == [
        {"tool": "refund", "arg": "amount", "kind": "wrong_value",
         "expected": {"any_of": [35.5]}, "got": 355, "weight": 20.0}
    ]
    assert json.loads(attrs["ek.missing_calls"]) == [{"tool": "notify", "args": {"to": "customer"}}]
    assert json.loads(attrs["ek.spurious_calls"])[0]["tool"] == "cancel_order"
    for value in attrs.values():  # every value must be a valid OTel attribute value
        assert isinstance(value, (str, bool, int, float))


def test_unpriced_score_has_no_dollars_attribute():
    assert "ek.dollars" not in span_attributes(_envelope(dollars=None))


def test_explanation_is_built_when_the_score_has_none():
    text = explanation(EpisodeScore("t", tp=1.0, fn=1.0, f1=0.67,
                                    missing_calls=(("notify", {}),),
                                    arg_diffs=(ArgDiff("refund", "amount", "wrong_value"),)))
    assert "missing: notify" in text and "refund.amount wrong_value" in text


def test_phoenix_attributes_follow_openinference():
    attrs = phoenix_attributes(_envelope(f1=0.5, tp=1.0))
    assert attrs["openinference.span.kind"] == "EVALUATOR"
    assert attrs["evaluations.0.evaluation.name"] == "ek.tool_call"
    assert attrs["evaluations.0.evaluation.score"] == 0.5
    assert attrs["evaluations.0.evaluation.label"] == "fail"
    assert json.loads(attrs["evaluations.0.evaluation.metadata"])["revision"] == 3


def test_ek_output_is_recognised_by_resource_or_scope():
    assert is_own_output({"service.name": "ek-otel"})
    assert is_own_output({"service.name": "agent"}, "ek_otel.emit")
    assert not is_own_output({"service.name": "agent"}, "openinference")


def test_a_verdict_metric_writes_its_verdict_as_the_score_value():
    env = _envelope(metric="bfcl", f1=0.5, success=False)
    attrs = span_attributes(env)
    assert attrs["gen_ai.evaluation.name"] == "ek.bfcl"
    assert attrs["gen_ai.evaluation.score.value"] == 0.0
    assert attrs["ek.f1"] == 0.5  # the ek matcher's figure stays as detail
