"""Reading back what ``ek-otel serve`` scored, for ``ek-otel report``.

Each trace appears once, at its latest revision: its episode is rebuilt from exactly the
payloads that revision covered, and the corpus goes through the same
:func:`~ek_otel.core.evaluate.evaluate` as ``ek-otel score`` (no second report).

Example:
    >>> ScoredCorpus(episodes=(), tasks={}, options={}, n_traces=0).n_traces
    0
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import InputError
from .scoring import TraceScorer
from .store import Store

__all__ = ["ScoredCorpus", "load_scored"]


@dataclass(frozen=True)
class ScoredCorpus:
    """The latest-revision episodes of a store, with the tasks and settings they were scored with."""

    episodes: tuple
    tasks: Any
    options: dict
    n_traces: int
    unmatched_details: tuple = ()
    revisions: dict = field(default_factory=dict)

    def evaluate(self, *, k: Optional[int] = None, group_by_provenance: bool = False):
        """The :class:`~ek_otel.core.evaluate.EvaluationReport` of the corpus."""
        from ..core.evaluate import evaluate

        return evaluate(self.episodes, self.tasks, level=self.options.get("level", "call"),
                        strategy=self.options.get("strategy", "optimal"), k=k,
                        group_by_provenance=group_by_provenance)


def load_scored(store_path: str, *, gold: Optional[str] = None) -> ScoredCorpus:
    """Rebuild the latest-revision episode of every scored trace in a store.

    Args:
        store_path: The SQLite store of ``ek-otel serve``.
        gold: The gold file (default: the one recorded by the server).
    """
    store = Store(store_path, readonly=True)
    try:
        gold = gold or store.meta("gold")
        if not gold:
            raise InputError("the store records no gold file; pass --gold", path=store_path)
        options = {k: (tuple(v) if isinstance(v, list) else v)
                   for k, v in json.loads(store.meta("score_options") or "[]")}
        scorer = TraceScorer(gold, tuple(options.items()))
        episodes = []
        unmatched = []
        revisions = {}
        rows = store.latest_scores()
        for row in rows:
            payloads = store.scored_payloads(row.trace_id, row.revision)
            episode, _ = scorer.episode_of(row.trace_id, payloads)
            episodes.append(episode)
            revisions[row.trace_id] = row.revision
            if not row.matched:
                unmatched.append({"trace_id": row.trace_id, "task_id": row.task_id,
                                  "detail": row.detail})
        return ScoredCorpus(tuple(episodes), scorer.tasks, options, len(rows),
                            tuple(unmatched), revisions)
    finally:
        store.close()
