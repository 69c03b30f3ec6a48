"""Seed shapes: Cost, Step, Trajectory, Episode, ToolSpec, TaskSpec, grammars, as_call."""

from __future__ import annotations

import pytest

from ek_otel.core.episode import (
    DEFAULT_TASK_VALUE,
    DESTRUCTIVE_WEIGHT,
    AnyOf,
    Cost,
    Episode,
    FieldSpec,
    RunProvenance,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
    as_call,
    is_episode,
    suite_grammar,
    tool_grammar,
)


def test_seed_cost_addition():
    c = Cost(input_tokens=100, output_tokens=50) + Cost(input_tokens=10, output_tokens=5,
                                                        retries=1)
    assert (c.input_tokens, c.output_tokens, c.retries) == (110, 55, 1)
    assert sum([Cost(input_tokens=1), Cost(input_tokens=2)], Cost()).total_tokens == 3
    assert (Cost(latency_s=1.0) + Cost()).latency_s == 1.0 and (Cost() + Cost()).latency_s is None


def test_seed_destructive_send_costs_ten():
    g = tool_grammar(ToolSpec("send", params={"to": FieldSpec("to")}, destructive=True))
    assert g.node_cost("send") == 10.0 == DESTRUCTIVE_WEIGHT
    assert ToolSpec("x", importance=3.0, destructive=True).weight == 3.0
    assert ToolSpec("x").weight == 1.0


def test_seed_field_costs():
    g = tool_grammar(
        ToolSpec("book_flight", params={"seat": FieldSpec("seat", "string")}),
        ToolSpec("refund", params={"amount": FieldSpec("amount", "number", importance=20.0)},
                 destructive=True))
    assert g.field_cost("refund", "amount") == 20.0
    assert g.field_cost("book_flight", "seat") == 1.0


def test_suite_grammar_later_tool_wins():
    tasks = [TaskSpec("a", tools=[ToolSpec("x", importance=2.0)]),
             TaskSpec("b", tools=[ToolSpec("x", importance=5.0)])]
    assert suite_grammar(tasks).node_cost("x") == 5.0


def test_as_call_forms():
    assert as_call(Step("s", {"q": 1})) == ("s", {"q": 1})
    assert as_call(("s", {"q": 1})) == ("s", {"q": 1})
    assert as_call({"tool": "s", "args": {"q": 1}}) == ("s", {"q": 1})
    assert as_call("s") == ("s", {})
    with pytest.raises(TypeError):
        as_call(3)


def test_episode_graded_copies_meta():
    e = Episode("t", Trajectory([Step("a", {"x": 1})]), meta={"k": 1})
    g = e.graded(True)
    assert g.success and e.success is None and g.meta == e.meta and g.meta is not e.meta
    assert g.calls == (("a", {"x": 1}),) and is_episode(g) and not is_episode("t")
    assert len(g.trajectory) == 1 and g.trajectory.tools == ("a",)


def test_task_defaults_and_comparability_key():
    t = TaskSpec("t", gold=[("a", {"x": AnyOf((1,))})])
    assert t.value == DEFAULT_TASK_VALUE and t.gold[0][1]["x"].values == (1,)
    a = RunProvenance(seed=1, temperature=0.1, model="m")
    b = RunProvenance(seed=2, temperature=0.9, model="m")
    assert a.comparability_key() == b.comparability_key()
    assert a.comparability_key() != RunProvenance(model="n").comparability_key()
