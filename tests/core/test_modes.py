"""Match modes and argument modes: success follows ``match``; precision/recall/F1 do not;
the unordered modes decide by an optimal matching (checked here against every assignment)."""

from __future__ import annotations

import itertools
import random

import pytest

from ek_otel.core.arguments import compare_args
from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.modes import decide


def ep(*calls):
    return Episode("t", Trajectory([Step(tool, args) for tool, args in calls]))


def gold(*calls):
    return [(tool, {k: AnyOf((v,)) for k, v in args.items()}) for tool, args in calls]


def test_superset_allows_extras_and_says_which_mode_decided():
    task = TaskSpec("t", gold=gold(("search", {"q": "a"}), ("book", {"id": 1})), match="superset")
    s = score_episode(ep(("lookup", {}), ("search", {"q": "a"}), ("book", {"id": 1})), task)
    assert s.success and not s.exact
    assert s.explanation.startswith("superset: 2 of 2 gold calls made; 1 extra call allowed; ")
    exact = score_episode(ep(("lookup", {}), ("search", {"q": "a"}), ("book", {"id": 1})),
                          TaskSpec("t", gold=task.gold))
    assert (s.tp, s.fp, s.fn, s.precision, s.recall, s.f1) == (
        exact.tp, exact.fp, exact.fn, exact.precision, exact.recall, exact.f1)
    assert not exact.success
    missing = score_episode(ep(("search", {"q": "a"})), task)
    assert not missing.success and missing.explanation.startswith(
        "superset: 1 of 2 gold calls made; missing: book")


def test_superset_in_order_is_a_subsequence():
    task = TaskSpec("t", gold=gold(("a", {}), ("b", {})), match="superset", ordered=True)
    assert score_episode(ep(("x", {}), ("a", {}), ("x", {}), ("b", {}), ("x", {})), task).success
    s = score_episode(ep(("b", {}), ("a", {})), task)
    assert not s.success and s.explanation.startswith("superset, in order: 1 of 2 gold calls made in order")


def test_subset_allows_missing_calls_not_extras():
    task = TaskSpec("t", gold=gold(("a", {}), ("b", {})), match="subset")
    s = score_episode(ep(("b", {})), task)
    assert s.success and s.explanation.startswith("subset: 1 call, all in gold; 1 gold call not made")
    assert score_episode(ep(), task).success
    s = score_episode(ep(("a", {}), ("c", {})), task)
    assert not s.success and "outside gold: c" in s.explanation
    ordered = TaskSpec("t", gold=task.gold, match="subset", ordered=True)
    assert score_episode(ep(("b", {})), ordered).success
    assert not score_episode(ep(("b", {}), ("a", {})), ordered).success


def test_exact_is_unchanged():
    task = TaskSpec("t", gold=gold(("a", {})))
    s = score_episode(ep(("a", {}), ("b", {})), task)
    assert not s.success and s.explanation == "1/1 calls matched; spurious: b"
    assert "match" not in s.settings and "args" not in s.settings


@pytest.mark.parametrize("mode, pred, ok", [
    ("ignore", {"q": "zzz", "n": 9}, True),
    ("subset", {}, True),
    ("subset", {"q": "a", "extra": 1}, False),
    ("superset", {"q": "a", "extra": 1}, True),
    ("superset", {}, False),
    ("exact", {"q": "a", "extra": 1}, False),
])
def test_argument_modes(mode, pred, ok):
    task = TaskSpec("t", gold=gold(("search", {"q": "a"})), args=mode)
    s = score_episode(ep(("search", pred)), task)
    assert s.success is ok and s.exact is ok
    if mode != "exact":
        assert s.settings["args"] == mode


def test_argument_modes_override_per_tool_and_per_call():
    g = gold(("search", {"q": "a"}), ("book", {"id": 1}), ("book", {"id": 2}))
    task = TaskSpec("t", gold=g, args="exact", args_by_tool={"book": "ignore"}, call_args={2: "exact"})
    assert score_episode(ep(("search", {"q": "a"}), ("book", {"id": 7}), ("book", {"id": 2})), task).success
    assert not score_episode(ep(("search", {"q": "a"}), ("book", {"id": 7}), ("book", {"id": 8})), task).success
    assert score_episode(ep(), task).settings["args"] == "mixed"


def test_argument_modes_combine_with_admissible_values_and_rules():
    from ek_otel.core.rules import parse_rule

    task = TaskSpec("t", gold=[("f", {"n": parse_rule({"number": 10, "abs_tol": 1}),
                                      "u": AnyOf(("c", "celsius"))})], args="superset")
    assert score_episode(ep(("f", {"n": 10.5, "u": "celsius", "x": 1})), task).success
    assert not score_episode(ep(("f", {"n": 12, "u": "c", "x": 1})), task).success


def test_repeated_tools_are_matched_optimally_where_first_fit_fails():
    # gold 0 asks only q=a (superset args lets the call add more); gold 1 asks q=a and n=1.
    # First fit gives call 0 (q=a, n=1) to gold 0, then call 1 (q=a) fits no gold: a false fail.
    task = TaskSpec("t", gold=gold(("s", {"q": "a"}), ("s", {"q": "a", "n": 1})), match="superset",
                    args="superset")
    assert score_episode(ep(("s", {"q": "a", "n": 1}), ("s", {"q": "a"})), task).success


def _brute_superset(pred, gold_calls, fits, ordered):
    n, m = len(pred), len(gold_calls)
    for chosen in itertools.permutations(range(n), m) if m <= n else ():
        if all(pred[chosen[j]][0] == gold_calls[j][0] and fits(chosen[j], j) for j in range(m)):
            if not ordered or list(chosen) == sorted(chosen):
                return True
    return m == 0


def _brute_subset(pred, gold_calls, fits, ordered):
    n, m = len(pred), len(gold_calls)
    for chosen in itertools.permutations(range(m), n) if n <= m else ():
        if all(pred[i][0] == gold_calls[chosen[i]][0] and fits(i, chosen[i]) for i in range(n)):
            if not ordered or list(chosen) == sorted(chosen):
                return True
    return n == 0


def test_decide_agrees_with_every_assignment_on_random_cases():
    rng = random.Random(11)
    for _ in range(1500):
        def call():
            return (rng.choice("ab"), {k: rng.choice([1, 2]) for k in rng.sample("xy", rng.randint(0, 2))})
        pred = [call() for _ in range(rng.randint(0, 4))]
        gold_calls = [call() for _ in range(rng.randint(0, 4))]
        mode = rng.choice(["exact", "subset", "superset", "ignore"])

        def fits(i, j):
            return compare_args(pred[i][0], pred[i][1], gold_calls[j][1], mode=mode).exact

        for ordered in (False, True):
            assert decide(pred, gold_calls, fits, "superset", ordered=ordered).success == \
                _brute_superset(pred, gold_calls, fits, ordered)
            assert decide(pred, gold_calls, fits, "subset", ordered=ordered).success == \
                _brute_subset(pred, gold_calls, fits, ordered)


def test_optional_gold_calls_are_not_required_under_superset():
    task = TaskSpec("t", gold=gold(("lookup", {}), ("pay", {})), optional=[0], match="superset")
    assert score_episode(ep(("x", {}), ("pay", {})), task).success


def test_alternatives_pick_the_one_that_succeeds_under_the_mode():
    from ek_otel.core.episode import Alternative

    a1, a2 = gold(("refund", {}), ("notify", {})), gold(("escalate", {}))
    task = TaskSpec("t", gold=a1, alternatives=[Alternative(a1), Alternative(a2)], match="superset")
    s = score_episode(ep(("escalate", {}), ("log", {})), task)
    assert s.success and s.explanation.startswith("alternative 2 of 2: superset: 1 of 1")
