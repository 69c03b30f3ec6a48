"""Undefined is not zero: precision with no call predicted, recall with no call expected and
F1 with neither are None (null in JSON, n/a on screen), per episode, task, slice and corpus;
the single-number metrics whose peers return a float keep their conventions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.correctness import ModelTestCase, ToolCall, ToolCorrectnessMetric
from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, ToolSpec, Trajectory
from ek_otel import evaluate
from ek_otel.core.evaluate import score_episode
from ek_otel.core.fields import defined_precision_recall_f1, precision_recall_f1
from ek_otel.core.grammar import FieldSpec
from ek_otel.core.toolcalls import ToolCallMetric
from ek_otel.emit.attributes import annotation_metadata, score_value, span_attributes
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "examples" / "traces.jsonl"
GOLD = ROOT / "examples" / "tasks.jsonl"

NO_CALL = TaskSpec("chat", gold=[], slice="irrelevance")
ONE_CALL = TaskSpec("weather", gold=[("get_weather", {"city": AnyOf(("Paris",))})], slice="lookup")


def _episode(task_id, *calls):
    return Episode(task_id, Trajectory([Step(name, args) for name, args in calls]))


@pytest.mark.parametrize("counts, expected", [
    ((0, 0, 0), (None, None, None)),     # nothing expected, nothing made
    ((0, 2, 0), (0.0, None, 0.0)),       # calls where none was expected
    ((0, 0, 3), (None, 0.0, 0.0)),       # nothing made where calls were expected
    ((1, 1, 1), (0.5, 0.5, 0.5)),
    ((3, 0, 1), (1.0, 0.75, 6 / 7)),
])
def test_defined_figures(counts, expected):
    got = defined_precision_recall_f1(*counts)
    assert got == pytest.approx(expected) if None not in expected else got == expected
    # where both are defined, the F1 is the harmonic mean of the two, as everywhere
    p, r, f1 = got
    if p is not None and r is not None and p + r:
        assert f1 == pytest.approx(2 * p * r / (p + r))


def test_an_episode_of_a_task_that_expects_no_call_is_judged_by_its_success():
    right = score_episode(_episode("chat"), NO_CALL)
    assert (right.precision, right.recall, right.f1, right.success) == (None, None, None, True)
    wrong = score_episode(_episode("chat", ("get_weather", {"city": "Paris"})), NO_CALL)
    assert (wrong.precision, wrong.recall, wrong.f1, wrong.success) == (0.0, None, 0.0, False)
    silent = score_episode(_episode("weather"), ONE_CALL)
    assert (silent.precision, silent.recall, silent.f1) == (None, 0.0, 0.0)


def test_task_slice_and_corpus_figures_are_null_where_undefined():
    report = evaluate([_episode("chat"), _episode("chat")], [NO_CALL], k=1)
    assert (report.precision, report.recall, report.f1) == (None, None, None)
    assert report.per_task["chat"].f1 is None and report.per_slice["irrelevance"].recall is None
    assert report.success_rate == 1.0
    d = report.to_dict()
    assert d["aggregate"]["f1"] is None and d["aggregate"]["precision"] is None
    assert d["per_task"]["chat"]["recall"] is None and d["per_slice"]["irrelevance"]["f1"] is None
    assert all(e["f1"] is None for e in d["episodes"])
    mixed = evaluate([_episode("chat", ("get_weather", {"city": "Paris"})), _episode("chat"),
                      _episode("weather", ("get_weather", {"city": "Paris"}))],
                     [NO_CALL, ONE_CALL], k=1)
    assert mixed.per_task["chat"].recall is None and mixed.per_task["chat"].precision == 0.0
    assert mixed.per_task["chat"].success_rate == 0.5
    assert (mixed.precision, mixed.recall) == (0.5, 1.0)  # the corpus has calls both ways


def test_the_metrics_that_return_one_number_keep_their_documented_conventions():
    # ToolCallMetric (its value is a float, as deepeval's measure is) and the deepeval API
    assert ToolCallMetric()([], []).value == 1.0 and ToolCallMetric()([], []).f1 == 1.0
    assert ToolCallMetric()([("a", {})], []).f1 == 0.0
    assert precision_recall_f1(0, 0, 0) == (1.0, 1.0, 1.0)
    assert ToolCorrectnessMetric().measure(ModelTestCase(tools_called=[], expected_tools=[])) == 1.0
    assert ToolCorrectnessMetric().measure(
        ModelTestCase(tools_called=[ToolCall("A")], expected_tools=[])) == 0.0


def test_written_back_scores_leave_undefined_figures_out_and_keep_the_verdict_value():
    score = score_episode(_episode("chat"), NO_CALL)
    envelope = ScoreEnvelope("ab" * 16, "cd" * 8, "chat", score, ScoreProvenance("0"))
    attrs = span_attributes(envelope)
    assert "ek.precision" not in attrs and "ek.recall" not in attrs and "ek.f1" not in attrs
    assert attrs["gen_ai.evaluation.score.value"] == 1.0 == score_value(score)
    assert annotation_metadata(envelope)["recall"] is None
    again = ScoreEnvelope.from_json(envelope.to_json())
    assert (again.score.precision, again.score.recall, again.score.f1) == (None, None, None)
    wrong = score_episode(_episode("chat", ("x", {})), NO_CALL)
    attrs = span_attributes(ScoreEnvelope("ab" * 16, "cd" * 8, "chat", wrong, ScoreProvenance("0")))
    assert attrs["ek.precision"] == 0.0 and "ek.recall" not in attrs and attrs["ek.f1"] == 0.0
    assert score_value(wrong) == 0.0


def test_the_example_shows_n_a_on_the_terminal_and_null_in_the_json(tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--json", str(out),
                                      "--wide"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    joke = next(line for line in result.stdout.splitlines() if "joke-no-tool" in line)
    cells = [c.strip() for c in joke.split("│") if c.strip()]
    assert cells[:5] == ["joke-no-tool", "flaky 1/2", "0.000", "n/a", "0.000"], joke
    irrelevance = next(line for line in result.stdout.splitlines() if "irrelevance" in line)
    assert "n/a" in irrelevance
    data = json.loads(out.read_text())
    assert data["per_task"]["joke-no-tool"]["recall"] is None
    right = [e for e in data["episodes"] if e["task_id"] == "joke-no-tool" and e["success"]]
    assert [(e["precision"], e["recall"], e["f1"]) for e in right] == [(None, None, None)]


def test_an_explanation_says_what_a_weighted_f1_counts():
    tools = [ToolSpec("lookup_order"), ToolSpec(
        "refund", {"amount": FieldSpec("amount", importance=20.0)}, destructive=True)]
    task = TaskSpec("r", gold=[("lookup_order", {}), ("refund", {"amount": AnyOf((35.5,))})],
                    tools=tools)
    run = _episode("r", ("lookup_order", {}), ("refund", {"amount": 355.0}))
    call = score_episode(run, task)
    assert call.explanation == ("1/2 calls matched; refund.amount: expected 35.5, got 355.0; "
                                f"weighted F1 {call.f1:.3f}: refund weighs 10")
    assert f"{call.f1:.3f}" == "0.091"
    arg = score_episode(run, task, level="arg")
    assert arg.explanation.endswith(f"weighted F1 {arg.f1:.3f} (arguments counted): "
                                    "refund weighs 10, refund.amount weighs 20")
    # unweighted tools: the F1 is the share of calls, and nothing is added
    plain = TaskSpec("p", gold=[("a", {}), ("b", {"x": AnyOf((1,))})])
    assert score_episode(_episode("p", ("a", {}), ("b", {"x": 2})), plain).explanation == (
        "1/2 calls matched; b.x: expected 1, got 2")
