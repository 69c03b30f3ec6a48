"""Bootstrap intervals and McNemar, against closed forms and scipy's exact binomial test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from ek_otel.core.fields import precision_recall_f1
from ek_otel.report.stats import (
    TaskCounts,
    bootstrap_intervals,
    mcnemar_exact,
    paired_bootstrap,
)


@pytest.mark.parametrize("b,c", [(0, 0), (0, 1), (1, 0), (3, 3), (0, 6), (2, 9), (10, 4),
                                 (25, 40), (0, 100), (57, 31)])
def test_mcnemar_equals_scipy_exact_binomial_test(b, c):
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def _single_trials(successes):
    return [TaskCounts(episodes=1, successes=s, exact=s, tp=float(s), fp=float(1 - s),
                       fn=float(1 - s)) for s in successes]


def test_bootstrap_interval_of_a_proportion_matches_the_normal_closed_form():
    # n independent tasks, one trial each: the bootstrap distribution of the success rate
    # is Binomial(n, p_hat)/n, whose 95% interval is p_hat +- 1.96 sqrt(p(1-p)/n).
    n, p = 400, 0.3
    tasks = _single_trials([1] * int(n * p) + [0] * int(n * (1 - p)))
    iv = bootstrap_intervals(tasks, ["success_rate"], n_resamples=8000)["success_rate"]
    half = 1.959964 * math.sqrt(p * (1 - p) / n)
    assert iv.estimate == pytest.approx(p)
    assert iv.low == pytest.approx(p - half, abs=0.006)
    assert iv.high == pytest.approx(p + half, abs=0.006)


def test_the_trials_of_a_task_are_resampled_together():
    outcomes = [1] * 30 + [0] * 70
    one = _single_trials(outcomes)
    # The same tasks with 4 identical trials each: as uncertain as one trial each, since the
    # trials of a task are not independent evidence.
    four = [TaskCounts(episodes=4, successes=4 * s, exact=4 * s, tp=4.0 * s,
                       fp=4.0 * (1 - s), fn=4.0 * (1 - s)) for s in outcomes]
    a = bootstrap_intervals(one, ["success_rate", "f1"])
    b = bootstrap_intervals(four, ["success_rate", "f1"])
    for name in ("success_rate", "f1"):
        assert (a[name].low, a[name].high) == pytest.approx((b[name].low, b[name].high))
    # Had the 400 trials been resampled one by one, the interval would be half as wide.
    width = b["success_rate"].high - b["success_rate"].low
    assert width > 1.7 * 1.959964 * math.sqrt(0.3 * 0.7 / 400) * 2 / 2


def test_intervals_are_reproducible_and_contain_the_estimate():
    rng = np.random.default_rng(1)
    tasks = [TaskCounts(episodes=3, successes=int(s), exact=int(s), tp=float(t), fp=float(f),
                        fn=float(m), dollars=0.01 * (1 + s), pass_at_k=float(s > 0),
                        pass_hat_k=float(s == 3))
             for s, t, f, m in zip(rng.integers(0, 4, 50), rng.integers(0, 6, 50),
                                   rng.integers(0, 3, 50), rng.integers(0, 3, 50))]
    first = bootstrap_intervals(tasks)
    assert first == bootstrap_intervals(tasks)
    for name, iv in first.items():
        assert iv.low <= iv.estimate <= iv.high, name
    tp = sum(t.tp for t in tasks)
    fp = sum(t.fp for t in tasks)
    fn = sum(t.fn for t in tasks)
    assert first["f1"].estimate == pytest.approx(precision_recall_f1(tp, fp, fn)[2])
    assert first["precision"].estimate == pytest.approx(precision_recall_f1(tp, fp, fn)[0])


def test_undefined_figures_have_no_interval():
    tasks = [TaskCounts(episodes=1, successes=0, dollars=None)]
    out = bootstrap_intervals(tasks)
    assert out["dollars_per_success"].estimate is None
    assert out["mean_pass_at_k"].low is None
    assert bootstrap_intervals([])["f1"].estimate is None


def test_paired_bootstrap_of_identical_runs_is_zero_and_of_a_worse_run_excludes_zero():
    base = _single_trials([1] * 40 + [0] * 10)
    same = paired_bootstrap(base, base)
    assert all(iv.estimate == 0 and iv.low == 0 and iv.high == 0 for iv in same.values())
    worse = _single_trials([1] * 25 + [0] * 25)
    diff = paired_bootstrap(base, worse)["success_rate"]
    assert diff.estimate == pytest.approx(-0.3)
    assert diff.high < 0 and diff.excludes_zero


def test_pairing_narrows_the_interval():
    # Hard tasks stay hard: the candidate loses 5 of 60 tasks. Unpaired, the two runs' task
    # variation adds up; paired, it cancels.
    base = _single_trials([1] * 40 + [0] * 20)
    cand = _single_trials([1] * 35 + [0] * 25)
    paired = paired_bootstrap(base, cand)["success_rate"]
    a = bootstrap_intervals(base, ["success_rate"])["success_rate"]
    b = bootstrap_intervals(cand, ["success_rate"])["success_rate"]
    unpaired_half = math.hypot((a.high - a.low) / 2, (b.high - b.low) / 2)
    assert (paired.high - paired.low) / 2 < 0.6 * unpaired_half


def test_paired_bootstrap_needs_the_same_tasks():
    with pytest.raises(ValueError):
        paired_bootstrap(_single_trials([1]), _single_trials([1, 0]))
