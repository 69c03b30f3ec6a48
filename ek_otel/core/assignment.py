"""Assignment algorithms the call matchers share: a maximum-weight bipartite assignment
(the Hungarian algorithm) for unordered matching, and a weighted longest common subsequence for
ordered matching. Pure Python, no third-party imports.

Both work on indexes only: the callers (:mod:`ek_otel.core.pairing`,
:mod:`ek_otel.core.correctness`) build the weights from their own call comparisons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Optional


def hungarian_max(weight: Sequence[Sequence[float]]) -> list:
    """Maximum-weight assignment of a rectangular matrix: ``min(rows, cols)`` ``(row, col)`` pairs.

    The O(n^2 m) shortest-augmenting-path form of the Hungarian algorithm, on ``-weight``.

    Example:
        >>> sorted(hungarian_max([[3, 2], [2, 0]]))     # greedy would take 3 + 0
        [(0, 1), (1, 0)]
        >>> sorted(hungarian_max([[1, 5, 2]]))
        [(0, 1)]
    """
    n = len(weight)
    m = len(weight[0]) if n else 0
    if n == 0 or m == 0:
        return []
    transposed = n > m
    if transposed:
        weight = [list(col) for col in zip(*weight)]
        n, m = m, n
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)  # owner[j]: the row assigned to column j (1-based), 0 = free
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        owner[0] = row
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta = inf
            j1 = 0
            w_row = weight[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = -w_row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while True:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = [(owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j]]
    if transposed:
        pairs = [(c, r) for r, c in pairs]
    return pairs


def weighted_lcs(n: int, m: int, gain: Callable[[int, int], Optional[tuple]]) -> list:
    """Order-preserving pairs ``(i, j)`` (both increasing) with the largest summed gain.

    ``gain(i, j)`` is None when ``i`` and ``j`` may not be paired, else a tuple of numbers;
    gains add element by element (floats rounded to 9 places, so that sums in different
    orders compare equal) and totals compare lexicographically. Among equal totals the
    pairs nearest the end are kept. This is the one weighted longest common subsequence of
    the package: the ``ordered`` strategy here and the ordered mode of
    :class:`~ek_otel.core.correctness.ToolCorrectnessMetric` both use it.

    Example:
        >>> weighted_lcs(3, 3, lambda i, j: (1,) if "abc"[i] == "cab"[j] else None)
        [(0, 1), (1, 2)]
        >>> weighted_lcs(2, 2, lambda i, j: (1.0 if i == j else 0.5,))
        [(0, 0), (1, 1)]
    """
    best = [[()] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, prev = best[i], best[i - 1]
        for j in range(1, m + 1):
            cand = max(prev[j], row[j - 1])
            g = gain(i - 1, j - 1)
            if g is not None:
                d = prev[j - 1] or (0,) * len(g)
                sums = []
                for a, b in zip(d, g):
                    total = a + b
                    sums.append(round(total, 9) if isinstance(total, float) else total)
                diag = tuple(sums)
                if diag > cand:
                    cand = diag
            row[j] = cand
    out = []
    i, j = n, m
    while i > 0 and j > 0:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        elif best[i][j] == best[i][j - 1]:
            j -= 1
        else:
            out.append((i - 1, j - 1))
            i -= 1
            j -= 1
    out.reverse()
    return out
