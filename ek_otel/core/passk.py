"""Trial estimators: pass@k (at least one of k trials succeeds) and pass^k (all k succeed),
unbiased over the ``n`` trials of a task of which ``c`` succeeded, and the default ``k`` of a
corpus. Pure Python, no third-party imports; :mod:`ek_otel.core.evaluate` re-exports them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


def _check_trials(n: int, c: int, k: int) -> None:
    if n < 0 or c < 0 or c > n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1 (got n={n}, c={c}, k={k})")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: the chance that at least one of ``k`` of ``n`` trials succeeds.

    ``1 - C(n-c, k) / C(n, k)`` with ``c`` successes; NaN when ``n < k``.

    Example:
        >>> pass_at_k(4, 1, 1), pass_at_k(4, 1, 4), round(pass_at_k(4, 1, 2), 3)
        (0.25, 1.0, 0.5)
        >>> pass_at_k(1, 1, 2)
        nan
    """
    _check_trials(n, c, k)
    if n < k:
        return float("nan")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k: the chance that all of ``k`` of ``n`` trials succeed.

    ``C(c, k) / C(n, k)`` with ``c`` successes; NaN when ``n < k``.

    Example:
        >>> pass_hat_k(4, 2, 1), round(pass_hat_k(4, 2, 2), 4), pass_hat_k(4, 4, 3)
        (0.5, 0.1667, 1.0)
    """
    _check_trials(n, c, k)
    if n < k:
        return float("nan")
    return math.comb(c, k) / math.comb(n, k)


def default_k(task_ids: Iterable[str]) -> int:
    """The default k: the fewest trials of any task tried more than once (1 if none repeats).

    Example:
        >>> default_k(["a", "a", "a", "b", "b", "c"]), default_k(["a", "b"])
        (2, 1)
    """
    counts: dict = {}
    for task_id in task_ids:
        counts[task_id] = counts.get(task_id, 0) + 1
    return default_k_of_trials(counts)


def default_k_of_trials(trials: Mapping[str, int]) -> int:
    """:func:`default_k` from the number of trials of each task.

    Example:
        >>> default_k_of_trials({"a": 3, "b": 2, "c": 1}), default_k_of_trials({"a": 1})
        (2, 1)
    """
    repeated = [n for n in trials.values() if n >= 2]
    return min(repeated) if repeated else 1
