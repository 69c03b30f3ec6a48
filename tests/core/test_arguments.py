"""compare_args and describe_diff: how the arguments of a predicted call compare with its gold call."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.arguments import compare_args, describe_diff
from ek_otel.core.episode import AnyOf, FieldSpec, ToolSpec, tool_grammar
from ek_otel.core.grammar import GraphGrammar, NodeType
from ek_otel.core.rules import parse_rule


def _typed_grammar():
    return tool_grammar(ToolSpec("f", params={
        "n": FieldSpec("n", "integer"),
        "x": FieldSpec("x", "number"),
        "flag": FieldSpec("flag", "boolean"),
        "anything": FieldSpec("anything", "any"),
    }))


@pytest.mark.parametrize("arg, value, gold_value, ok", [
    ("n", 3, 3, True),
    ("n", 3.0, 3, False),
    ("n", True, AnyOf((True, 1)), False),
    ("x", 3, 3.0, True),
    ("x", "3", AnyOf(("3", 3)), False),
    ("flag", 1, AnyOf((1, True)), False),
    ("anything", "3", "3", True),
])
def test_type_checks_from_the_grammar(arg, value, gold_value, ok):
    c = compare_args("f", {arg: value}, {arg: gold_value}, grammar=_typed_grammar())
    assert c.exact is ok
    if not ok:
        assert c.diffs[0].kind == "wrong_type"


def test_no_grammar_means_no_type_checks():
    assert compare_args("f", {"n": 3.0}, {"n": 3}).exact


def test_wrong_type_is_described_with_the_expected_type():
    c = compare_args("f", {"n": "3"}, {"n": 3}, grammar=_typed_grammar())
    assert describe_diff(c.diffs[0], _typed_grammar()) == "f.n: expected an integer, got str '3'"
    assert describe_diff(c.diffs[0]) == "f.n: expected another type, got str '3'"


def test_every_kind_of_difference_is_described():
    c = compare_args("f", {"a": 2, "z": 0}, {"a": AnyOf((1, 3)), "b": "x"})
    assert [describe_diff(d) for d in c.diffs] == [
        "f.a: expected one of [1, 3], got 2", "f.b: missing (expected 'x')", "f.z: unexpected (0)"]
    assert (c.tp, c.fp, c.fn) == (0.0, 2.0, 2.0)


def test_an_argument_that_agreed_through_a_rule_is_kept_in_ruled():
    rule = parse_rule({"regex": "^ord-[0-9]+$"})
    c = compare_args("f", {"id": "ord-42"}, {"id": rule})
    assert c.exact and not c.diffs
    assert [(d.arg, d.kind) for d in c.ruled] == [("id", "rule")]
    assert describe_diff(c.ruled[0]).startswith("f.id: ") and "'ord-42'" in describe_diff(c.ruled[0])


def test_omittable_gold_may_be_left_out_unless_the_schema_requires_it():
    gold = {"unit": AnyOf(("c", ""))}
    assert compare_args("w", {}, gold).exact
    required = tool_grammar(ToolSpec("w", params={"unit": FieldSpec("unit", required=True)}))
    c = compare_args("w", {}, gold, grammar=required)
    assert [d.kind for d in c.diffs] == ["missing"]
    assert describe_diff(c.diffs[0], required) == (
        "w.unit: missing, but the tool's schema requires it (allowed: 'c', '')")


class _OwnGrammar:
    """A grammar of its own (not a GraphGrammar): compare_args asks it per argument."""

    def __init__(self, inner: GraphGrammar):
        self.inner = inner

    def field_cost(self, tool, arg):
        return self.inner.field_cost(tool, arg)

    def field_spec(self, tool, arg):
        return self.inner.field_spec(tool, arg)


VALUES = st.one_of(st.integers(-2, 2), st.floats(-2, 2, allow_nan=False), st.booleans(),
                   st.sampled_from(["x", "X ", "", "3"]), st.lists(st.integers(0, 2), max_size=2))
ARGS = st.dictionaries(st.sampled_from(["n", "x", "flag", "anything", "other"]), VALUES, max_size=4)


@given(ARGS, ARGS)
@settings(max_examples=200, deadline=None)
def test_a_grammar_of_its_own_gives_the_same_comparison_as_a_graph_grammar(pred, gold):
    """compare_args has a fast path for GraphGrammar and a general one: they must agree."""
    weighted = GraphGrammar({"f": NodeType("f", {
        **_typed_grammar().node_types["f"].fields,
        "other": FieldSpec("other", importance=3.0, required=True)})})
    fast = compare_args("f", pred, gold, grammar=weighted)
    general = compare_args("f", pred, gold, grammar=_OwnGrammar(weighted))
    assert fast == general
