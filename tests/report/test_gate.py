"""The regression gate's paired test: exact against scipy and enumeration, "too few tasks",
and the simulations that check it neither fires on noise nor misses a real drop."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

from ek_otel.report.gate import (
    MIN_TASKS,
    decide,
    mcnemar_exact,
    paired_p_values,
    paired_test,
    power_analysis,
    sign_flip_p,
    tasks_needed,
    trials_needed,
)

#: The sizes of the false-positive simulation (issue 16).
FP_TASKS = (1, 2, 5, 10, 30)
FP_TRIALS = (1, 3)
PAIRS = 2_000


@pytest.mark.parametrize("b,c", [(0, 0), (0, 1), (1, 0), (3, 3), (0, 6), (2, 9), (10, 4),
                                 (25, 40), (0, 100), (57, 31)])
def test_mcnemar_equals_scipy_exact_binomial_test(b, c):
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_sign_flip_is_exact_enumeration_for_few_tasks():
    rng = np.random.default_rng(5)
    d = rng.choice([-1, -2 / 3, -1 / 3, 0, 1 / 3, 2 / 3, 1], size=(20, 8))
    got = sign_flip_p(d)
    for row, p in zip(d, got):
        sums = [abs(sum(s * x for s, x in zip(signs, row)))
                for signs in itertools.product((-1, 1), repeat=len(row))]
        expected = np.mean([v >= abs(row.sum()) - 1e-9 for v in sums])
        assert p == pytest.approx(expected)


def test_sign_flip_with_many_tasks_is_a_valid_random_permutation_test():
    d = np.full((1, 40), -0.5)
    p = sign_flip_p(d)[0]
    assert p == pytest.approx(1 / 10_000)  # no random pattern reaches all-negative
    assert sign_flip_p(np.zeros((1, 40)))[0] == 1.0
    assert (sign_flip_p(d) == p).all()  # fixed seed: the same report, the same p


def test_on_one_trial_per_task_sign_flip_and_mcnemar_agree():
    rng = np.random.default_rng(6)
    base = rng.integers(0, 2, size=(30, 9)).astype(float)
    cand = rng.integers(0, 2, size=(30, 9)).astype(float)
    assert paired_p_values(base, cand, single=True) == pytest.approx(
        paired_p_values(base, cand, single=False))


@pytest.mark.parametrize("n", range(1, MIN_TASKS))
def test_too_few_tasks_is_never_significant(n):
    # Even the most extreme result: every task went from always passing to always failing.
    for k in (1, 3):
        t = paired_test([1.0] * n, [0.0] * n, [k] * n, [k] * n)
        assert t.result == "too few tasks" and t.p_value is None and not t.significant
        assert f"at least {MIN_TASKS}" in t.text and "significant at 5%" in t.text
    assert MIN_TASKS == 6


def test_six_tasks_can_be_significant():
    t = paired_test([1.0] * 6, [0.0] * 6, [3] * 6, [3] * 6)
    assert t.result == "significantly worse" and t.p_value == pytest.approx(2 / 64)
    assert paired_test([0.0] * 6, [1.0] * 6, [1] * 6, [1] * 6).result == "significantly better"


def _fires(n: int, k: int, base_p: np.ndarray, cand_p: np.ndarray,
           rng: np.random.Generator) -> float:
    """The share of simulated pairs of runs where the gate's `significant` fires."""
    base = rng.binomial(k, base_p) / k
    cand = rng.binomial(k, cand_p) / k
    if n < MIN_TASKS:  # each pair through paired_test itself (it needs no computation here)
        results = [paired_test(b, c, [k] * n, [k] * n).result for b, c in zip(base, cand)]
        assert set(results) == {"too few tasks"}
        return float(np.mean([r == "significantly worse" for r in results]))
    p = paired_p_values(base, cand, single=k == 1)
    means = (cand - base).mean(axis=1)
    return float(np.mean([decide(pv, m) == "significantly worse" for pv, m in zip(p, means)]))


def test_false_positive_rate_of_two_runs_of_the_same_agent():
    """Issue 16: two runs drawn from the same agent make `significant` fire in at most 5% of
    2,000 simulated pairs, for n in {1, 2, 5, 10, 30} tasks and k in {1, 3} trials."""
    rng = np.random.default_rng(160)
    measured = {}
    for n in FP_TASKS:
        for k in FP_TRIALS:
            chances = rng.uniform(0.05, 0.95, size=(PAIRS, n))  # tasks of every difficulty
            measured[n, k] = _fires(n, k, chances, chances, rng)
    assert max(measured.values()) <= 0.05, measured


def test_power_on_a_true_drop_of_0_3():
    """Issue 16: a true drop of 0.3 in every task's success probability over 30 tasks x 3
    trials makes `significant` fire at least 80% of the time."""
    rng = np.random.default_rng(161)
    chances = rng.uniform(0.35, 0.95, size=(PAIRS, 30))
    assert _fires(30, 3, chances, chances - 0.3, rng) >= 0.8


@pytest.mark.parametrize("rate,k,drop", [(0.7, 3, 0.2), (0.9, 3, 0.2), (0.5, 3, 0.2),
                                         (0.6, 1, 0.2)])
def test_the_power_analysis_predicts_about_80_percent(rate, k, drop):
    # At the predicted number of tasks, a simulated drop is detected about 80% of the time
    # (a normal approximation of discrete tests: within 10 points).
    n = tasks_needed(drop, rate, k)
    rng = np.random.default_rng(162)
    power = _fires(n, k, np.full((PAIRS, n), rate), np.full((PAIRS, n), rate - drop), rng)
    assert 0.7 <= power <= 0.9, (n, power)


def test_power_analysis_lines():
    rows = power_analysis(0.556, 4, 2.25, 2.25)
    assert [r["drop"] for r in rows] == [0.1, 0.2]
    assert all(r["tasks_needed"] > 4 and r["trials_needed"] is None for r in rows)
    assert "no number of trials is enough" in rows[0]["text"]
    rows = power_analysis(0.7, 40, 3, 3)
    assert rows[1]["trials_needed"] is not None and "trials per task on these 40" in rows[1]["text"]
    assert tasks_needed(0.2, 0.1) is None and trials_needed(0.1, 0.05, 30) is None
    assert "cannot drop that far" in power_analysis(0.05, 30, 1, 1)[0]["text"]
    assert power_analysis(None, 0, 1, 1)[0]["text"] == "a drop of 0.1: no base success rate"


def test_false_positive_rate_when_the_runs_tried_each_task_a_different_number_of_times():
    # The sign flips are exact when both runs have the same trials per task; with 1 against
    # 3 (or 3 against 1) they still fire in at most 5% of pairs of the same agent.
    rng = np.random.default_rng(163)
    for n in (6, 10, 30):
        for kb, kc in ((1, 3), (3, 1)):
            chances = rng.uniform(0.05, 0.95, size=(PAIRS, n))
            base = rng.binomial(kb, chances) / kb
            cand = rng.binomial(kc, chances) / kc
            p = paired_p_values(base, cand, single=False)
            fired = np.mean([decide(pv, m) == "significantly worse"
                             for pv, m in zip(p, (cand - base).mean(axis=1))])
            assert fired <= 0.05, (n, kb, kc, fired)
