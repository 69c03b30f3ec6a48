"""Intervals of a run's rates: exact Clopper-Pearson against scipy, the clustering by task,
and the simulation that checks their promise on the sizes people have."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from ek_otel.core.fields import precision_recall_f1
from ek_otel.report.stats import (
    STATISTICS,
    TaskCounts,
    batch_intervals,
    clopper_pearson,
    clustered_interval,
    effective_trials,
    task_intervals,
)

#: The sizes of the coverage simulation (issue 16): tasks, trials per task, success chance.
SIM_TASKS = (3, 5, 10, 30)
SIM_TRIALS = (1, 3)
SIM_RATES = (0.1, 0.5, 0.9)
SIM_RUNS = 2_000


@pytest.mark.parametrize("x,n", [(0, 1), (1, 1), (0, 3), (2, 3), (5, 9), (1, 10), (29, 30),
                                 (17, 60), (500, 1000), (0, 250), (40_000, 100_000)])
def test_clopper_pearson_equals_scipy_beta_quantiles(x, n):
    low = 0.0 if x == 0 else beta.ppf(0.025, x, n - x + 1)
    high = 1.0 if x == n else beta.ppf(0.975, x + 1, n - x)
    assert clopper_pearson(x, n) == pytest.approx((low, high), abs=1e-9)


def test_clopper_pearson_rejects_bad_counts():
    for x, n in ((-1, 3), (4, 3), (0, 0)):
        with pytest.raises(ValueError):
            clopper_pearson(x, n)


def test_trials_that_always_agree_count_as_one_trial_per_task():
    # 4 tasks, 3 identical trials each: the information of 4 trials, not 12.
    assert effective_trials([3] * 4, [3, 0, 3, 0]) == 4.0
    assert clustered_interval([3] * 4, [3, 0, 3, 0]) == pytest.approx(clopper_pearson(2, 4))
    # Trials that vary within tasks as chance would: 12 trials.
    assert effective_trials([3] * 4, [2, 1, 2, 1]) == 12.0
    assert clustered_interval([3] * 4, [2, 1, 2, 1]) == pytest.approx(clopper_pearson(6, 12))


def test_one_task_is_its_trials():
    assert clustered_interval([5], [4]) == pytest.approx(clopper_pearson(4, 5))
    assert clustered_interval([], []) == (None, None)


def test_the_issue_example_is_no_longer_falsely_precise():
    # Issue 16: 4 tasks (3, 2, 2, 2 trials), 5 of 9 successes; the old bootstrap printed
    # "exact match 0.556, 95% CI 0.500 - 0.636" and "pass@2 1.000, 95% CI 1.000 - 1.000".
    tasks = [TaskCounts(3, 2, 2, pass_at_k=1.0), TaskCounts(2, 1, 1, pass_at_k=1.0),
             TaskCounts(2, 1, 1, pass_at_k=1.0), TaskCounts(2, 1, 1, pass_at_k=1.0)]
    out = task_intervals(tasks)
    exact = out["exact_match"]
    assert exact.estimate == pytest.approx(5 / 9)
    assert exact.low < 0.25 and exact.high > 0.85  # 4 tasks: a wide interval
    assert out["mean_pass_at_k"].estimate == 1.0 and out["mean_pass_at_k"].low is None
    assert "no interval" in out["mean_pass_at_k"].reason


def test_figures_without_a_valid_interval_say_why():
    tasks = [TaskCounts(2, 1, 1, 1.0, 1.0, 1.0, dollars=0.5, pass_at_k=1.0, pass_hat_k=0.0)]
    out = task_intervals(tasks)
    assert list(out) == list(STATISTICS)
    for name in ("precision", "recall", "f1", "mean_pass_at_k", "mean_pass_hat_k",
                 "dollars_per_success"):
        iv = out[name]
        assert iv.low is None and iv.high is None and iv.reason.startswith("no interval"), name
    assert out["f1"].estimate == pytest.approx(precision_recall_f1(1.0, 1.0, 1.0)[2])
    assert out["dollars_per_success"].estimate == 0.5
    assert out["success_rate"].method.startswith("Clopper-Pearson")
    assert task_intervals([])["success_rate"].reason == "no trials"


def test_batch_intervals_equal_one_at_a_time():
    rng = np.random.default_rng(3)
    k = rng.integers(1, 5, size=(50, 6))
    s = rng.binomial(k, 0.6)
    low, high = batch_intervals(k, s)
    for i in range(50):
        assert (low[i], high[i]) == pytest.approx(clustered_interval(k[i], s[i]))


def _coverage(n: int, k: int, p: float, rng: np.random.Generator, spread: float = 0.0,
              all_or_nothing: bool = False) -> float:
    """The share of SIM_RUNS simulated runs whose interval covers the true rate ``p``.

    ``spread`` > 0 draws each task's own chance from a Beta distribution of mean ``p``
    (concentration 1 / spread): tasks of different difficulty, trials correlated within a task.
    ``all_or_nothing``: each task always succeeds (chance ``p``) or always fails.
    """
    trials = np.full((SIM_RUNS, n), k)
    if all_or_nothing:
        chances = (rng.random((SIM_RUNS, n)) < p).astype(float)
    elif spread:
        chances = rng.beta(p / spread, (1 - p) / spread, size=(SIM_RUNS, n))
    else:
        chances = np.full((SIM_RUNS, n), p)
    successes = rng.binomial(trials, chances)
    low, high = batch_intervals(trials, successes)
    return float(np.mean((low <= p) & (p <= high)))


def test_simulated_coverage_of_every_printed_interval():
    """Issue 16: 2,000 simulated runs for each n in {3, 5, 10, 30} tasks x k in {1, 3} trials
    x p in {0.1, 0.5, 0.9}: the 95% interval covers the true success rate >= 93% of the time.
    Exact match is the same computation on its own counts."""
    rng = np.random.default_rng(16)
    measured = {}
    for n in SIM_TASKS:
        for k in SIM_TRIALS:
            for p in SIM_RATES:
                measured[n, k, p] = _coverage(n, k, p, rng)
    low = {key: value for key, value in measured.items() if value < 0.93}
    assert not low, f"coverage below 93%: {low}"


def test_simulated_coverage_with_tasks_of_different_difficulty():
    # Tasks drawn with their own chance (Beta, mean p): trials agree within a task more
    # than chance would, which is what the clustering is for.
    rng = np.random.default_rng(17)
    measured = {(n, k, p): _coverage(n, k, p, rng, spread=0.5)
                for n in SIM_TASKS for k in SIM_TRIALS for p in SIM_RATES}
    low = {key: value for key, value in measured.items() if value < 0.93}
    assert not low, f"coverage below 93%: {low}"


def test_simulated_coverage_when_the_trials_of_a_task_always_agree():
    # The extreme of clustering: k trials of a task are worth one; a run where every trial
    # passed (or failed) gets the interval of one trial per task.
    rng = np.random.default_rng(18)
    measured = {(n, p): _coverage(n, 3, p, rng, all_or_nothing=True)
                for n in SIM_TASKS for p in SIM_RATES}
    low = {key: value for key, value in measured.items() if value < 0.93}
    assert not low, f"coverage below 93%: {low}"


def test_a_run_where_every_trial_passed_is_as_uncertain_as_its_tasks():
    assert clustered_interval([3] * 4, [3] * 4) == pytest.approx(clopper_pearson(4, 4))
    assert clustered_interval([3] * 4, [0] * 4) == pytest.approx(clopper_pearson(0, 4))
