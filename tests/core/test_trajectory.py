"""Trajectory similarity: weighted edit distance between call sequences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel import TrajectoryMetric as PublicTrajectoryMetric
from ek_otel.core.episode import FieldSpec, Step, ToolSpec, Trajectory, tool_grammar
from ek_otel.core.trajectory import TrajectoryMetric, trajectory_distance, trajectory_similarity


def lcs(a, b):
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            dp[i][j] = (dp[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1]
                        else max(dp[i - 1][j], dp[i][j - 1]))
    return dp[-1][-1]


NAMES = st.lists(st.sampled_from("abcd"), max_size=7)


@given(NAMES, NAMES)
@settings(max_examples=150, deadline=None)
def test_unit_weights_without_args_give_order_aware_f1(p, g):
    sim = trajectory_similarity([(t, {}) for t in p], [(t, {}) for t in g])
    want = 1.0 if not p and not g else 2 * lcs(p, g) / (len(p) + len(g))
    assert sim == pytest.approx(want)


CALLS = st.lists(st.tuples(st.sampled_from("ab"),
                           st.dictionaries(st.sampled_from("xy"), st.integers(0, 2), max_size=2)),
                 max_size=5)


@given(CALLS, CALLS)
@settings(max_examples=150, deadline=None)
def test_similarity_is_bounded_symmetric_in_size_and_one_only_when_equal(p, g):
    s = trajectory_similarity(p, g)
    assert 0.0 <= s <= 1.0
    assert trajectory_similarity(p, p) == 1.0
    if s == 1.0:
        assert [t for t, _ in p] == [t for t, _ in g]


def test_partial_argument_disagreement_is_a_partial_substitution():
    assert trajectory_similarity([("f", {"x": 1, "y": 2})], [("f", {"x": 1, "y": 3})]) == 0.5
    assert trajectory_similarity([("f", {"x": 1})], [("g", {"x": 1})]) == 0.0


def test_grammar_weights_drive_insert_delete_and_argument_costs():
    g = tool_grammar(ToolSpec("send", destructive=True),
                     ToolSpec("refund", params={"amount": FieldSpec("amount", importance=3.0)}))
    assert trajectory_distance([("search", {})], [("search", {}), ("send", {})], grammar=g) \
        == (10.0, 12.0)
    d, worst = trajectory_distance([("refund", {"amount": 1, "memo": "m"})],
                                   [("refund", {"amount": 2, "memo": "m"})], grammar=g)
    assert (d, worst) == (2.0 * 3.0 / 4.0, 2.0)


def test_metric_score_and_inputs():
    s = TrajectoryMetric()(Trajectory([Step("a"), Step("b")]), [("a", {})])
    assert s.metric == "trajectory" and s.value == pytest.approx(2 / 3)
    assert s.detail == {"distance": 1.0, "max_distance": 3.0, "n_pred": 2, "n_gold": 1}
    assert PublicTrajectoryMetric is TrajectoryMetric
    assert TrajectoryMetric()([], []).value == 1.0


@given(CALLS, CALLS, st.floats(0.5, 20.0))
@settings(max_examples=100, deadline=None)
def test_uniform_grammar_scaling_leaves_similarity_unchanged(p, g, factor):
    def grammar(scale):
        return tool_grammar(*[ToolSpec(t, importance=scale * (i + 1),
                                       params={a: FieldSpec(a, importance=scale * (j + 1))
                                               for j, a in enumerate("xy")})
                              for i, t in enumerate("ab")])

    d1, w1 = trajectory_distance(p, g, grammar=grammar(1.0))
    d2, w2 = trajectory_distance(p, g, grammar=grammar(factor))
    assert d2 == pytest.approx(factor * d1) and w2 == pytest.approx(factor * w1)
