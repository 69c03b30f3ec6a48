"""Confidence intervals of a run's rates that keep their promise on few tasks × few trials.

**What gets an interval.** The success rate and the exact-match rate: proportions of trials.
A 95% interval is printed only where a simulation shows it covers the true rate at least 93%
of the time on the sizes people have (3 to 30 tasks, 1 or 3 trials each; the test is
``tests/report/test_stats.py``). The other figures (precision, recall, F1: ratios of weighted
call counts; mean pass@k and pass^k; dollars per solved task) get **no interval**, and the
:class:`Interval` says why (``reason``), rather than a percentile bootstrap that looks precise
on 4 tasks and is not.

**The method: Clopper-Pearson with the effective number of trials, clustered by task.** The
trials of one task are not independent (same prompt, same gold), so ``N`` trials over ``m``
tasks carry the information of ``N / deff`` independent ones, where the design effect
``deff`` is the cluster-robust variance of the rate over its binomial variance (Kish),
bounded to ``[1, N / m]`` (from independent trials to tasks whose trials always agree). The
exact (Clopper-Pearson) binomial interval is then taken on the effective counts, rounded the
conservative way (trials down, successes down for the low end and up for the high end): the
method of Korn & Graubard (1998) for proportions from clustered samples. When every trial
succeeded (or none did), nothing shows how much the trials of a task agree, and the worst case
is taken: one trial per task. One task alone is its trials (independent given the task).

Pure numpy and the standard library (no scipy: the page and ``compare`` load fast).

Example:
    >>> tasks = [TaskCounts(episodes=1, successes=s, exact=s, tp=s, fp=1 - s, fn=1 - s)
    ...          for s in [1, 1, 0, 1, 0, 1, 1, 1, 0, 1]]
    >>> ci = task_intervals(tasks)["success_rate"]
    >>> ci.estimate, round(ci.low, 3), round(ci.high, 3)
    (0.7, 0.348, 0.933)
    >>> task_intervals(tasks)["f1"].reason
    'no interval for a ratio of weighted call counts (only success and exact match get one)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..core.fields import defined_precision_recall_f1
from ..core.verdicts import task_verdict

__all__ = [
    "LEVEL",
    "TaskCounts",
    "Interval",
    "STATISTICS",
    "INTERVAL_STATISTICS",
    "clopper_pearson",
    "effective_trials",
    "clustered_interval",
    "task_intervals",
]

#: The confidence level of every interval.
LEVEL = 0.95


@dataclass(frozen=True)
class TaskCounts:
    """The summed figures of one task's trials.

    ``pass_at_k`` / ``pass_hat_k`` are the task's unbiased estimates (None when the task
    has fewer than k trials); ``dollars`` is None when a trial was not priced.

    Example:
        >>> TaskCounts(episodes=2, successes=2).passed, TaskCounts(episodes=2, successes=1).passed
        (True, False)
        >>> TaskCounts(episodes=3, successes=1).verdict
        'flaky'
    """

    episodes: int = 0
    successes: int = 0
    exact: int = 0
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    dollars: Optional[float] = None
    pass_at_k: Optional[float] = None
    pass_hat_k: Optional[float] = None

    @property
    def passed(self) -> bool:
        """True when every trial of the task succeeded."""
        return self.episodes > 0 and self.successes == self.episodes

    @property
    def rate(self) -> Optional[float]:
        """The task's success rate (None without trials)."""
        return self.successes / self.episodes if self.episodes else None

    @property
    def verdict(self) -> Optional[str]:
        """``pass``, ``flaky`` or ``fail`` (:func:`ek_otel.core.verdicts.task_verdict`)."""
        return task_verdict(self.episodes, self.successes)


@dataclass(frozen=True)
class Interval:
    """A figure and its 95% interval; ``low``/``high`` None with a ``reason`` when there is
    none.

    Example:
        >>> Interval(0.5, 0.25, 0.75).to_dict()
        {'estimate': 0.5, 'low': 0.25, 'high': 0.75, 'level': 0.95, 'method': None, 'reason': None}
    """

    estimate: Optional[float]
    low: Optional[float]
    high: Optional[float]
    level: float = LEVEL
    method: Optional[str] = None
    reason: Optional[str] = None

    def to_dict(self) -> dict:
        """``{"estimate", "low", "high", "level", "method", "reason"}``."""
        return {"estimate": self.estimate, "low": self.low, "high": self.high,
                "level": self.level, "method": self.method, "reason": self.reason}


#: The figures of a run, in the order a page shows them.
STATISTICS = ("precision", "recall", "f1", "exact_match", "success_rate", "mean_pass_at_k",
              "mean_pass_hat_k", "dollars_per_success")
#: The figures that get an interval (proportions of trials): their count attribute.
INTERVAL_STATISTICS = {"success_rate": "successes", "exact_match": "exact"}
METHOD = "Clopper-Pearson on the effective number of trials, clustered by task"
_NO_INTERVAL = {
    "precision": "no interval for a ratio of weighted call counts "
                 "(only success and exact match get one)",
    "mean_pass_at_k": "no interval for a mean of per-task pass@k estimates "
                      "(only success and exact match get one)",
    "mean_pass_hat_k": "no interval for a mean of per-task pass^k estimates "
                       "(only success and exact match get one)",
    "dollars_per_success": "no interval for dollars per solved task "
                           "(only success and exact match get one)",
}
_NO_INTERVAL["recall"] = _NO_INTERVAL["f1"] = _NO_INTERVAL["precision"]


_LOG_FACTORIALS = np.zeros(1)


def _log_factorials(n: int) -> np.ndarray:
    """``log(i!)`` for i = 0..n at least (one table, grown when a larger n comes)."""
    global _LOG_FACTORIALS
    table = _LOG_FACTORIALS  # this thread's table: another may replace the global meanwhile
    if len(table) <= n:
        size = max(n + 1, 2 * len(table))
        table = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, size, dtype=float)))))
        _LOG_FACTORIALS = table
    return table


def _binom_cdf(x: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """P(X <= x) for X ~ Binomial(n, p), element-wise over arrays of equal shape (x < n,
    0 < p < 1), from log-factorials: exact to float rounding."""
    lf = _log_factorials(int(n.max()))
    i = np.arange(int(x.max()) + 1)[None, :]
    xs, ns, ps = x[:, None], n[:, None], p[:, None]
    ni = np.maximum(ns - i, 0)
    logs = (lf[ns] - lf[np.minimum(i, ns)] - lf[ni] + i * np.log(ps) + ni * np.log1p(-ps))
    logs = np.where(i <= xs, logs, -np.inf)
    top = logs.max(axis=1, keepdims=True)
    return np.minimum(1.0, np.exp(top[:, 0]) * np.exp(logs - top).sum(axis=1))


def _solve(x: np.ndarray, n: np.ndarray, target: float) -> np.ndarray:
    """The p in (0, 1) where the decreasing ``P(X <= x | n, p)`` equals ``target``, for each
    pair (bisection, all pairs at once)."""
    lo = np.zeros(len(x))
    hi = np.ones(len(x))
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = _binom_cdf(x, n, mid) > target
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return 0.5 * (lo + hi)


def _clopper_pearson_many(x: np.ndarray, n: np.ndarray, level: float) -> tuple:
    """Arrays ``(low, high)`` of :func:`clopper_pearson` for integer arrays ``x`` and ``n``."""
    tail = (1.0 - level) / 2.0
    x = np.asarray(x, dtype=int)
    n = np.asarray(n, dtype=int)
    low = np.zeros(len(x))
    high = np.ones(len(x))
    some = x > 0  # low: P(X >= x | low) = tail, i.e. P(X <= x - 1 | low) = 1 - tail
    if some.any():
        low[some] = _solve(x[some] - 1, n[some], 1.0 - tail)
    some = x < n  # high: P(X <= x | high) = tail
    if some.any():
        high[some] = _solve(x[some], n[some], tail)
    return low, high


def clopper_pearson(x: int, n: int, level: float = LEVEL) -> tuple:
    """The exact (Clopper-Pearson) ``level`` interval of a proportion: ``x`` of ``n``.

    Raises:
        ValueError: not ``0 <= x <= n`` with ``n >= 1``.

    Example:
        >>> [round(v, 4) for v in clopper_pearson(0, 3)], [round(v, 4) for v in clopper_pearson(5, 9)]
        ([0.0, 0.7076], [0.212, 0.863])
    """
    if n < 1 or not 0 <= x <= n:
        raise ValueError(f"need 0 <= x <= n and n >= 1, got x={x}, n={n}")
    low, high = _clopper_pearson_many(np.array([x]), np.array([n]), level)
    return (float(low[0]), float(high[0]))


def effective_trials(trials: Sequence[int], successes: Sequence[int]) -> float:
    """The effective number of independent trials of tasks with ``trials[i]`` trials of
    which ``successes[i]`` succeeded: ``N / deff``, ``deff`` in ``[1, N / m]``.

    Example:
        >>> effective_trials([3, 3, 3, 3], [3, 0, 3, 0])   # trials of a task always agree
        4.0
        >>> effective_trials([3, 3, 3, 3], [2, 1, 2, 1])   # no more variation than chance
        12.0
    """
    k = np.asarray(trials, dtype=float)
    s = np.asarray(successes, dtype=float)
    return float(_effective(k[None, :], s[None, :])[0])


def _effective(k: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Row-wise :func:`effective_trials` (rows: runs; columns: tasks, 0 trials = absent)."""
    n_total = k.sum(axis=1)
    m = (k > 0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n_total > 0, s.sum(axis=1) / np.where(n_total > 0, n_total, 1), 0.0)
        resid = ((s - rate[:, None] * k) ** 2).sum(axis=1)
        robust = np.where(m > 1, m / np.maximum(m - 1, 1) * resid, 0.0) / np.maximum(n_total, 1) ** 2
        binomial = rate * (1.0 - rate) / np.maximum(n_total, 1)
        # Every trial succeeded (or none did): nothing tells whether the trials of a task
        # agree by chance, so the worst case (they always agree: one trial per task).
        deff = np.where(binomial > 0, robust / np.where(binomial > 0, binomial, 1.0),
                        np.where(m > 1, np.inf, 1.0))
    deff = np.clip(deff, 1.0, np.maximum(n_total / np.maximum(m, 1), 1.0))
    return n_total / deff


def clustered_interval(trials: Sequence[int], successes: Sequence[int],
                       level: float = LEVEL) -> tuple:
    """``(low, high)`` of the rate ``sum(successes) / sum(trials)``, clustered by task (see
    the module docstring); ``(None, None)`` without trials.

    Example:
        >>> [round(v, 3) for v in clustered_interval([3, 3, 3, 3], [3, 0, 3, 0])]
        [0.068, 0.932]
        >>> [round(v, 3) for v in clustered_interval([4], [4])]
        [0.398, 1.0]
    """
    total = int(sum(trials))
    if total <= 0:
        return (None, None)
    return _interval_of(total, int(sum(successes)), effective_trials(trials, successes), level)


def _interval_of(total: int, hits: int, n_eff: float, level: float) -> tuple:
    n = max(1, int(math.floor(n_eff + 1e-9)))
    rate = hits / total
    x_low = int(math.floor(rate * n + 1e-9))
    x_high = min(n, int(math.ceil(rate * n - 1e-9)))
    return (clopper_pearson(x_low, n, level)[0], clopper_pearson(x_high, n, level)[1])


def batch_intervals(trials: np.ndarray, successes: np.ndarray, level: float = LEVEL) -> tuple:
    """``(low, high)`` arrays of :func:`clustered_interval` for many runs at once (rows:
    runs; columns: tasks): what the simulation tests check.

    Example:
        >>> low, high = batch_intervals(np.array([[3, 3, 3, 3]]), np.array([[3, 0, 3, 0]]))
        >>> round(float(low[0]), 3), round(float(high[0]), 3)
        (0.068, 0.932)
    """
    k = np.asarray(trials, dtype=float)
    s = np.asarray(successes, dtype=float)
    n = np.maximum(1, np.floor(_effective(k, s) + 1e-9)).astype(int)
    totals = k.sum(axis=1)
    rate = np.where(totals > 0, s.sum(axis=1) / np.maximum(totals, 1), 0.0)
    x_low = np.floor(rate * n + 1e-9).astype(int)
    x_high = np.minimum(n, np.ceil(rate * n - 1e-9)).astype(int)
    low = np.empty(len(k))
    high = np.empty(len(k))
    for column, x, out in ((0, x_low, low), (1, x_high, high)):
        pairs, inverse = np.unique(np.stack([x, n], axis=1), axis=0, return_inverse=True)
        bounds = _clopper_pearson_many(pairs[:, 0], pairs[:, 1], level)[column]
        out[:] = bounds[inverse.reshape(-1)]
    return low, high


def _estimate(tasks: Sequence[TaskCounts], name: str) -> Optional[float]:
    n = sum(t.episodes for t in tasks)
    if name in ("precision", "recall", "f1"):
        if not tasks:
            return None
        figures = defined_precision_recall_f1(sum(t.tp for t in tasks), sum(t.fp for t in tasks),
                                      sum(t.fn for t in tasks))
        return figures[("precision", "recall", "f1").index(name)]
    if name in INTERVAL_STATISTICS:
        return sum(getattr(t, INTERVAL_STATISTICS[name]) for t in tasks) / n if n else None
    if name in ("mean_pass_at_k", "mean_pass_hat_k"):
        values = [getattr(t, name[5:]) for t in tasks if getattr(t, name[5:]) is not None]
        return sum(values) / len(values) if values else None
    if name == "dollars_per_success":
        successes = sum(t.successes for t in tasks)
        if not tasks or any(t.dollars is None for t in tasks) or not successes:
            return None
        return sum(t.dollars for t in tasks) / successes
    raise KeyError(name)


def task_intervals(tasks: Sequence[TaskCounts], names: Sequence[str] = STATISTICS, *,
                   level: float = LEVEL) -> dict:
    """name -> :class:`Interval` for each figure of :data:`STATISTICS` in ``names``.

    Success and exact match get :func:`clustered_interval`; the other figures their estimate
    and the reason they have no interval. No trials: no interval, and it says so.

    Example:
        >>> iv = task_intervals([TaskCounts(2, 1, 1), TaskCounts(2, 2, 2)], ["success_rate"])
        >>> iv["success_rate"].estimate, iv["success_rate"].method is not None
        (0.75, True)
        >>> task_intervals([], ["success_rate"])["success_rate"].reason
        'no trials'
    """
    out = {}
    trials = [t.episodes for t in tasks]
    for name in names:
        estimate = _estimate(tasks, name)
        if name not in INTERVAL_STATISTICS:
            out[name] = Interval(estimate, None, None, level, reason=_NO_INTERVAL[name])
        elif estimate is None:
            out[name] = Interval(None, None, None, level, reason="no trials")
        else:
            hits = [getattr(t, INTERVAL_STATISTICS[name]) for t in tasks]
            low, high = clustered_interval(trials, hits, level)
            out[name] = Interval(estimate, low, high, level, method=METHOD)
    return out
