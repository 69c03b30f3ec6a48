"""Trajectory similarity: a cost-weighted edit distance between predicted and gold call sequences.

Costs come from the grammar. A call costs its tool's weight ``w = grammar.node_cost(tool)``:

- deleting a predicted call (spurious) costs ``w(pred)``; inserting a gold call (missing)
  costs ``w(gold)``;
- substituting a predicted call for a gold call to a **different tool** costs
  ``w(pred) + w(gold)``, as much as deleting one and inserting the other;
- for the **same tool** it costs ``(w(pred) + w(gold)) * d``, where ``d`` in [0, 1] is the
  weighted share of disagreeing arguments: the summed ``field_cost`` of wrong, wrongly
  typed, missing and unexpected arguments over that of all arguments involved (0 for an
  exact match; an omitted optional argument is not involved).

The similarity is ``1 - distance / (W(pred) + W(gold))`` where ``W`` sums a sequence's call
weights, the distance of deleting everything and inserting everything; so it lies in [0, 1],
is 1 only for an exact match, and two empty sequences score 1. With unit weights and no
partial matches this is ``2 * LCS / (n_pred + n_gold)``: an order-aware F1.

Example:
    >>> trajectory_similarity([("a", {}), ("b", {})], [("a", {}), ("b", {})])
    1.0
    >>> round(trajectory_similarity([("b", {}), ("a", {})], [("a", {}), ("b", {})]), 3)
    0.5
    >>> trajectory_similarity([("a", {"x": 1, "y": 2})], [("a", {"x": 1, "y": 3})])
    0.5
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from .arguments import compare_args
from .grammar import GraphGrammar
from .scores import Score
from .toolcalls import calls_of

__all__ = ["trajectory_distance", "trajectory_similarity", "TrajectoryMetric"]

_EMPTY_GRAMMAR = GraphGrammar()


def trajectory_distance(
    pred: Any,
    gold: Any,
    *,
    grammar: Optional[GraphGrammar] = None,
    canon: Optional[Callable[[Any], Any]] = None,
) -> tuple:
    """The weighted edit distance and its maximum: ``(distance, max_distance)``.

    Example:
        >>> from ek_otel.core.episode import ToolSpec, tool_grammar
        >>> g = tool_grammar(ToolSpec("send", destructive=True))
        >>> trajectory_distance([("send", {})], [("search", {})], grammar=g)
        (11.0, 11.0)
        >>> trajectory_distance([], [("send", {})], grammar=g)
        (10.0, 10.0)
    """
    grammar = grammar or _EMPTY_GRAMMAR
    p = calls_of(pred)
    g = calls_of(gold)
    wp = [grammar.node_cost(tool) for tool, _ in p]
    wg = [grammar.node_cost(tool) for tool, _ in g]
    n, m = len(p), len(g)
    prev = [0.0] * (m + 1)
    for j in range(1, m + 1):
        prev[j] = prev[j - 1] + wg[j - 1]
    for i in range(1, n + 1):
        row = [prev[0] + wp[i - 1]] + [0.0] * m
        tool_i, args_i = p[i - 1]
        for j in range(1, m + 1):
            both = wp[i - 1] + wg[j - 1]
            if g[j - 1][0] == tool_i:
                sub = both * _disagreement(tool_i, args_i, g[j - 1][1], grammar, canon)
            else:
                sub = both
            row[j] = min(prev[j] + wp[i - 1], row[j - 1] + wg[j - 1], prev[j - 1] + sub)
        prev = row
    return (float(prev[m]), float(sum(wp) + sum(wg)))


def _disagreement(tool, pred_args, gold_args, grammar, canon) -> float:
    c = compare_args(tool, pred_args, gold_args, canon=canon, grammar=grammar)
    if c.exact:
        return 0.0
    wrong = sum(d.weight for d in c.diffs)
    involved = c.tp + wrong
    return wrong / involved if involved else 0.0


def trajectory_similarity(
    pred: Any,
    gold: Any,
    *,
    grammar: Optional[GraphGrammar] = None,
    canon: Optional[Callable[[Any], Any]] = None,
) -> float:
    """Similarity in [0, 1] of two call sequences (see the module docstring).

    Example:
        >>> trajectory_similarity([], [])
        1.0
        >>> round(trajectory_similarity([("a", {})], [("a", {}), ("b", {})]), 3)
        0.667
    """
    distance, worst = trajectory_distance(pred, gold, grammar=grammar, canon=canon)
    if worst == 0:
        return 1.0
    return max(0.0, 1.0 - distance / worst)


@dataclass(frozen=True)
class TrajectoryMetric:
    """Trajectory similarity as a metric: a :class:`Score` whose value is the similarity.

    ``detail`` has ``distance``, ``max_distance``, ``n_pred`` and ``n_gold``.

    Example:
        >>> s = TrajectoryMetric()([("b", {}), ("a", {})], [("a", {}), ("b", {})])
        >>> s.value, s.detail["distance"], s.explanation
        (0.5, 2.0, 'edit distance 2 of at most 4 (2 predicted, 2 gold calls)')
    """

    grammar: Optional[GraphGrammar] = None
    canonicalizer: Optional[Callable[[Any], Any]] = None

    def __call__(self, pred: Any, gold: Any) -> Score:
        """Score predicted calls against gold calls."""
        p = calls_of(pred)
        g = calls_of(gold)
        distance, worst = trajectory_distance(p, g, grammar=self.grammar, canon=self.canonicalizer)
        value = 1.0 if worst == 0 else max(0.0, 1.0 - distance / worst)
        return Score(
            value=value,
            metric="trajectory",
            detail={
                "distance": distance,
                "max_distance": worst,
                "n_pred": len(p),
                "n_gold": len(g),
            },
            explanation=(
                f"edit distance {distance:g} of at most {worst:g} "
                f"({len(p)} predicted, {len(g)} gold calls)"
            ),
        )
