"""score_episode, evaluate, pass@k / pass^k."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel import evaluate as public_evaluate
from ek_otel.core.cost import ModelPrice, PriceTable
from ek_otel.core.episode import (
    AnyOf,
    Cost,
    Episode,
    FieldSpec,
    Provenance,
    RunProvenance,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
)
from ek_otel import evaluate  # the corpus loop (scoring) over core's score_episode
from ek_otel.core.evaluate import pass_at_k, pass_hat_k, score_episode
from ek_otel.core.reports import EvaluationReport
from ek_otel.core.tally import CutFigures
from ek_otel.core.scores import ArgDiff, EpisodeScore
from ek_otel.errors import ComparabilityError, EkOtelError, InputError

REFUND = ToolSpec("refund", params={"amount": FieldSpec("amount", "number", importance=20.0)},
                  destructive=True)
NOTIFY = ToolSpec("notify", params={"to": FieldSpec("to", "string")})
TASK = TaskSpec("r1", gold=[("refund", {"amount": AnyOf((10,))}), ("notify", {"to": "ann"})],
                tools=[REFUND, NOTIFY], slice="billing", value=3.0)


def ep(task_id, *calls, model="m", cost=None, trace="", **run):
    return Episode(task_id, Trajectory([Step(t, a) for t, a in calls]), cost=cost,
                   run=RunProvenance(model=model, **run), provenance=Provenance(trace_id=trace))


# -- estimators ---------------------------------------------------------------------------


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n),
                                                     st.integers(1, n))))
@settings(max_examples=100, deadline=None)
def test_estimators_equal_the_average_over_all_k_subsets(nck):
    n, c, k = nck
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
    assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


def test_estimators_are_nan_when_fewer_trials_than_k_and_reject_nonsense():
    assert math.isnan(pass_at_k(2, 1, 3)) and math.isnan(pass_hat_k(2, 1, 3))
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 0)


# -- score_episode ------------------------------------------------------------------------


def test_score_episode_fills_every_field():
    e = ep("r1", ("refund", {"amount": 100}), ("delete_all", {}), trace="ab" * 16,
           cost=Cost(input_tokens=2_000, output_tokens=100))
    s = score_episode(e, TASK, prices=PriceTable({"m": ModelPrice(1.0, 10.0)}))
    assert isinstance(s, EpisodeScore)
    assert (s.task_id, s.trace_id, s.level) == ("r1", "ab" * 16, "call")
    assert (s.tp, s.fp, s.fn) == (0.0, 10.0 + 1.0, 10.0 + 1.0)
    assert s.arg_diffs == (ArgDiff("refund", "amount", "wrong_value", (10,), 100, 20.0),)
    assert s.missing_calls == (("notify", {"to": "ann"}),)
    assert s.spurious_calls == (("delete_all", {}),)
    assert not s.exact and not s.success and s.label == "fail"
    assert s.explanation == ("0/2 calls matched; refund.amount: expected 10, got 100; "
                             "missing: notify; spurious: delete_all")
    assert s.cost == e.cost
    assert s.dollars == pytest.approx((2_000 * 1.0 + 100 * 10.0) / 1e6)
    assert s.settings == {"level": "call", "strategy": "optimal", "ordered": False,
                          "canonicalizer": "default", "type_checks": True,
                          "multi_turn": False, "args_captured": True}


def test_score_episode_exact_success():
    e = ep("r1", ("notify", {"to": " ANN"}), ("refund", {"amount": 10.0}))
    s = score_episode(e, TASK)
    assert s.exact and s.success and s.f1 == 1.0
    assert s.explanation == "2/2 calls matched exactly"


def test_type_checks_come_from_task_tools():
    s = score_episode(ep("r1", ("notify", {"to": "ann"}), ("refund", {"amount": "10"})), TASK)
    assert s.arg_diffs[0].kind == "wrong_type" and not s.exact


def test_arg_level_and_canonicalizer_name():
    s = score_episode(ep("r1", ("notify", {"to": "ANN"})), TASK, level="arg", canonicalizer=str)
    assert s.level == "arg" and s.settings["canonicalizer"] == "str"
    assert s.tp == 1.0            # the notify tool; "ANN" != "ann" under str
    assert s.fn == 1.0 + 10.0 + 20.0


def test_dollars_never_fabricated():
    priced = PriceTable({"m": ModelPrice(1.0, 1.0)})
    no_cost = ep("r1")
    assert score_episode(no_cost, TASK, prices=priced).dollars is None
    assert score_episode(no_cost, TASK, prices=priced).cost == Cost()
    assert score_episode(ep("r1", cost=Cost(input_tokens=5)), TASK).dollars is None
    unknown = ep("r1", model="other", cost=Cost(input_tokens=5))
    assert score_episode(unknown, TASK, prices=priced).dollars is None
    assert score_episode(ep("r1", model="", cost=Cost(input_tokens=5)), TASK,
                         prices=priced).dollars is None
    assert score_episode(ep("r1", cost=Cost()), TASK, prices=priced).dollars == 0.0
    mapping = {"m": ModelPrice(1.0, 1.0)}
    assert score_episode(ep("r1", cost=Cost(input_tokens=10**6)), TASK,
                         prices=mapping).dollars == 1.0


def test_ordered_task_uses_an_order_respecting_alignment():
    task = TaskSpec("o", gold=[("a", {}), ("b", {})], ordered=True)
    assert score_episode(ep("o", ("a", {}), ("b", {})), task).exact
    s = score_episode(ep("o", ("b", {}), ("a", {})), task)
    assert not s.exact and s.settings["strategy"] == "ordered"
    unordered = TaskSpec("o", gold=[("a", {}), ("b", {})])
    assert score_episode(ep("o", ("b", {}), ("a", {})), unordered).exact


def test_multi_turn_task_flattens_turns_and_needs_every_turn():
    task = TaskSpec("mt", turns=[[("cd", {"d": "x"})], [], [("ls", {})]])
    assert score_episode(ep("mt", ("cd", {"d": "x"}), ("ls", {})), task).exact
    s = score_episode(ep("mt", ("cd", {"d": "x"})), task)
    assert not s.exact and s.missing_calls == (("ls", {}),)
    assert s.settings["multi_turn"] is True


def test_uncaptured_arguments_are_said_in_the_explanation():
    e = Episode("r1", Trajectory([Step("notify", args_captured=False)]))
    s = score_episode(e, TASK)
    assert "not captured" in s.explanation and s.settings["args_captured"] is False


def test_irrelevance_task_expects_no_call():
    task = TaskSpec("irr", gold=[])
    assert score_episode(ep("irr"), task).exact
    s = score_episode(ep("irr", ("search", {})), task)
    assert not s.exact and s.explanation == "no call expected; spurious: search"


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        score_episode(ep("r1"), TASK, level="x")
    with pytest.raises(ValueError):
        score_episode(ep("r1"), TASK, strategy="x")


# -- evaluate -----------------------------------------------------------------------------

T2 = TaskSpec("s1", gold=[("search", {"q": "cats"})], slice="search")
T3 = TaskSpec("s2", gold=[("search", {"q": "dogs"})], value=0.5)
GOOD_R1 = (("refund", {"amount": 10}), ("notify", {"to": "ann"}))


def corpus():
    return [
        ep("r1", *GOOD_R1, cost=Cost(input_tokens=1000, output_tokens=10)),
        ep("r1", ("refund", {"amount": 99}), cost=Cost(input_tokens=500)),
        ep("r1", *GOOD_R1, cost=Cost(input_tokens=100)),
        ep("s1", ("search", {"q": "cats"}), cost=Cost(output_tokens=50)),
        ep("s2", ("search", {"q": "cats"}), ("x", {}), cost=Cost(input_tokens=7)),
    ]


def test_evaluate_micro_figures_equal_the_sum_of_episode_counts():
    r = evaluate(corpus(), [TASK, T2, T3], k=2)
    scores = r.scores
    assert len(scores) == 5 and isinstance(r, EvaluationReport)
    tp, fp, fn = (sum(getattr(s, a) for s in scores) for a in ("tp", "fp", "fn"))
    assert (r.overall.tp, r.overall.fp, r.overall.fn) == (tp, fp, fn)
    assert r.precision == pytest.approx(tp / (tp + fp))
    assert r.recall == pytest.approx(tp / (tp + fn))
    assert r.exact_rate == pytest.approx(sum(s.exact for s in scores) / 5)
    assert r.n_episodes == 5


def test_evaluate_cuts_pass_k_and_value_weighting():
    r = evaluate(corpus(), [TASK, T2, T3], k=2)
    assert set(r.per_task) == {"r1", "s1", "s2"}
    assert r.per_task["r1"].n == 3 and r.per_task["r1"].successes == 2
    assert set(r.per_slice) == {"billing", "search"}     # s2 has no slice
    assert r.per_slice["search"] == r.per_task["s1"]
    assert r.pass_at_k["r1"] == pytest.approx(pass_at_k(3, 2, 2))
    assert r.pass_hat_k["r1"] == pytest.approx(pass_hat_k(3, 2, 2))
    assert math.isnan(r.pass_at_k["s1"])                  # one trial, k = 2
    assert r.mean_pass_at_k == pytest.approx(pass_at_k(3, 2, 2))
    values = [3.0, 3.0, 3.0, 1.0, 0.5]
    won = [3.0, 0.0, 3.0, 1.0, 0.0]
    assert r.value_weighted_success == pytest.approx(sum(won) / sum(values))
    assert r.cost == sum((e.cost for e in corpus()), Cost())


def test_evaluate_dollars_total_and_per_success():
    prices = PriceTable({"m": ModelPrice(1.0, 2.0)})
    r = evaluate(corpus(), [TASK, T2, T3], prices=prices)
    total = (1000 + 10 * 2 + 500 + 100 + 50 * 2 + 7) / 1e6
    assert r.dollars == pytest.approx(total) and r.n_unpriced == 0
    assert r.dollars_per_success == pytest.approx(total / 3)
    unpriced = evaluate(corpus() + [ep("s1", ("search", {"q": "cats"}))], [TASK, T2, T3],
                        prices=prices)
    # the total leaves the unpriced episode out (a lower bound), and says so
    assert unpriced.dollars == pytest.approx(total) and unpriced.n_unpriced == 1
    assert unpriced.n_cost_incomplete == 0
    assert unpriced.dollars_per_success == pytest.approx(total / 3)  # the successes it covers
    assert unpriced.task_dollars["s1"] is None
    assert evaluate(corpus(), [TASK, T2, T3]).dollars is None


def test_unmatched_episodes_are_reported_not_dropped():
    r = evaluate(corpus() + [ep("nope", trace="cd" * 16)], [TASK, T2, T3])
    assert r.n_episodes == 5
    assert [(u.task_id, u.trace_id) for u in r.unmatched] == [("nope", "cd" * 16)]


def test_tasks_as_mapping_and_duplicate_ids():
    r = evaluate(corpus(), {"r1": TASK, "s1": T2, "s2": T3})
    assert r.n_episodes == 5
    with pytest.raises(InputError):
        evaluate([], [T2, T2])


def test_comparability_refusal_and_grouping():
    mixed = corpus() + [ep("s1", ("search", {"q": "cats"}), model="other")]
    with pytest.raises(ComparabilityError) as info:
        evaluate(mixed, [TASK, T2, T3])
    assert isinstance(info.value, EkOtelError) and "group_by_provenance" in str(info.value)
    seeds = [ep("s1", ("search", {"q": "cats"}), seed=s, temperature=t)
             for s, t in ((1, 0.1), (2, 0.9))]
    assert evaluate(seeds, [T2]).n_episodes == 2           # seed/temperature may differ
    r = evaluate(mixed, [TASK, T2, T3], group_by_provenance=True)
    assert [g.key[0] for g in r.groups] == ["m", "other"]
    assert [g.report.n_episodes for g in r.groups] == [5, 1]
    assert r.groups[1].report.per_task["s1"].successes == 1
    assert len(r.comparability_keys) == 2


def test_empty_corpus():
    r = evaluate([], [TASK])
    assert r.n_episodes == 0 and r.f1 is None and r.exact_rate is None
    assert r.mean_pass_at_k is None and r.dollars is None and r.cost == Cost()
    assert CutFigures.of([]) == CutFigures()


def test_bad_k_is_refused():
    with pytest.raises(ValueError):
        evaluate([], [TASK], k=0)


def test_to_dict_is_json_ready():
    r = evaluate(corpus(), [TASK, T2, T3], k=2, prices={"m": ModelPrice(1.0, 1.0)})
    d = r.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back["aggregate"]["f1"] == pytest.approx(r.f1)
    assert back["pass_at_k"]["s1"] is None
    assert back["episodes"][1]["label"] == "fail"
    assert back["episodes"][1]["arg_diffs"][0]["expected"] == [10]
    assert back["aggregate"]["k"] == back["k"] == 2
    assert set(back) == {"aggregate", "headline", "episodes", "per_task", "per_slice", "k", "pass_at_k",
                         "pass_hat_k", "unmatched", "provenance"}   # the one report shape


def test_public_name():
    assert public_evaluate is evaluate


def test_aggregate_scores_gives_what_evaluate_gives():
    from ek_otel.core.aggregate import aggregate_scores, comparability_key

    tasks = {"r1": TASK, "s1": T2, "s2": T3}
    scored = [(score_episode(e, tasks[e.task_id]), comparability_key(e)) for e in corpus()]
    direct = aggregate_scores(scored, tasks, k=2)
    via = evaluate(corpus(), tasks, k=2)
    assert direct.overall == via.overall and direct.per_task == via.per_task
    assert direct.scores == via.scores
    with pytest.raises(InputError):
        aggregate_scores([(score_episode(ep("x"), TaskSpec("x")), ())], tasks)
    with pytest.raises(ComparabilityError):
        aggregate_scores([(scored[0][0], ("a",)), (scored[0][0], ("b",))], tasks)
    grouped = aggregate_scores([(scored[0][0], ("a",)), (scored[0][0], ("b",))], tasks,
                               group_by_provenance=True)
    assert len(grouped.groups) == 2 and grouped.n_episodes == 2


def test_k_defaults_to_the_fewest_trials_of_a_repeated_task():
    r = evaluate(corpus(), [TASK, T2, T3])
    assert r.k == 3                     # r1 has 3 trials; s1 and s2 one each
    assert r.pass_hat_k["r1"] == pytest.approx(pass_hat_k(3, 2, 3))
    assert evaluate(corpus()[3:], [TASK, T2, T3]).k == 1
