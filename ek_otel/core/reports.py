"""The corpus report's shapes: :class:`EvaluationReport` (the figures of a whole corpus, per
task, per slice, pass@k and pass^k, cost and dollars, the scores) and :class:`ProvenanceGroup`
(the report of the runs that share one provenance key). :func:`ek_otel.core.aggregate.aggregate_scores`
makes them; the figures of each cut are :class:`~ek_otel.core.tally.CutFigures`; the one JSON
report of them is :mod:`ek_otel.scoring.report`.

Example:
    >>> from ek_otel.core.episode import Cost
    >>> from ek_otel.core.tally import CutFigures
    >>> r = EvaluationReport(overall=CutFigures(n=2, successes=1, success_rate=0.5), per_task={},
    ...                      per_slice={}, k=1, pass_at_k={}, pass_hat_k={}, mean_pass_at_k=None,
    ...                      mean_pass_hat_k=None, cost=Cost(), dollars=None, n_unpriced=0,
    ...                      dollars_per_success=None, scores=())
    >>> r.n_episodes, r.success_rate
    (2, 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .episode import Cost
from .tally import CutFigures

__all__ = ["EvaluationReport", "ProvenanceGroup"]


@dataclass(frozen=True)
class ProvenanceGroup:
    """The report of the episodes sharing one ``RunProvenance.comparability_key()``.

    Example:
        >>> from ek_otel.core.episode import Episode, RunProvenance, TaskSpec
        >>> from ek_otel import evaluate
        >>> r = evaluate([Episode("t", run=RunProvenance(model="a"))], [TaskSpec("t")],
        ...              group_by_provenance=True)
        >>> r.groups[0].key, r.groups[0].report.n_episodes
        (('a', '', '', ''), 1)
    """

    key: tuple
    report: "EvaluationReport"


def _of_overall(name: str, doc: str) -> property:
    """A read-only property of :class:`EvaluationReport` that is ``overall.<name>``."""
    return property(lambda self: getattr(self.overall, name), doc=doc)


@dataclass(frozen=True)
class EvaluationReport:
    """The corpus report of :func:`evaluate`. ``to_dict()`` gives a JSON-ready dict.

    Attributes:
        overall: Micro figures over every scored episode (:class:`CutFigures`).
        per_task / per_slice: The same figures per task id and per ``task.slice``
            (tasks without a slice are in no slice cut).
        k: The k of pass@k / pass^k.
        pass_at_k / pass_hat_k: Per task, the unbiased estimators over its trials (NaN
            when the task has fewer than k trials).
        mean_pass_at_k / mean_pass_hat_k: Their mean over the tasks where defined.
        cost: Total :class:`Cost` of the scored episodes.
        dollars: Total dollars of the priced episodes (None when none is): it leaves out
            the ``n_unpriced`` and ``n_cost_incomplete`` episodes, so with either above 0
            it is a lower bound of what the run cost.
        n_unpriced: How many scored episodes with a complete token count had no price (the
            price table lacks their model, or they recorded no model).
        n_cost_incomplete: How many scored episodes had model calls that recorded no usage
            (``cost.complete`` False): their cost is unknown, never priced as $0.
        dollars_per_success: ``dollars`` / the successful episodes it covers (None without
            dollars or such successes).
        scores: Every :class:`EpisodeScore`, in input order (a sequence that may read them
            from a spool: :mod:`ek_otel.scoring.spool`).
        unmatched: Episodes not scored (:class:`ek_otel.scoring.link.Unmatched`), e.g. a task
            id not among the tasks.
        comparability_keys: The distinct provenance keys seen.
        groups: With ``group_by_provenance``, one :class:`ProvenanceGroup` per key.
        slices: task id -> its slice, for the tasks that have one.
        task_dollars: task id -> its episodes' dollars (None unless every one is priced).

    Example:
        >>> from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
        >>> task = TaskSpec("t", gold=[("a", {})], slice="easy", value=2.0)
        >>> from ek_otel import evaluate
        >>> r = evaluate([Episode("t", Trajectory([Step("a")])), Episode("t")], [task], k=2)
        >>> r.n_episodes, r.exact_rate, r.per_slice["easy"].successes, r.pass_at_k["t"]
        (2, 0.5, 1, 1.0)
        >>> r.pass_hat_k["t"], r.value_weighted_success, r.dollars
        (0.0, 0.5, None)
    """

    overall: CutFigures
    per_task: Mapping[str, CutFigures]
    per_slice: Mapping[str, CutFigures]
    k: int
    pass_at_k: Mapping[str, float]
    pass_hat_k: Mapping[str, float]
    mean_pass_at_k: Optional[float]
    mean_pass_hat_k: Optional[float]
    cost: Cost
    dollars: Optional[float]
    n_unpriced: int
    dollars_per_success: Optional[float]
    scores: tuple
    n_cost_incomplete: int = 0
    unmatched: tuple = ()
    comparability_keys: tuple = ()
    groups: tuple = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    slices: Mapping[str, str] = field(default_factory=dict)  # task id -> slice, when it has one
    task_dollars: Mapping[str, Optional[float]] = field(default_factory=dict)  # None: unpriced
    #: task id -> its episodes with model calls that recorded no usage (tasks with any)
    task_cost_incomplete: Mapping[str, int] = field(default_factory=dict)

    # The corpus figures, read from ``overall``.
    n_episodes = _of_overall("n", "How many episodes were scored.")
    precision = _of_overall("precision", "Micro precision over the corpus.")
    recall = _of_overall("recall", "Micro recall over the corpus.")
    f1 = _of_overall("f1", "Micro F1 over the corpus (never a mean of episode F1s).")
    exact_rate = _of_overall("exact_rate", "Share of episodes whose calls matched exactly.")
    success_rate = _of_overall("success_rate", "Share of successful episodes.")
    value_weighted_success = _of_overall("value_weighted_success",
                                         "Task value won over task value attempted.")
