"""pair_indices: which predicted call goes with which gold call, for each strategy."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.arguments import compare_args
from ek_otel.core.assignment import weighted_lcs
from ek_otel.core.pairing import STRATEGIES, check_strategy, pair_indices

VALUES = st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"]))
CALLS = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]),
                           st.dictionaries(st.sampled_from(["p", "q"]), VALUES, max_size=2)),
                 max_size=6)


def _comparer(pred, gold):
    return lambda i, j: compare_args(pred[i][0], pred[i][1], gold[j][1])


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="strategy must be one of"):
        check_strategy("greedy")
    with pytest.raises(ValueError, match="strategy must be one of"):
        pair_indices([], [], lambda i, j: None, "greedy")


@given(CALLS, CALLS, st.sampled_from(STRATEGIES))
@settings(max_examples=200, deadline=None)
def test_pairs_join_one_call_each_to_the_same_tool(pred, gold, strategy):
    pairs = pair_indices(pred, gold, _comparer(pred, gold), strategy)
    assert len({i for i, _, _ in pairs}) == len({j for _, j, _ in pairs}) == len(pairs)
    assert all(pred[i][0] == gold[j][0] for i, j, _ in pairs)
    assert all(c == compare_args(pred[i][0], pred[i][1], gold[j][1]) for i, j, c in pairs)
    if strategy != "ordered":  # every call is paired while a gold call to its tool is left
        for tool in {t for t, _ in pred}:
            n_pred = sum(t == tool for t, _ in pred)
            n_gold = sum(t == tool for t, _ in gold)
            assert sum(pred[i][0] == tool for i, _, _ in pairs) == min(n_pred, n_gold)


@given(CALLS, CALLS)
@settings(max_examples=200, deadline=None)
def test_the_ordered_shortcut_finds_what_the_lcs_table_finds(pred, gold):
    """The in-order fast path (no repeated tool name) must give the weighted LCS's total."""
    compare = _comparer(pred, gold)
    ordered = pair_indices(pred, gold, compare, "ordered")
    assert [j for _, j, _ in ordered] == sorted(j for _, j, _ in ordered)

    def gain(i, j):
        if pred[i][0] != gold[j][0]:
            return None
        c = compare(i, j)
        return (1 if c.exact else 0, c.tp, 1)

    def total(pairs):
        return tuple(sum(g) for g in zip(*(gain(i, j) for i, j in pairs))) or (0, 0, 0)

    assert total([(i, j) for i, j, _ in ordered]) == total(weighted_lcs(len(pred), len(gold), gain))


def test_optimal_takes_the_assignment_when_a_greedy_pick_blocks_two_pairs():
    gold = [("f", {"a": 1, "b": 1, "c": 1, "d": 0}), ("f", {"a": 1, "b": 1, "c": 9, "d": 9})]
    pred = [("f", {"a": 1, "b": 1, "c": 1, "d": 5}), ("f", {"a": 2, "b": 2, "c": 1, "d": 0})]
    compare = _comparer(pred, gold)
    assert sorted((i, j) for i, j, _ in pair_indices(pred, gold, compare, "best_first")) == [(0, 0), (1, 1)]
    assert sorted((i, j) for i, j, _ in pair_indices(pred, gold, compare, "optimal")) == [(0, 1), (1, 0)]


def test_past_max_call_pairs_the_calls_are_paired_in_call_order_and_the_explanation_says_so():
    from ek_otel.core.toolcalls import align_calls, explain_alignment
    from ek_otel.limits import MAX_CALL_PAIRS

    n = 800  # 800 x 800 calls of one tool: was 31 s and 621 MiB (a table of every pair)
    assert n * n > MAX_CALL_PAIRS
    pred = [("a", {"x": (i + 1) % n}) for i in range(n)]
    gold = [("a", {"x": i}) for i in range(n)]
    for strategy in ("best_first", "optimal", "ordered"):
        alignment = align_calls(pred, gold, strategy=strategy)
        assert alignment.capped, strategy
        assert [(p.pred_index, p.gold_index) for p in alignment.pairs] == [(i, i) for i in range(n)], strategy
        assert explain_alignment(alignment).endswith(
            f"too many calls to weigh every pairing (over {MAX_CALL_PAIRS} pairs): paired in call order")


def test_at_max_call_pairs_every_pairing_is_weighed():
    from ek_otel.core.toolcalls import align_calls, explain_alignment

    pred = [("a", {"x": (i + 1) % 100}) for i in range(100)]
    gold = [("a", {"x": i}) for i in range(100)]
    for strategy in ("best_first", "optimal", "ordered"):
        alignment = align_calls(pred, gold, strategy=strategy)
        assert not alignment.capped and "too many" not in explain_alignment(alignment)
        if strategy != "ordered":
            assert alignment.n_exact == 100, strategy
