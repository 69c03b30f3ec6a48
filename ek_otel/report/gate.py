"""Is a candidate run significantly worse than its base? Paired tests on shared tasks, and the
number of tasks a difference needs.

**The test.** Each shared task gives one paired difference: its candidate success rate minus
its base success rate. Two runs of the same agent make each difference as likely negative as
positive, so under "no change" every sign is equally likely:

- one trial per task in both runs: the exact **McNemar** test (the tasks that flipped one
  way, ``b``, against the other, ``c``: a binomial test at one half);
- otherwise a **paired sign-flip permutation test** on the per-task rate differences (the
  statistic: their sum; exact over all 2^n sign patterns up to :data:`EXACT_UP_TO` tasks,
  else :data:`N_FLIPS` random patterns with a fixed seed, ``p = (1 + hits) / (1 + flips)``).

Both are two-sided at :data:`ALPHA`. **Too few tasks**: with ``n`` tasks the smallest
p-value either test can give is ``2 / 2^n``, so below :data:`MIN_TASKS` (6: 2/64 = 0.031)
no result can be significant, and :func:`paired_test` says so instead of testing.

**Power.** :func:`tasks_needed` and :func:`trials_needed` give how many tasks (at the
observed trials per task) or how many trials per task (on the observed tasks) a drop of the
success rate by ``drop`` needs to be detected with 80% power, from the observed base rate
(normal approximation of the paired test; at least :data:`MIN_TASKS` tasks).

Pure numpy and the standard library.

Example:
    >>> paired_test([0.0] * 3, [1.0] * 3, [1] * 3, [1] * 3).result
    'too few tasks'
    >>> t = paired_test([1.0] * 8, [0.0] * 8, [1] * 8, [1] * 8)
    >>> t.result, t.name, round(t.p_value, 4)
    ('significantly worse', 'exact McNemar', 0.0078)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Optional

import numpy as np

__all__ = ["ALPHA", "MIN_TASKS", "EXACT_UP_TO", "N_FLIPS", "SEED", "POWER", "DROPS",
           "mcnemar_exact", "sign_flip_p", "paired_p_values", "decide", "PairedTest", "paired_test", "tasks_needed",
           "trials_needed", "power_analysis", "MAX_TRIALS"]

#: The significance level of the gate (two-sided).
ALPHA = 0.05
#: The fewest paired tasks with which any result can be significant at :data:`ALPHA`.
MIN_TASKS = next(n for n in range(1, 64) if 2.0 / 2 ** n < ALPHA)
#: Up to this many tasks the sign-flip test enumerates every sign pattern.
EXACT_UP_TO = 14
#: Random sign patterns beyond :data:`EXACT_UP_TO` tasks.
N_FLIPS = 9_999
#: The seed of the random sign patterns: the same reports give the same p-value.
SEED = 20_261_201
#: The power of :func:`power_analysis`, and the drops it is asked about.
POWER = 0.8
DROPS = (0.1, 0.2)
#: The most trials per task :func:`trials_needed` considers.
MAX_TRIALS = 1_000


def mcnemar_exact(b: int, c: int) -> float:
    """The exact two-sided McNemar p-value for ``b`` and ``c`` discordant pairs.

    ``min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``; 1.0 without any
    discordant pair.

    Raises:
        ValueError: a negative count.

    Example:
        >>> mcnemar_exact(0, 0), mcnemar_exact(3, 3), round(mcnemar_exact(0, 5), 4)
        (1.0, 1.0, 0.0625)
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2.0 * tail / 2 ** n)


def _all_signs(n: int) -> np.ndarray:
    codes = np.arange(2 ** n, dtype=np.int64)[:, None]
    return np.where((codes >> np.arange(n)) & 1, -1.0, 1.0)


def sign_flip_p(differences: np.ndarray, *, n_flips: int = N_FLIPS, seed: int = SEED) -> np.ndarray:
    """Two-sided p-values of the paired sign-flip permutation test, one per row of
    ``differences`` (rows: comparisons; columns: the tasks' paired differences).

    Exact (every sign pattern) up to :data:`EXACT_UP_TO` columns, else ``n_flips`` random
    patterns drawn with ``seed``, shared by every row.

    Example:
        >>> [round(float(p), 4) for p in sign_flip_p(np.array([[-1.0] * 6, [0.5, -0.5] * 3]))]
        [0.0312, 1.0]
    """
    d = np.atleast_2d(np.asarray(differences, dtype=float))
    n = d.shape[1]
    if n == 0:
        return np.ones(d.shape[0])
    observed = np.abs(d.sum(axis=1))
    tolerance = 1e-9 * np.maximum(1.0, np.abs(d).sum(axis=1))
    if n <= EXACT_UP_TO:
        signs = _all_signs(n)
        hits = (np.abs(d @ signs.T) >= (observed - tolerance)[:, None]).sum(axis=1)
        return hits / signs.shape[0]
    rng = np.random.default_rng(seed)
    hits = np.zeros(d.shape[0])
    for start in range(0, n_flips, 2_000):
        signs = rng.choice((-1.0, 1.0), size=(min(2_000, n_flips - start), n))
        hits += (np.abs(d @ signs.T) >= (observed - tolerance)[:, None]).sum(axis=1)
    return (1.0 + hits) / (1.0 + n_flips)


@dataclass(frozen=True)
class PairedTest:
    """The outcome of :func:`paired_test`.

    ``result`` is ``significantly worse``, ``significantly better``, ``not significant`` or
    ``too few tasks`` (then ``p_value`` is None and ``tasks_needed`` says how many).

    Example:
        >>> PairedTest("exact McNemar", 3, None, -0.3, "too few tasks").significant
        False
    """

    name: str
    tasks: int
    p_value: Optional[float]
    mean_difference: Optional[float]
    result: str
    tasks_needed: int = MIN_TASKS
    alpha: float = ALPHA

    @property
    def significant(self) -> bool:
        """True for ``significantly worse`` or ``significantly better``."""
        return self.result.startswith("significantly")

    @property
    def text(self) -> str:
        """One line for the terminal and the page.

        Example:
            >>> PairedTest("exact McNemar", 2, None, -0.5, "too few tasks").text
            'too few tasks: 2 shared, at least 6 are needed for any difference to be significant at 5%'
        """
        if self.result == "too few tasks":
            return (f"too few tasks: {self.tasks} shared, at least {self.tasks_needed} are "
                    f"needed for any difference to be significant at {self.alpha:.0%}")
        return f"{self.result} ({self.name}, p = {self.p_value:.3g}, {self.tasks} tasks)"

    def to_dict(self) -> dict:
        """The JSON form (``compare --json``'s ``test``)."""
        return {"name": self.name, "tasks": self.tasks, "p_value": self.p_value,
                "alpha": self.alpha, "mean_difference": self.mean_difference,
                "result": self.result, "tasks_needed": self.tasks_needed, "text": self.text}


def paired_test(base_rates: Sequence[float], candidate_rates: Sequence[float],
                base_trials: Sequence[int], candidate_trials: Sequence[int]) -> PairedTest:
    """Test the candidate against the base on the tasks both ran (``[i]``: the same task).

    Example:
        >>> t = paired_test([1, 1, 0.5, 1, 1, 1, 0.5], [0.5, 0, 0, 0.5, 0, 0.5, 0],
        ...                 [2] * 7, [2] * 7)
        >>> t.result, t.name
        ('significantly worse', 'paired sign-flip permutation (exact)')
    """
    base = np.asarray(base_rates, dtype=float)
    cand = np.asarray(candidate_rates, dtype=float)
    n = len(base)
    single = all(k == 1 for k in base_trials) and all(k == 1 for k in candidate_trials)
    if single:
        name = "exact McNemar"
    else:
        name = "paired sign-flip permutation (" + (
            "exact" if n <= EXACT_UP_TO else f"{N_FLIPS:,} random sign patterns") + ")"
    mean = float((cand - base).mean()) if n else None
    if n < MIN_TASKS:
        return PairedTest(name, n, None, mean, "too few tasks")
    p = float(paired_p_values(base[None, :], cand[None, :], single=single)[0])
    return PairedTest(name, n, p, mean, decide(p, mean))


def paired_p_values(base_rates: np.ndarray, candidate_rates: np.ndarray, *,
                    single: bool) -> np.ndarray:
    """The two-sided p-values of :func:`paired_test`, one per row (rows: comparisons;
    columns: tasks), vectorised: McNemar when ``single`` (one trial per task: rates 0 or 1),
    else the sign-flip test. NaN with fewer than :data:`MIN_TASKS` columns.

    Example:
        >>> paired_p_values(np.ones((2, 6)), np.zeros((2, 6)), single=True).round(4).tolist()
        [0.0312, 0.0312]
    """
    base = np.atleast_2d(np.asarray(base_rates, dtype=float))
    cand = np.atleast_2d(np.asarray(candidate_rates, dtype=float))
    if base.shape[1] < MIN_TASKS:
        return np.full(base.shape[0], np.nan)
    if not single:
        return sign_flip_p(cand - base)
    b = ((base == 1) & (cand == 0)).sum(axis=1)
    c = ((base == 0) & (cand == 1)).sum(axis=1)
    table = {}
    out = np.empty(len(b))
    for i, pair in enumerate(zip(b.tolist(), c.tolist())):
        if pair not in table:
            table[pair] = mcnemar_exact(*pair)
        out[i] = table[pair]
    return out


def decide(p_value: float, mean_difference: float) -> str:
    """``significantly worse`` / ``significantly better`` (p below :data:`ALPHA`, by the
    sign of the mean difference) or ``not significant``.

    Example:
        >>> decide(0.01, -0.2), decide(0.01, 0.2), decide(0.2, -0.2)
        ('significantly worse', 'significantly better', 'not significant')
    """
    if p_value < ALPHA and mean_difference < 0:
        return "significantly worse"
    if p_value < ALPHA and mean_difference > 0:
        return "significantly better"
    return "not significant"


_Z = NormalDist().inv_cdf


def _spread(rate: float, drop: float, base_trials: float, candidate_trials: float,
            power: float) -> float:
    """``z_a * sd0 + z_b * sd1`` of one task's paired difference (normal approximation):
    ``sd1`` its standard deviation with the drop, ``sd0`` its root mean square, the spread
    the sign flips see (they keep each difference's size, drop included)."""
    after = rate - drop
    sd1 = math.sqrt(rate * (1 - rate) / base_trials + after * (1 - after) / candidate_trials)
    sd0 = math.sqrt(sd1 * sd1 + drop * drop)
    return _Z(1 - ALPHA / 2) * sd0 + _Z(power) * sd1


def tasks_needed(drop: float, base_rate: float, base_trials: float = 1.0,
                 candidate_trials: Optional[float] = None, *, power: float = POWER) -> Optional[int]:
    """How many paired tasks detect a drop of ``drop`` in success rate with ``power``, at
    these trials per task; None when the base rate cannot drop that far.

    Example:
        >>> tasks_needed(0.2, 0.7, 3), tasks_needed(0.2, 0.1, 3)
        (36, None)
    """
    candidate_trials = base_trials if candidate_trials is None else candidate_trials
    if base_rate - drop < 0 or drop <= 0:
        return None
    n = _spread(base_rate, drop, base_trials, candidate_trials, power) ** 2 / (drop * drop)
    return max(MIN_TASKS, math.ceil(n - 1e-9))


def trials_needed(drop: float, base_rate: float, tasks: int, *,
                  power: float = POWER) -> Optional[int]:
    """How many trials per task (in both runs) detect a drop of ``drop`` on ``tasks`` paired
    tasks with ``power``; None with fewer than :data:`MIN_TASKS` tasks, when the base rate
    cannot drop that far, or when no number up to :data:`MAX_TRIALS` is enough (the sign
    flips keep each difference's size, so more trials cannot make up for too few tasks).

    Example:
        >>> trials_needed(0.1, 0.7, 20), trials_needed(0.1, 0.7, 3)
        (25, None)
    """
    if tasks < MIN_TASKS or base_rate - drop < 0 or drop <= 0:
        return None
    for k in range(1, MAX_TRIALS + 1):
        if tasks_needed(drop, base_rate, k, power=power) <= tasks:
            return k
    return None


def power_analysis(base_rate: Optional[float], tasks: int, base_trials: float,
                   candidate_trials: float, drops: Sequence[float] = DROPS) -> list:
    """For each drop: the tasks needed at the observed trials per task, and the trials per
    task needed on the observed tasks (``compare``'s power lines).

    Example:
        >>> [r["tasks_needed"] for r in power_analysis(0.7, 4, 2.0, 2.0)]
        [183, 51]
    """
    rows = []
    for drop in drops:
        if base_rate is None:
            rows.append({"drop": drop, "tasks_needed": None, "trials_needed": None,
                         "text": f"a drop of {drop:g}: no base success rate"})
            continue
        n = tasks_needed(drop, base_rate, base_trials, candidate_trials)
        k = trials_needed(drop, base_rate, tasks)
        if n is None:
            text = f"a drop of {drop:g}: the base success rate {base_rate:.3f} cannot drop that far"
        else:
            per = f"{base_trials:.3g}" if base_trials == candidate_trials else \
                f"{base_trials:.3g} and {candidate_trials:.3g}"
            text = f"a drop of {drop:g}: {n} tasks at {per} trial{'s' if base_trials != 1 else ''} each"
            if k is not None:
                text += f", or {k} trial{'s' if k != 1 else ''} per task on these {tasks} tasks"
            else:
                text += f" (on {tasks} tasks no number of trials is enough)"
        rows.append({"drop": drop, "tasks_needed": n, "trials_needed": k, "text": text})
    return rows
