"""Which predicted call goes with which gold call: the pairing strategies of :func:`align_calls`.

Given the calls of both sides and a ``compare(i, j)`` that gives the
:class:`~ek_otel.core.arguments.ArgComparison` of predicted call ``i`` with gold call ``j``,
:func:`pair_indices` returns the chosen ``(i, j, comparison)`` triples. Only calls to the
same tool are paired. ``"best_first"`` takes candidate pairs greedily (exact before partial,
then more agreeing weight, ties by position); ``"optimal"`` the maximum-weight assignment
(:func:`ek_otel.core.assignment.hungarian_max`) when it beats the greedy pick; ``"ordered"``
an order-respecting alignment (:func:`ek_otel.core.assignment.weighted_lcs`). The
comparison and the alignment built from the pairs live in :mod:`ek_otel.core.arguments` and
:mod:`ek_otel.core.toolcalls`.

Example:
    >>> from ek_otel.core.arguments import compare_args
    >>> pred, gold = [("s", {"q": "b"}), ("s", {"q": "a"})], [("s", {"q": "a"}), ("s", {"q": "b"})]
    >>> compare = lambda i, j: compare_args("s", pred[i][1], gold[j][1])
    >>> sorted((i, j) for i, j, _ in pair_indices(pred, gold, compare, "best_first"))
    [(0, 1), (1, 0)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Optional

from ..limits import MAX_CALL_PAIRS
from .arguments import ArgComparison
from .assignment import hungarian_max, weighted_lcs

__all__ = ["STRATEGIES", "check_strategy", "pair_indices", "pairing_capped"]

#: Pairing strategies: the seed's greedy best-first, the exact maximum-weight assignment,
#: and an order-respecting alignment (for tasks whose call order matters).
STRATEGIES = ("best_first", "optimal", "ordered")


def check_strategy(strategy: str) -> None:
    """Raise ``ValueError`` unless ``strategy`` is one of :data:`STRATEGIES`.

    Example:
        >>> check_strategy("optimal")
        >>> check_strategy("random")
        Traceback (most recent call last):
        ...
        ValueError: strategy must be one of ('best_first', 'optimal', 'ordered'), not 'random'
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")


def pair_indices(pred_calls: Sequence[tuple], gold_calls: Sequence[tuple],
                 compare: Callable[[int, int], ArgComparison], strategy: str) -> list:
    """The ``(pred_index, gold_index, comparison)`` pairs ``strategy`` chooses (in no set order).

    Example:
        >>> from ek_otel.core.arguments import compare_args
        >>> pred, gold = [("b", {}), ("a", {})], [("a", {}), ("b", {})]
        >>> compare = lambda i, j: compare_args(pred[i][0], pred[i][1], gold[j][1])
        >>> sorted((i, j) for i, j, _ in pair_indices(pred, gold, compare, "optimal"))
        [(0, 1), (1, 0)]
        >>> [(i, j) for i, j, _ in pair_indices(pred, gold, compare, "ordered")]
        [(0, 1)]
    """
    check_strategy(strategy)
    if strategy == "ordered":
        return _ordered_pairs(pred_calls, gold_calls, compare)
    return _unordered_pairs(pred_calls, gold_calls, compare, strategy)


def pairing_capped(pred_calls: Sequence[tuple], gold_calls: Sequence[tuple], strategy: str) -> bool:
    """Whether ``strategy`` would weigh more than :data:`~ek_otel.limits.MAX_CALL_PAIRS`
    pairs (then some calls are paired in call order instead: :func:`pair_indices`).

    Example:
        >>> pairing_capped([("a", {})] * 101, [("a", {})] * 100, "optimal")
        True
        >>> pairing_capped([("a", {})] * 100, [("a", {})] * 100, "best_first")
        False
    """
    if strategy == "ordered":
        return len(pred_calls) * len(gold_calls) > MAX_CALL_PAIRS and _in_order_pairs(pred_calls, gold_calls) is None
    gold_groups = _group(gold_calls)
    return any(len(p) * len(gold_groups.get(tool, ())) > MAX_CALL_PAIRS
               for tool, p in _group(pred_calls).items())


def _in_call_order(pred_calls, gold_calls, compare) -> list:
    """Each run call with the first gold call of its tool after the last one paired (order
    kept on both sides): linear, no table."""
    waiting = {}
    for j, (tool, _) in enumerate(gold_calls):
        waiting.setdefault(tool, []).append(j)
    at = {tool: 0 for tool in waiting}
    out, last = [], -1
    for i, (tool, _) in enumerate(pred_calls):
        js = waiting.get(tool)
        if not js:
            continue
        k = at[tool]
        while k < len(js) and js[k] <= last:
            k += 1
        at[tool] = k
        if k < len(js):
            out.append((i, js[k], compare(i, js[k])))
            last = js[k]
            at[tool] = k + 1
    return out


def _group(calls: Sequence[tuple]) -> dict:
    groups: dict = {}
    for i, (tool, _) in enumerate(calls):
        groups.setdefault(tool, []).append(i)
    return groups


def _rank(c: ArgComparison) -> tuple:
    return (1 if c.exact else 0, c.tp)


def _unordered_pairs(pred_calls, gold_calls, compare, strategy) -> list:
    gold_groups = _group(gold_calls)
    pred_groups = _group(pred_calls)
    out = []
    for tool, p_idx in pred_groups.items():
        g_idx = gold_groups.get(tool)
        if not g_idx:
            continue
        if len(p_idx) == 1 and len(g_idx) == 1:  # the common case: nothing to choose
            out.append((p_idx[0], g_idx[0], compare(p_idx[0], g_idx[0])))
            continue
        if len(p_idx) * len(g_idx) > MAX_CALL_PAIRS:  # too many to weigh: in call order
            out.extend((i, j, compare(i, j)) for i, j in zip(p_idx, g_idx))
            continue
        table = {(i, j): compare(i, j) for i in p_idx for j in g_idx}
        chosen = _best_first(table)
        if strategy == "optimal" and len(p_idx) > 1 and len(g_idx) > 1:
            better = _hungarian_pairs(p_idx, g_idx, table)
            if _total(better, table) > _total(chosen, table):
                chosen = better
        out.extend((i, j, table[i, j]) for i, j in chosen)
    return out


def _best_first(table: Mapping[tuple, ArgComparison]) -> list:
    order = sorted(table, key=lambda ij: (-_rank(table[ij])[0], -_rank(table[ij])[1], ij))
    used_p: set = set()
    used_g: set = set()
    chosen = []
    for i, j in order:
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        chosen.append((i, j))
    return chosen


def _total(pairs: Iterable[tuple], table: Mapping[tuple, ArgComparison]) -> tuple:
    exact = agree = 0.0
    for ij in pairs:
        e, a = _rank(table[ij])
        exact += e
        agree += a
    return (exact, round(agree, 9))


def _hungarian_pairs(p_idx: list, g_idx: list, table: Mapping[tuple, ArgComparison]) -> list:
    """Maximum-weight assignment, lexicographic in (exact pairs, agreement)."""
    agree_bound = 1.0 + sum(max(table[i, j].tp for j in g_idx) for i in p_idx)
    weight = [
        [(agree_bound if table[i, j].exact else 0.0) + table[i, j].tp for j in g_idx]
        for i in p_idx
    ]
    return [(p_idx[r], g_idx[c]) for r, c in hungarian_max(weight)]


def _in_order_pairs(pred_calls, gold_calls) -> Optional[list]:
    """The same-tool pairs when no tool name repeats on either side and they come in the same
    order on both sides; else None.

    Then each call has at most one possible partner, and pairing them all is the one best
    order-respecting alignment (every pair adds a gain ``(exact, tp, 1)`` with no negative
    part, so any other alignment, a subset, totals less): no need for the LCS table.

    Example:
        >>> _in_order_pairs([("a", {}), ("x", {}), ("b", {})], [("a", {}), ("b", {})])
        [(0, 0), (2, 1)]
        >>> _in_order_pairs([("b", {}), ("a", {})], [("a", {}), ("b", {})]) is None
        True
    """
    gold_at = {tool: j for j, (tool, _) in enumerate(gold_calls)}
    if len(gold_at) != len(gold_calls):
        return None
    pairs, seen, last = [], set(), -1
    for i, (tool, _) in enumerate(pred_calls):
        if tool in seen:
            return None
        seen.add(tool)
        j = gold_at.get(tool)
        if j is not None:
            if j < last:
                return None
            pairs.append((i, j))
            last = j
    return pairs


def _ordered_pairs(pred_calls, gold_calls, compare) -> list:
    """Weighted LCS over same-tool pairs, maximising (exact pairs, agreement, pairs)."""
    in_order = _in_order_pairs(pred_calls, gold_calls)
    if in_order is not None:
        found = [(i, j, compare(i, j)) for i, j in in_order]
        if all(c.tp >= 0 for _, _, c in found) or len(pred_calls) * len(gold_calls) > MAX_CALL_PAIRS:
            return found  # gains with no negative part (docstring), or too many to weigh
    if len(pred_calls) * len(gold_calls) > MAX_CALL_PAIRS:  # the table too big: in call order
        return _in_call_order(pred_calls, gold_calls, compare)
    cache: dict = {}

    def gain(i: int, j: int) -> Optional[tuple]:
        if pred_calls[i][0] != gold_calls[j][0]:
            return None
        c = cache[i, j] = compare(i, j)
        return (1 if c.exact else 0, c.tp, 1)

    return [(i, j, cache[i, j]) for i, j in weighted_lcs(len(pred_calls), len(gold_calls), gain)]
