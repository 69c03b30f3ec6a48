"""match_calls / align_calls / ToolCallMetric: seed examples, extensions and properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel import ToolCallMetric as PublicToolCallMetric
from ek_otel import match_calls as public_match_calls
from ek_otel.core.episode import (
    AnyOf,
    Episode,
    FieldSpec,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
    tool_grammar,
)
from ek_otel.core.grammar import GraphGrammar, NodeType
from ek_otel.core.toolcalls import (
    ToolCallMetric,
    align_calls,
    calls_of,
    explain_alignment,
    match_calls,
)

GOLD = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]


# -- seed examples ------------------------------------------------------------------------


def test_seed_perfect_prediction_scores_one():
    pred = [Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})]
    assert ToolCallMetric()(pred, GOLD).f1 == 1.0


def test_seed_hallucinated_call_is_one_tp_one_fp_one_fn():
    hallucinated = [Step("search", {"q": "cats"}), Step("delete_all", {})]
    s = ToolCallMetric()(hallucinated, GOLD)
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1.0, 1.0, 1.0)
    assert round(s.f1, 3) == 0.5


def test_seed_match_calls_is_order_insensitive_within_a_name():
    pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
                                [("s", {"q": "a"}), ("s", {"q": "b"})])
    assert (len(pairs), up, ug) == (2, [], [])
    assert all(p[1] == g[1] for p, g in pairs)


def test_public_names_are_the_module_names():
    assert PublicToolCallMetric is ToolCallMetric
    assert public_match_calls is match_calls


# -- matching semantics -------------------------------------------------------------------


def test_wrong_tool_never_matches():
    pairs, up, ug = match_calls([("a", {"x": 1})], [("b", {"x": 1})])
    assert pairs == [] and up == [("a", {"x": 1})] and ug == [("b", {"x": 1})]


def test_argument_order_never_matters_but_list_order_does():
    assert align_calls([("f", {"a": 1, "b": 2})], [("f", {"b": 2, "a": 1})]).exact
    assert not align_calls([("f", {"ids": [1, 2]})], [("f", {"ids": [2, 1]})]).exact


def test_strings_fold_case_and_whitespace_unless_canon_overrides():
    assert align_calls([("f", {"c": "  New\tYORK "})], [("f", {"c": "new york"})]).exact
    assert not align_calls([("f", {"c": "NYC"})], [("f", {"c": "nyc"})], canon=str).exact


def test_pairs_sorted_by_pred_position_and_exact_before_partial():
    pred = [("s", {"q": "x", "n": 1}), ("s", {"q": "a", "n": 2})]
    gold = [("s", {"q": "a", "n": 2}), ("s", {"q": "x", "n": 9})]
    pairs, _, _ = match_calls(pred, gold)
    assert [p[0][1]["q"] for p in pairs] == ["x", "a"]
    assert pairs[1][1] == ("s", {"q": "a", "n": 2})


def test_repeated_identical_calls_are_interchangeable_and_counted_as_multiset():
    a = align_calls([("a", {})] * 3, [("a", {})] * 2)
    assert (len(a.pairs), a.spurious, a.missing) == (2, (2,), ())
    assert a.counts("call") == (2.0, 1.0, 0.0)


def test_accepts_episode_trajectory_task_and_dicts():
    steps = [Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})]
    task = TaskSpec("t", gold=GOLD)
    for pred in (Episode("t", Trajectory(steps)), Trajectory(steps), steps,
                 [{"tool": "search", "args": {"q": "cats"}}, {"name": "answer",
                                                             "arguments": {"a": "meow"}}]):
        assert ToolCallMetric()(pred, task).f1 == 1.0


def test_calls_of_flattens_turns():
    task = TaskSpec("t", turns=[[("a", {})], [], [("b", {"x": 1})]])
    assert calls_of(task) == (("a", {}), ("b", {"x": 1}))


def test_bad_level_or_strategy_is_refused():
    with pytest.raises(ValueError):
        ToolCallMetric(level="token")
    with pytest.raises(ValueError):
        align_calls([], [], strategy="random")


# -- AnyOf gold values --------------------------------------------------------------------


def test_anyof_matches_any_admissible_value_canonically():
    gold = [("w", {"city": AnyOf(("New York", "NYC")), "unit": AnyOf(("celsius", ""))})]
    assert align_calls([("w", {"city": "nyc"})], gold).exact          # unit may be omitted
    assert align_calls([("w", {"city": "NYC", "unit": "Celsius"})], gold).exact
    diffs = align_calls([("w", {"city": "Boston", "unit": "kelvin"})], gold).arg_diffs
    assert [(d.arg, d.kind) for d in diffs] == [("city", "wrong_value"), ("unit", "wrong_value")]


def test_omitted_optional_argument_is_not_a_false_negative():
    gold = [("w", {"city": AnyOf(("NYC",)), "unit": AnyOf(("c", ""))})]
    s = ToolCallMetric(level="arg")([("w", {"city": "NYC"})], gold)
    assert s.detail["fn"] == 0.0 and s.f1 == 1.0
    s = ToolCallMetric(level="arg")([("w", {"unit": "c"})], gold)
    assert s.detail["fn"] == 1.0       # city is required


def test_anyof_with_lists_and_nested_possible_answer_dicts():
    gold = [("f", {"ids": AnyOf(([1, 2], [2, 1])),
                   "cfg": AnyOf(({"mode": ["fast", "quick"], "depth": [3, ""]},))})]
    assert align_calls([("f", {"ids": [2, 1], "cfg": {"mode": "Quick"}})], gold).exact
    assert not align_calls([("f", {"ids": [1, 2], "cfg": {"mode": "slow"}})], gold).exact
    assert not align_calls([("f", {"ids": [1, 2], "cfg": {"mode": "fast", "x": 1}})], gold).exact
    assert not align_calls([("f", {"ids": [1, 2], "cfg": {"depth": 3}})], gold).exact


def test_bool_is_never_a_number_but_int_equals_float():
    assert not align_calls([("f", {"x": True})], [("f", {"x": 1})]).exact
    assert align_calls([("f", {"x": 3})], [("f", {"x": 3.0})]).exact


# -- strategies ---------------------------------------------------------------------------

BLOCKING_GOLD = [("f", {"a": 1, "b": 1, "c": 1, "d": 0}), ("f", {"a": 1, "b": 1, "c": 9, "d": 9})]
BLOCKING_PRED = [("f", {"a": 1, "b": 1, "c": 1, "d": 5}), ("f", {"a": 2, "b": 2, "c": 1, "d": 0})]


def test_optimal_beats_best_first_when_a_greedy_pick_blocks_two_pairs():
    greedy = ToolCallMetric(level="arg")(BLOCKING_PRED, BLOCKING_GOLD)
    optimal = ToolCallMetric(level="arg", strategy="optimal")(BLOCKING_PRED, BLOCKING_GOLD)
    assert optimal.detail["tp"] > greedy.detail["tp"]
    assert optimal.f1 > greedy.f1


def test_optimal_maximises_exact_pairs_with_admissible_sets():
    gold = [("f", {"x": AnyOf((1, 2))}), ("f", {"x": AnyOf((1,))})]
    pred = [("f", {"x": 1}), ("f", {"x": 2})]
    assert align_calls(pred, gold).n_exact == 1           # p0 grabs g0 by position
    assert align_calls(pred, gold, strategy="optimal").n_exact == 2


def test_ordered_strategy_leaves_out_of_order_calls_unpaired():
    a = align_calls([("b", {}), ("a", {})], [("a", {}), ("b", {})], strategy="ordered")
    assert len(a.pairs) == 1 and not a.exact
    assert align_calls([("a", {}), ("b", {})], [("a", {}), ("b", {})], strategy="ordered").exact


def test_ordered_strategy_prefers_exact_pairs():
    gold = [("s", {"q": "x"}), ("s", {"q": "y"})]
    a = align_calls([("s", {"q": "y"})], gold, strategy="ordered")
    assert a.pairs[0].gold_index == 1 and a.pairs[0].exact


# -- weights and levels -------------------------------------------------------------------


def test_seed_grammar_weights():
    g = tool_grammar(ToolSpec("send", params={"to": FieldSpec("to")}, destructive=True),
                     ToolSpec("refund", params={"amount": FieldSpec("amount", "number",
                                                                      importance=20.0)}),
                     ToolSpec("book_flight", params={"seat": FieldSpec("seat", "string")}))
    assert g.node_cost("send") == 10.0
    assert g.field_cost("refund", "amount") == 20.0
    assert g.field_cost("book_flight", "seat") == 1.0


def test_destructive_spurious_call_costs_its_weight():
    g = tool_grammar(ToolSpec("delete_all", destructive=True))
    s = ToolCallMetric(grammar=g)([("search", {"q": "cats"}), ("delete_all", {})], GOLD[:1])
    assert s.detail["fp"] == 10.0


def test_call_level_right_tool_wrong_args_is_fp_and_fn_of_the_tool_weight():
    g = tool_grammar(ToolSpec("refund", importance=4.0))
    s = ToolCallMetric(grammar=g)([("refund", {"amount": 100})], [("refund", {"amount": 10})])
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (0.0, 4.0, 4.0)


def test_arg_level_uses_field_costs():
    g = tool_grammar(ToolSpec("refund", params={
        "amount": FieldSpec("amount", "number", importance=20.0),
        "memo": FieldSpec("memo", "string")}))
    pred = [("refund", {"amount": 100, "memo": "x", "extra": 1}), ("spam", {"k": 1})]
    gold = [("refund", {"amount": 10, "memo": "X", "order": "o1"})]
    s = ToolCallMetric(level="arg", grammar=g)(pred, gold)
    # tool + memo agree; amount wrong (20 fp + 20 fn); extra unexpected (1 fp);
    # order missing (1 fn); spam spurious: node 1 + arg k 1.
    assert s.detail["tp"] == 2.0
    assert s.detail["fp"] == 20.0 + 1.0 + 2.0
    assert s.detail["fn"] == 20.0 + 1.0
    assert s.detail["n_matched"] == 1 and s.detail["n_spurious"] == 1
    assert s.detail["n_missed"] == 0 and s.detail["level"] == "arg"


def test_arg_level_missing_call_costs_node_and_required_args():
    gold = [("w", {"city": "x", "unit": AnyOf(("c", ""))})]
    s = ToolCallMetric(level="arg")([], gold)
    assert s.detail["fn"] == 2.0     # the call and city; unit was optional


def test_aggregate_is_micro_not_macro():
    m = ToolCallMetric()
    scores = [m([("a", {})], [("a", {})]),
              m([("x", {}), ("y", {}), ("z", {})], [("a", {})])]
    agg = ToolCallMetric.aggregate_score(scores)
    assert (agg.detail["tp"], agg.detail["fp"], agg.detail["fn"]) == (1.0, 3.0, 1.0)
    macro = sum(s.f1 for s in scores) / len(scores)
    assert agg.f1 == pytest.approx(2 * 0.25 * 0.5 / 0.75)
    assert agg.f1 != pytest.approx(macro)
    assert ToolCallMetric.aggregate_score([]).f1 == 1.0


def test_aggregate_returns_the_corpus_micro_f1_as_a_float():
    """The seed contract: ``aggregate(scores)`` is a float, so ``round()`` works on it."""
    m = ToolCallMetric()
    scores = [m([("a", {})], [("a", {})]),
              m([("x", {}), ("y", {}), ("z", {})], [("a", {})])]
    value = m.aggregate(scores)
    assert type(value) is float
    assert value == m.aggregate_score(scores).f1 == pytest.approx(1 / 3)   # tp=1, fp=3, fn=1
    assert round(m.aggregate(scores), 3) == 0.333
    assert m.aggregate([]) == 1.0


def test_empty_cases_follow_the_documented_rule():
    m = ToolCallMetric()
    assert m([], []).f1 == 1.0
    assert m([("a", {})], []).f1 == 0.0 and m([("a", {})], []).precision == 0.0
    assert m([], [("a", {})]).recall == 0.0 and m([], [("a", {})]).precision == 0.0


def test_explanation_names_the_differences():
    a = align_calls([("refund", {"amount": 100}), ("spam", {})],
                    [("refund", {"amount": 10}), ("notify", {})])
    text = explain_alignment(a)
    assert text.startswith("0/2 calls matched")
    assert "refund.amount: expected 10, got 100" in text
    assert "missing: notify" in text and "spurious: spam" in text


def test_explanation_caps_long_listings():
    a = align_calls([], [(f"t{i}", {}) for i in range(6)])
    assert "(+3 more)" in explain_alignment(a)


def test_unknown_tool_in_grammar_costs_one():
    g = GraphGrammar({"x": NodeType("x", importance=5.0)})
    s = ToolCallMetric(grammar=g)([("y", {})], [])
    assert s.detail["fp"] == 1.0


# -- properties ---------------------------------------------------------------------------

TOOLS = ["a", "b", "c"]
VALUES = st.one_of(st.integers(0, 3), st.sampled_from(["x", "Y", "z "]), st.booleans())
CALLS = st.tuples(st.sampled_from(TOOLS),
                  st.dictionaries(st.sampled_from(["p", "q", "r"]), VALUES, max_size=3))
CALL_LISTS = st.lists(CALLS, max_size=6)
LEVEL = st.sampled_from(["call", "arg"])


@given(CALL_LISTS, CALL_LISTS, st.randoms(use_true_random=False), LEVEL)
@settings(max_examples=200, deadline=None)
def test_f1_is_unchanged_under_any_permutation_of_pred(pred, gold, rnd, level):
    shuffled = list(pred)
    rnd.shuffle(shuffled)
    m = ToolCallMetric(level=level, strategy="optimal")
    assert m(shuffled, gold).f1 == pytest.approx(m(pred, gold).f1)
    if level == "call":
        base = ToolCallMetric()
        assert base(shuffled, gold).f1 == pytest.approx(base(pred, gold).f1)


@given(CALL_LISTS, CALL_LISTS, LEVEL, st.sampled_from(["best_first", "optimal", "ordered"]))
@settings(max_examples=200, deadline=None)
def test_f1_is_between_zero_and_one(pred, gold, level, strategy):
    s = ToolCallMetric(level=level, strategy=strategy)(pred, gold)
    assert 0.0 <= s.f1 <= 1.0
    assert 0.0 <= s.precision <= 1.0 and 0.0 <= s.recall <= 1.0


@given(CALL_LISTS, LEVEL, st.sampled_from(["best_first", "optimal", "ordered"]))
@settings(max_examples=100, deadline=None)
def test_identical_pred_and_gold_score_one(calls, level, strategy):
    s = ToolCallMetric(level=level, strategy=strategy)(calls, calls)
    assert s.f1 == 1.0
    assert align_calls(calls, calls, strategy=strategy).exact


@given(CALL_LISTS, CALL_LISTS, st.dictionaries(st.sampled_from(["p", "q"]), VALUES),
       st.integers(0, 6), LEVEL)
@settings(max_examples=200, deadline=None)
def test_adding_a_spurious_call_never_raises_precision(pred, gold, args, where, level):
    m = ToolCallMetric(level=level, strategy="optimal")
    more = list(pred)
    more.insert(min(where, len(more)), ("hallucinated_tool", args))
    assert m(more, gold).precision <= m(pred, gold).precision + 1e-12


@given(st.lists(st.sampled_from([("a", {"p": 1}), ("a", {"p": 2}), ("b", {})]), max_size=7),
       st.lists(st.sampled_from([("a", {"p": 1}), ("a", {"p": 2}), ("b", {})]), max_size=7),
       st.sampled_from(["best_first", "optimal"]))
@settings(max_examples=200, deadline=None)
def test_duplicates_are_counted_as_a_multiset(pred, gold, strategy):
    key = lambda c: (c[0], tuple(sorted(c[1].items())))  # noqa: E731
    cp, cg = Counter(map(key, pred)), Counter(map(key, gold))
    s = ToolCallMetric(strategy=strategy)(pred, gold)
    assert s.detail["tp"] == sum((cp & cg).values())


@given(CALL_LISTS, CALL_LISTS, st.floats(0.5, 20.0), LEVEL)
@settings(max_examples=150, deadline=None)
def test_grammar_weights_scale_errors_as_documented(pred, gold, factor, level):
    def grammar(scale):
        return tool_grammar(*[
            ToolSpec(t, importance=scale * (i + 1),
                     params={p: FieldSpec(p, importance=scale * (j + 2))
                             for j, p in enumerate(["p", "q", "r"])})
            for i, t in enumerate(TOOLS)])

    base = ToolCallMetric(level=level, grammar=grammar(1.0))(pred, gold)
    scaled = ToolCallMetric(level=level, grammar=grammar(factor))(pred, gold)
    for k in ("tp", "fp", "fn"):
        assert scaled.detail[k] == pytest.approx(factor * base.detail[k])
    assert scaled.f1 == pytest.approx(base.f1)


@given(CALL_LISTS, CALL_LISTS)
@settings(max_examples=100, deadline=None)
def test_optimal_never_does_worse_than_best_first(pred, gold):
    def objective(a):   # what optimal maximises: exact pairs, then agreeing weight
        return (a.n_exact, round(sum(p.comparison.tp for p in a.pairs), 9))

    greedy = align_calls(pred, gold)
    optimal = align_calls(pred, gold, strategy="optimal")
    assert objective(optimal) >= objective(greedy)
    assert (ToolCallMetric(strategy="optimal")(pred, gold).detail["tp"]
            >= ToolCallMetric()(pred, gold).detail["tp"])


def test_common_case_compares_each_name_once(monkeypatch):
    """With no repeated tool names there is nothing to choose: one comparison per pair."""
    import ek_otel.core.toolcalls as tc

    calls = {"n": 0}
    real = tc.compare_args

    def counting(*a, **k):
        calls["n"] += 1
        return real(*a, **k)

    monkeypatch.setattr(tc, "compare_args", counting)
    pred = [(f"t{i}", {"x": i}) for i in range(50)]
    gold = [(f"t{i}", {"x": i}) for i in range(49, -1, -1)]
    assert tc.align_calls(pred, gold, strategy="optimal").exact
    assert calls["n"] == 50


def test_a_plain_gold_list_holding_empty_string_is_an_exact_required_value():
    gold = [("f", {"tags": ["a", ""]})]
    assert not align_calls([("f", {})], gold).exact
    assert align_calls([("f", {"tags": ["a", ""]})], gold).exact


def test_gold_admitting_only_omission_explains_itself():
    a = align_calls([("f", {"u": "x"})], [("f", {"u": AnyOf(("",))})])
    assert "f.u: expected it omitted, got 'x'" in explain_alignment(a)


def test_schema_required_argument_must_be_passed_even_if_gold_admits_omission():
    gold = [("w", {"city": AnyOf(("NYC",)), "unit": AnyOf(("c", ""))})]
    required = tool_grammar(ToolSpec("w", params={"unit": FieldSpec("unit", required=True)}))
    assert align_calls([("w", {"city": "NYC"})], gold).exact
    a = align_calls([("w", {"city": "NYC"})], gold, grammar=required)
    assert not a.exact and a.arg_diffs[0].kind == "missing"


@given(CALL_LISTS, CALL_LISTS)
@settings(max_examples=100, deadline=None)
def test_ordered_alignment_never_finds_more_exact_pairs_than_optimal(pred, gold):
    ordered = align_calls(pred, gold, strategy="ordered")
    assert ordered.n_exact <= align_calls(pred, gold, strategy="optimal").n_exact
    indices = [(p.pred_index, p.gold_index) for p in ordered.pairs]
    assert [j for _, j in indices] == sorted(j for _, j in indices)   # order kept


def test_a_required_argument_the_gold_lets_omit_is_explained_not_contradicted():
    """BFCL's rule: ``required`` wins over ``""``. The explanation must not say "expected it omitted"."""
    from ek_otel.core.episode import Episode, Step, TaskSpec, ToolSpec, Trajectory
    from ek_otel.core.evaluate import score_episode
    from ek_otel.core.grammar import FieldSpec

    tool = ToolSpec("resolve", {"id": FieldSpec("id", "integer"),
                                "why": FieldSpec("why", "string", required=True)})
    task = TaskSpec("t", gold=[("resolve", {"id": AnyOf((7,)), "why": AnyOf(("",))})], tools=[tool])
    omitted = score_episode(Episode("t", Trajectory([Step("resolve", {"id": 7})])), task)
    assert not omitted.exact
    assert omitted.explanation == ("0/1 calls matched; resolve.why: missing, but the tool's "
                                   "schema requires it (allowed: '')")
    assert "expected it omitted" not in omitted.explanation
    passed = score_episode(Episode("t", Trajectory([Step("resolve", {"id": 7, "why": ""})])), task)
    assert passed.exact


def test_a_wrong_item_type_is_explained_as_such():
    from ek_otel.core.grammar import FieldSpec, NodeType

    spec = FieldSpec("xs", "array", schema={"type": "array", "items": {"type": "integer"}})
    grammar = GraphGrammar({"sort": NodeType("sort", {"xs": spec})})
    alignment = align_calls([("sort", {"xs": ["a", "b"]})], [("sort", {"xs": AnyOf((["a", "b"],))})],
                            grammar=grammar)
    assert explain_alignment(alignment) == (
        "0/1 calls matched; sort.xs: expected an array of integer items, got list ['a', 'b']")
