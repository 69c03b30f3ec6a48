"""The cost grammar: node and field costs (seed examples)."""

from __future__ import annotations

from ek_otel.core.grammar import FieldSpec, GraphGrammar, NodeType, Score


def test_seed_refund_amount_costs_twenty_and_unknowns_cost_one():
    g = GraphGrammar(node_types={"refund": NodeType(
        "refund", fields={"amount": FieldSpec("amount", "number", importance=20.0)},
        importance=10.0)})
    assert g.node_cost("refund") == 10.0
    assert g.field_cost("refund", "amount") == 20.0
    assert g.field_cost("refund", "memo") == 1.0
    assert g.node_cost("unknown_tool") == 1.0 and g.field_cost("unknown_tool", "x") == 1.0
    assert g.field_spec("refund", "amount").type == "number"
    assert g.field_spec("refund", "memo") is None and g.field_spec("nope", "x") is None


def test_score_defaults():
    s = Score(0.5)
    assert s.precision is None and dict(s.detail) == {} and s.explanation == ""
