"""Confidence intervals and significance for reports: task-level bootstrap and exact McNemar.

**Why over tasks.** The trials of one task are not independent (same prompt, same gold), so
the unit of resampling is the task: a bootstrap resample draws tasks with replacement and
keeps *all* the trials of each drawn task. The figures of a resample are then made exactly
as the report makes them (micro precision/recall/F1 from summed counts, rates from summed
successes), so an interval is about the very figure printed beside it.

**Paired.** To compare two runs on the tasks both scored, one resample draws the *same*
tasks for both and takes the difference (candidate minus base): the task-to-task variation
they share cancels out, which is what makes a paired interval narrower than two separate
ones.

**McNemar.** A task *passes* when every one of its trials succeeded. Over the shared tasks,
``b`` tasks passed in the base and fail in the candidate, ``c`` the reverse; the exact
two-sided McNemar p-value is the binomial test of ``b`` out of ``b + c`` at one half.

Intervals are 95% percentile intervals from :data:`N_RESAMPLES` resamples drawn with a fixed
seed (:data:`SEED`): the same report gives the same interval every time.

Example:
    >>> tasks = [TaskCounts(episodes=1, successes=s, tp=s, fp=1 - s, fn=1 - s)
    ...          for s in [1, 1, 0, 1, 0, 1, 1, 1, 0, 1]]
    >>> ci = bootstrap_intervals(tasks)["success_rate"]
    >>> ci.estimate, ci.low <= 0.7 <= ci.high
    (0.7, True)
    >>> mcnemar_exact(0, 6) < 0.05 < mcnemar_exact(1, 4)
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy.stats import binom

from ..core.fields import precision_recall_f1

__all__ = [
    "SEED",
    "N_RESAMPLES",
    "LEVEL",
    "TaskCounts",
    "Interval",
    "STATISTICS",
    "PAIRED_STATISTICS",
    "bootstrap_intervals",
    "paired_bootstrap",
    "mcnemar_exact",
]

#: The seed of every resampling: reports are reproducible.
SEED = 20_261_201
#: Bootstrap resamples per interval.
N_RESAMPLES = 2_000
#: The confidence level of every interval.
LEVEL = 0.95
#: Resamples drawn at once (bounds memory: chunk x tasks weights).
_CHUNK = 100

# Columns of the per-task count matrix.
_COLUMNS = ("episodes", "successes", "exact", "tp", "fp", "fn", "dollars",
            "pass_at_k", "has_pass_at_k", "pass_hat_k", "has_pass_hat_k")
_COL = {name: i for i, name in enumerate(_COLUMNS)}


@dataclass(frozen=True)
class TaskCounts:
    """The summed figures of one task's trials: what a resample draws as one unit.

    ``pass_at_k`` / ``pass_hat_k`` are the task's unbiased estimates (None when the task
    has fewer than k trials); ``dollars`` is None when a trial was not priced.

    Example:
        >>> TaskCounts(episodes=2, successes=2).passed, TaskCounts(episodes=2, successes=1).passed
        (True, False)
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
        """True when every trial of the task succeeded (the pass/fail of McNemar)."""
        return self.episodes > 0 and self.successes == self.episodes


@dataclass(frozen=True)
class Interval:
    """A figure and its 95% bootstrap interval (``low``/``high`` None when undefined).

    Example:
        >>> Interval(0.5, 0.25, 0.75).excludes_zero, Interval(0.1, -0.05, 0.3).excludes_zero
        (True, False)
    """

    estimate: Optional[float]
    low: Optional[float]
    high: Optional[float]
    level: float = LEVEL

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of 0."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict:
        """``{"estimate", "low", "high", "level"}``.

        Example:
            >>> Interval(0.5, 0.25, 0.75).to_dict()
            {'estimate': 0.5, 'low': 0.25, 'high': 0.75, 'level': 0.95}
        """
        return {"estimate": self.estimate, "low": self.low, "high": self.high,
                "level": self.level}


def _matrix(tasks: Sequence[TaskCounts]) -> np.ndarray:
    rows = []
    for t in tasks:
        rows.append((
            t.episodes, t.successes, t.exact, t.tp, t.fp, t.fn,
            math.nan if t.dollars is None else t.dollars,
            0.0 if t.pass_at_k is None else t.pass_at_k, t.pass_at_k is not None,
            0.0 if t.pass_hat_k is None else t.pass_hat_k, t.pass_hat_k is not None,
        ))
    return np.asarray(rows, dtype=float).reshape(len(rows), len(_COLUMNS))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _prf(sums: np.ndarray, which: int) -> np.ndarray:
    """Micro precision (0), recall (1) or F1 (2) per row of summed counts, by the core's
    :func:`~ek_otel.core.fields.precision_recall_f1` (one definition of the empty cases)."""
    tp, fp, fn = sums[:, _COL["tp"]], sums[:, _COL["fp"]], sums[:, _COL["fn"]]
    return np.fromiter((precision_recall_f1(a, b, c)[which] for a, b, c in zip(tp, fp, fn)),
                       float, len(tp))


def _col(name: str) -> Callable[[np.ndarray], np.ndarray]:
    return lambda sums: sums[:, _COL[name]]


#: name -> function of summed task counts (one row per resample) -> the figure.
STATISTICS: Mapping[str, Callable[[np.ndarray], np.ndarray]] = {
    "precision": lambda s: _prf(s, 0),
    "recall": lambda s: _prf(s, 1),
    "f1": lambda s: _prf(s, 2),
    "exact_match": lambda s: _ratio(s[:, _COL["exact"]], s[:, _COL["episodes"]]),
    "success_rate": lambda s: _ratio(s[:, _COL["successes"]], s[:, _COL["episodes"]]),
    "mean_pass_at_k": lambda s: _ratio(s[:, _COL["pass_at_k"]], s[:, _COL["has_pass_at_k"]]),
    "mean_pass_hat_k": lambda s: _ratio(s[:, _COL["pass_hat_k"]], s[:, _COL["has_pass_hat_k"]]),
    "dollars_per_success": lambda s: _ratio(s[:, _COL["dollars"]], s[:, _COL["successes"]]),
}
#: The statistics compared between two runs.
PAIRED_STATISTICS = ("f1", "success_rate")


def _resampled_sums(matrix: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Sums of the columns over ``n_resamples`` resamples of the rows (tasks), with
    replacement; each resample draws as many tasks as there are."""
    rng = np.random.default_rng(seed)
    n = matrix.shape[0]
    out = np.empty((n_resamples, matrix.shape[1]))
    uniform = np.full(n, 1.0 / n)
    for start in range(0, n_resamples, _CHUNK):
        m = min(_CHUNK, n_resamples - start)
        weights = rng.multinomial(n, uniform, size=m).astype(float)
        out[start:start + m] = weights @ np.nan_to_num(matrix, nan=0.0)
        if np.isnan(matrix).any():  # a column with an undefined task is undefined where drawn
            drawn_nan = weights @ np.isnan(matrix).astype(float)
            out[start:start + m][drawn_nan > 0] = np.nan
    return out


def _percentiles(values: np.ndarray, level: float) -> tuple:
    finite = values[np.isfinite(values)]
    if finite.size < 0.5 * values.size or finite.size == 0:
        return (None, None)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return (float(low), float(high))


def _estimate(matrix: np.ndarray, statistic: Callable) -> Optional[float]:
    value = float(statistic(matrix.sum(axis=0, keepdims=True))[0])
    return value if math.isfinite(value) else None


def bootstrap_intervals(
    tasks: Sequence[TaskCounts],
    names: Sequence[str] = tuple(STATISTICS),
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict:
    """name -> :class:`Interval` for each statistic of :data:`STATISTICS` in ``names``.

    The estimate is the figure over all tasks; the interval the percentile interval over
    task resamples. A figure undefined on the tasks (no pass@k, no dollars) has
    ``estimate`` None; no tasks give no interval.

    Example:
        >>> tasks = [TaskCounts(1, 1, 1, 1.0, 0.0, 0.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)]
        >>> iv = bootstrap_intervals(tasks, ["f1"])["f1"]
        >>> iv.estimate, iv.low, iv.high
        (0.5, 0.0, 1.0)
    """
    matrix = _matrix(tasks)
    out = {}
    sums = _resampled_sums(matrix, n_resamples, seed) if len(tasks) else None
    for name in names:
        statistic = STATISTICS[name]
        estimate = _estimate(matrix, statistic) if len(tasks) else None
        if estimate is None or sums is None:
            out[name] = Interval(estimate, None, None, level)
            continue
        low, high = _percentiles(statistic(sums), level)
        out[name] = Interval(estimate, low, high, level)
    return out


def paired_bootstrap(
    base: Sequence[TaskCounts],
    candidate: Sequence[TaskCounts],
    names: Sequence[str] = PAIRED_STATISTICS,
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict:
    """name -> :class:`Interval` of ``candidate - base``, resampling the shared tasks jointly.

    ``base[i]`` and ``candidate[i]`` must be the same task.

    Raises:
        ValueError: the two sequences differ in length.

    Example:
        >>> same = [TaskCounts(1, 1, 1, 1.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)]
        >>> d = paired_bootstrap(same, same)["success_rate"]
        >>> d.estimate, d.low, d.high
        (0.0, 0.0, 0.0)
    """
    if len(base) != len(candidate):
        raise ValueError(f"paired tasks differ in number: {len(base)} and {len(candidate)}")
    width = len(_COLUMNS)
    matrix = np.hstack([_matrix(base), _matrix(candidate)])
    sums = _resampled_sums(matrix, n_resamples, seed) if len(base) else None
    total = matrix.sum(axis=0, keepdims=True)
    out = {}
    for name in names:
        statistic = STATISTICS[name]
        if sums is None:
            out[name] = Interval(None, None, None, level)
            continue
        estimate = float(statistic(total[:, width:])[0] - statistic(total[:, :width])[0])
        diffs = statistic(sums[:, width:]) - statistic(sums[:, :width])
        low, high = _percentiles(diffs, level)
        out[name] = Interval(estimate if math.isfinite(estimate) else None, low, high, level)
    return out


def mcnemar_exact(b: int, c: int) -> float:
    """The exact two-sided McNemar p-value for ``b`` and ``c`` discordant pairs.

    ``min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``; 1.0 without any
    discordant pair.

    Example:
        >>> mcnemar_exact(0, 0), mcnemar_exact(3, 3), round(mcnemar_exact(0, 5), 4)
        (1.0, 1.0, 0.0625)
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.cdf(min(b, c), n, 0.5)))
