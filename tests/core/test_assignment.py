"""hungarian_max and weighted_lcs: the assignment algorithms the call matchers share."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.assignment import hungarian_max, weighted_lcs


@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=6)
       .filter(lambda rows: len({len(r) for r in rows}) == 1))
@settings(max_examples=150, deadline=None)
def test_hungarian_is_a_maximum_assignment(rows):
    n, m = len(rows), len(rows[0])
    pairs = hungarian_max(rows)
    assert len(pairs) == min(n, m)
    assert len({r for r, _ in pairs}) == len({c for _, c in pairs}) == len(pairs)
    got = sum(rows[r][c] for r, c in pairs)
    if n <= m:
        best = max(sum(rows[i][p[i]] for i in range(n))
                   for p in itertools.permutations(range(m), n))
    else:
        best = max(sum(rows[p[j]][j] for j in range(m))
                   for p in itertools.permutations(range(n), m))
    assert got == best


def test_weighted_lcs_prefers_the_larger_gain_over_more_pairs():
    # pairing 0-1 alone is worth 5; pairing 0-0 and 1-1 is worth 2
    gains = {(0, 0): (1.0,), (1, 1): (1.0,), (0, 1): (5.0,)}
    assert weighted_lcs(2, 2, lambda i, j: gains.get((i, j))) == [(0, 1)]


def test_weighted_lcs_keeps_order_and_compares_tuples_lexicographically():
    # (exact, agreement): one exact pair beats two partial ones
    gains = {(0, 1): (1, 0.5), (0, 0): (0, 0.9), (1, 1): (0, 0.9)}
    assert weighted_lcs(2, 2, lambda i, j: gains.get((i, j))) == [(0, 1)]
    assert weighted_lcs(2, 2, lambda i, j: None) == []
    assert weighted_lcs(0, 3, lambda i, j: (1,)) == []
    pairs = weighted_lcs(3, 3, lambda i, j: (1,))
    assert pairs == [(0, 0), (1, 1), (2, 2)]
