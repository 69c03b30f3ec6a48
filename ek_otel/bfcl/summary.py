"""The overall figures BFCL reports, computed as ``bfcl_eval`` computes them.

From ``eval_runner_helper.generate_leaderboard_csv``:

- **Non-Live AST**: unweighted mean of (simple = unweighted mean of simple_python,
  simple_java, simple_javascript), multiple, parallel, parallel_multiple;
- **Live AST**: mean weighted by entry count of live_simple, live_multiple,
  live_parallel, live_parallel_multiple;
- **Irrelevance**: unweighted mean of irrelevance and live_irrelevance; **Relevance**:
  live_relevance;
- **Multi-Turn**: unweighted mean of the four multi_turn categories;
- **Agentic**: unweighted mean of (web search: mean of its two categories) and
  (memory: mean of its three);
- **Overall**: the five above weighted 10/10/10/30/40.

An aggregate is reported only when every category it needs is present (the official
table shows N/A otherwise and counts a missing category as 0 in the overall).

Example:
    >>> accs = {"live_simple": (1, 2), "live_multiple": (3, 4), "live_parallel": (0, 1),
    ...         "live_parallel_multiple": (1, 1)}
    >>> [(a.name, round(a.accuracy, 4)) for a in aggregates(accs)]
    [('Live AST', 0.625)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

__all__ = ["Aggregate", "aggregates", "AST_MODE_NOTE"]

#: How a figure checked in ast mode (``--multi-turn ast``) is labelled everywhere: the
#: terminal, the JSON, the score files' header and the page (the multi-turn categories,
#: and the Multi-Turn and Overall figures they make).
AST_MODE_NOTE = "ast mode, not the official figure"


@dataclass(frozen=True)
class Aggregate:
    """One summary figure: its name, accuracy, and how many entries it covers.

    Example:
        >>> Aggregate("Overall", 0.5, 10).accuracy
        0.5
    """

    name: str
    accuracy: float
    total_count: int


def _category(counts: Mapping, name: str) -> Optional[tuple]:
    if name not in counts:
        return None
    correct, total = counts[name]
    return (correct / total if total else 0.0, total)


def _unweighted(parts: list) -> Optional[tuple]:
    if not parts or any(p is None for p in parts):
        return None
    return (sum(p[0] for p in parts) / len(parts), sum(p[1] for p in parts))


def _weighted(parts: list) -> Optional[tuple]:
    if not parts or any(p is None for p in parts):
        return None
    total = sum(p[1] for p in parts)
    return (sum(p[0] * p[1] for p in parts) / total if total else 0.0, total)


def aggregates(counts: Mapping[str, tuple]) -> list:
    """The summary figures defined by the categories in ``counts`` (category -> (correct, total)).

    Example:
        >>> aggregates({"irrelevance": (9, 10), "live_irrelevance": (7, 10)})
        [Aggregate(name='Irrelevance', accuracy=0.8, total_count=20)]
    """
    cat = lambda name: _category(counts, name)  # noqa: E731
    simple = _unweighted([cat("simple_python"), cat("simple_java"), cat("simple_javascript")])
    non_live = _unweighted([simple, cat("multiple"), cat("parallel"), cat("parallel_multiple")])
    live = _weighted([cat("live_simple"), cat("live_multiple"), cat("live_parallel"),
                      cat("live_parallel_multiple")])
    irrelevance = _unweighted([cat("irrelevance"), cat("live_irrelevance")])
    relevance = cat("live_relevance")
    multi_turn = _unweighted([cat("multi_turn_base"), cat("multi_turn_miss_func"),
                              cat("multi_turn_miss_param"), cat("multi_turn_long_context")])
    web_search = _unweighted([cat("web_search_base"), cat("web_search_no_snippet")])
    memory = _unweighted([cat("memory_kv"), cat("memory_vector"), cat("memory_rec_sum")])
    agentic = _unweighted([web_search, memory])
    overall = None
    parts = [non_live, live, irrelevance, multi_turn, agentic]
    if all(p is not None for p in parts):
        weights = [10, 10, 10, 30, 40]
        overall = (sum(p[0] * w for p, w in zip(parts, weights)) / sum(weights),
                   sum(p[1] for p in parts))
    named = [
        ("Overall", overall), ("Non-Live AST", non_live), ("Non-Live simple AST", simple),
        ("Live AST", live), ("Irrelevance", irrelevance), ("Relevance", relevance),
        ("Multi-Turn", multi_turn), ("Agentic", agentic), ("Web search", web_search),
        ("Memory", memory),
    ]
    return [Aggregate(name, value[0], value[1]) for name, value in named if value is not None]
