"""The ek_trials rules: what each accepts, at the sizes people run (k from 1 to 8), checked
against a brute-force count over the trials themselves; and clear errors on bad markers."""

from __future__ import annotations

import itertools

import pytest

from ek_otel.core.verdicts import task_verdict
from ek_otel.testing.trials import TrialRule, TrialsOutcome, rule_of_marker


def _all_j_subsets_pass(outcomes: tuple, j: int) -> float:
    """The share of the j-trial subsets in which every trial passed (what pass^j estimates)."""
    subsets = list(itertools.combinations(outcomes, j))
    return sum(all(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("k", range(1, 9))
def test_every_rule_at_every_count(k):
    for passed in range(k + 1):
        outcomes = (True,) * passed + (False,) * (k - passed)
        assert TrialRule(k).judge(passed) is (passed == k)
        assert task_verdict(k, passed) == ("pass" if passed == k else "fail" if passed == 0
                                            else "flaky")
        for rate in (0.5, 0.6, 0.75, 0.8, 1.0):
            # the share, not a rounded one: 4 of 5 meets 0.8, 3 of 5 does not meet 0.75
            assert TrialRule(k, min_success_rate=rate).judge(passed) is (passed >= rate * k - 1e-9)
        for j in range(1, k + 1):
            share = _all_j_subsets_pass(outcomes, j)
            for threshold in (0.1, 0.3, 0.5, 0.9, 1.0):
                rule = TrialRule(k, pass_hat_k=threshold, j=j)
                assert rule.judge(passed) is (share >= threshold - 1e-12), (k, passed, j, threshold)
            assert f"pass^{j} = {share:.3f}" in TrialRule(k, pass_hat_k=0.5, j=j).describe(passed)


def test_the_issue_example_asks_for_every_trial():
    rule = rule_of_marker((), {"k": 5, "pass_hat_k": 0.8})
    assert [rule.judge(c) for c in range(6)] == [False] * 5 + [True]


@pytest.mark.parametrize("args, kwargs, message", [
    ((), {}, "k (the number of trials) must be an integer >= 1, got None"),
    ((2.5,), {}, "got 2.5"),
    ((True,), {}, "got True"),
    ((3,), {"k": 3}, "k given twice"),
    ((3, 4), {}, "takes k as its one positional argument"),
    ((3,), {"min_success_rate": 0}, "min_success_rate must be a number in (0, 1], got 0"),
    ((3,), {"min_success_rate": float("nan")}, "got nan"),
    ((3,), {"pass_hat_k": 1.5}, "pass_hat_k must be a number in (0, 1], got 1.5"),
    ((3,), {"j": 2}, "j is the size of pass^j: it goes with pass_hat_k"),
    ((3,), {"pass_hat_k": 0.5, "j": 0}, "j must be an integer from 1 to k (3), got 0"),
    ((3,), {"retries": 2}, "unknown argument(s) retries"),
])
def test_bad_markers_are_named(args, kwargs, message):
    with pytest.raises(ValueError, match="^t::x: ek_trials: ") as info:
        rule_of_marker(args, kwargs, where="t::x: ek_trials")
    assert message in str(info.value)


def test_the_failure_message_lists_the_trials():
    outcome = TrialsOutcome(TrialRule(4, min_success_rate=0.75), 2, False,
                            ((1, "AssertionError: a\nthe table"), (3, "RuntimeError: b")))
    assert outcome.verdict == "flaky"
    assert outcome.message().splitlines() == [
        "ek_trials: flaky, 2 of 4 trials passed; success rate 0.500, needs at least 0.75",
        "trial 1 failed:", "  AssertionError: a", "  the table",
        "trial 3 failed: RuntimeError: b"]
    assert TrialRule(10, pass_hat_k=0.5, j=3).judge(9)      # C(9,3)/C(10,3) = 0.7
