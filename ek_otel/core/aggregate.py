"""A corpus of scores aggregated into one report, one score at a time.

:func:`aggregate_scores` adds ``(EpisodeScore, comparability key)`` pairs up (a stream, read
once: :mod:`ek_otel.core.tally`) into an :class:`~ek_otel.core.reports.EvaluationReport`:
micro precision/recall/F1, exact-match and success rates, per-task and per-slice cuts, pass@k
and pass^k over repeated trials, cost, dollars and value-weighted success; one
:class:`~ek_otel.core.reports.ProvenanceGroup` per provenance key when runs must not be
pooled (:func:`comparability_key`, :func:`check_comparable`). The scores themselves come from
:func:`ek_otel.core.evaluate.score_episode`; the corpus loop over both is
:mod:`ek_otel.scoring.run`.

Example:
    >>> from ek_otel.core.episode import TaskSpec
    >>> from ek_otel.core.scores import EpisodeScore
    >>> passed, failed = EpisodeScore("t", tp=1.0, exact=True, success=True), EpisodeScore("t", fn=1.0)
    >>> r = aggregate_scores([(passed, ()), (failed, ())], index_tasks([TaskSpec("t")]), k=1)
    >>> r.n_episodes, r.success_rate, r.f1, r.pass_at_k["t"]
    (2, 0.5, 0.6666666666666666, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional, Union

from ..errors import ComparabilityError, InputError
from .episode import Cost, RunProvenance, TaskSpec
from .gc_pause import paused_gc
from .passk import default_k_of_trials, pass_at_k, pass_hat_k
from .reports import EvaluationReport, ProvenanceGroup
from .tally import CutTally, DollarTally

__all__ = ["aggregate_scores", "comparability_key", "check_comparable", "index_tasks"]


def comparability_key(episode: Any) -> tuple:
    """The episode's ``RunProvenance.comparability_key()`` (model, simulator, suite version,
    scaffold): runs with different keys are not pooled without asking.

    Example:
        >>> from ek_otel.core.episode import Episode, RunProvenance
        >>> comparability_key(Episode("t", run=RunProvenance(model="m"))), comparability_key(None)
        (('m', '', '', ''), ('', '', '', ''))
    """
    run = getattr(episode, "run", None)
    return (run if run is not None else RunProvenance()).comparability_key()


def check_comparable(keys: Iterable[tuple]) -> None:
    """Refuse to pool runs with different comparability keys.

    Raises:
        ComparabilityError: more than one distinct key, each named with its count.

    Example:
        >>> check_comparable([("a",), ("a",)])
        >>> check_comparable([("a",), ("b",)])
        Traceback (most recent call last):
        ...
        ek_otel.errors.ComparabilityError: refusing to pool runs with 2 different provenance keys ...
    """
    key_counts: dict = {}
    for key in keys:
        key_counts[key] = key_counts.get(key, 0) + 1
    if len(key_counts) > 1:
        seen = ", ".join(f"{key!r} x{n}" for key, n in key_counts.items())
        raise ComparabilityError(
            f"refusing to pool runs with {len(key_counts)} different provenance keys "
            f"(model, simulator, suite_version, scaffold): {seen}; "
            "pass group_by_provenance=True to report them apart"
        )


def index_tasks(tasks: Union[Mapping[str, TaskSpec], Iterable[TaskSpec]]) -> dict:
    """task_id -> TaskSpec, from a mapping or a list of tasks.

    Raises:
        InputError: two tasks with one id.

    Example:
        >>> sorted(index_tasks([TaskSpec("a"), TaskSpec("b")]))
        ['a', 'b']
        >>> index_tasks([TaskSpec("a"), TaskSpec("a")])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: duplicate task_id 'a' among the tasks
    """
    if isinstance(tasks, Mapping):
        return dict(tasks)
    by_id: dict = {}
    for task in tasks:
        if task.task_id in by_id:
            raise InputError(f"duplicate task_id {task.task_id!r} among the tasks")
        by_id[task.task_id] = task
    return by_id


def _mean_defined(values: Iterable[float]) -> Optional[float]:
    defined = [v for v in values if not math.isnan(v)]
    return sum(defined) / len(defined) if defined else None


class _ReportTally:
    """The figures of a report, added up one score at a time (:mod:`ek_otel.core.tally`):
    the same numbers as summing over the list of scores, in the same order."""

    def __init__(self, tasks: Mapping[str, TaskSpec], keep_scores: bool):
        self.tasks = tasks
        self.overall = CutTally()
        self.by_task: dict = {}  # task id -> (CutTally, DollarTally), in first-seen order
        self.by_slice: dict = {}
        self.cost = Cost()
        self.dollars = DollarTally()
        self.scores: Optional[list] = [] if keep_scores else None

    def add(self, score: Any) -> None:
        task = self.tasks[score.task_id]
        value = float(task.value)
        self.overall.add(score, value)
        cut = self.by_task.get(score.task_id)
        if cut is None:
            cut = self.by_task[score.task_id] = (CutTally(), DollarTally())
        cut[0].add(score, value)
        complete = score.cost.complete
        cut[1].add(score.dollars, complete)
        if task.slice is not None:
            name = str(task.slice)
            slice_cut = self.by_slice.get(name)
            if slice_cut is None:
                slice_cut = self.by_slice[name] = CutTally()
            slice_cut.add(score, value)
        self.cost = self.cost + score.cost
        self.dollars.add(score.dollars, complete, score.success)
        if self.scores is not None:
            self.scores.append(score)

    def trials(self) -> dict:
        """task id -> how many scores it has."""
        return {task_id: cut[0].n for task_id, cut in self.by_task.items()}

    def report(self, k: int, unmatched: tuple, keys: tuple, settings: Mapping[str, Any],
               scores: Optional[Sequence] = None) -> EvaluationReport:
        tasks = self.tasks
        at_k = {}
        hat_k = {}
        for task_id, (cut, _) in self.by_task.items():
            at_k[task_id] = pass_at_k(cut.n, cut.successes, k)
            hat_k[task_id] = pass_hat_k(cut.n, cut.successes, k)
        total_dollars = self.dollars.known  # leaves out the n_unpriced and n_cost_incomplete
        successes = self.dollars.successes  # the solved episodes the total covers
        per_success = (
            total_dollars / successes if total_dollars is not None and successes else None
        )
        return EvaluationReport(
            overall=self.overall.figures(),
            per_task={t: cut.figures() for t, (cut, _) in self.by_task.items()},
            per_slice={name: cut.figures() for name, cut in sorted(self.by_slice.items())},
            k=k,
            pass_at_k=at_k,
            pass_hat_k=hat_k,
            mean_pass_at_k=_mean_defined(at_k.values()),
            mean_pass_hat_k=_mean_defined(hat_k.values()),
            cost=self.cost,
            dollars=total_dollars,
            n_unpriced=self.dollars.unpriced,
            n_cost_incomplete=self.dollars.incomplete,
            dollars_per_success=per_success,
            scores=tuple(self.scores) if scores is None else scores,
            unmatched=unmatched,
            comparability_keys=keys,
            settings=dict(settings),
            slices={t: str(tasks[t].slice) for t in self.by_task if tasks[t].slice is not None},
            task_dollars={t: dollars.value for t, (_, dollars) in self.by_task.items()},
            task_cost_incomplete={t: dollars.incomplete for t, (_, dollars) in self.by_task.items()
                                  if dollars.incomplete},
        )


def aggregate_scores(
    scored: Iterable[tuple],
    tasks: Mapping[str, TaskSpec],
    *,
    k: Optional[int] = None,
    unmatched: Iterable[Any] = (),
    settings: Optional[Mapping[str, Any]] = None,
    group_by_provenance: Optional[bool] = False,
    scores: Optional[Callable[[Optional[tuple]], Sequence]] = None,
) -> EvaluationReport:
    """The corpus report over already-made scores: ``(EpisodeScore, comparability_key)`` pairs.

    What :func:`evaluate` does after scoring, for callers that score episodes themselves
    (the server, the pipeline). ``tasks`` maps every scored task id to its TaskSpec.

    With ``group_by_provenance`` (None: when the scores have more than one comparability
    key), each group's pass@k / pass^k use ``k`` when it is given,
    else :func:`default_k` over that group's own trials (a run tried twice per task gets
    k=2 even when the pooled trials give a larger k).

    The figures are added up one score at a time (:mod:`ek_otel.core.tally`), so ``scored``
    may be a stream that is read once. The report's ``scores`` are then kept in memory,
    unless ``scores`` is given: a function that returns them (a sequence that reads them
    again from where the caller keeps them) for all (``None``) or one comparability key.

    Raises:
        ComparabilityError: more than one key and ``group_by_provenance`` False.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> s = EpisodeScore("t", tp=1.0, exact=True, success=True)
        >>> r = aggregate_scores([(s, ("m",)), (s, ("m",))], {"t": TaskSpec("t")}, k=2)
        >>> r.pass_hat_k["t"], r.f1, r.settings["k"]
        (1.0, 1.0, 2)
        >>> r = aggregate_scores([(s, ("a",))] * 2 + [(s, ("b",))] * 3, {"t": TaskSpec("t")},
        ...                      group_by_provenance=True)
        >>> r.k, [g.report.k for g in r.groups]
        (5, [2, 3])
    """
    if k is not None and (not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer, not {k!r}")
    whole = _ReportTally(tasks, keep_scores=scores is None)
    groups: dict = {}  # comparability key -> its _ReportTally, in first-seen order
    unknown: set = set()
    for score, key in scored:
        if score.task_id not in tasks:
            unknown.add(score.task_id)
            continue
        whole.add(score)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _ReportTally(tasks, keep_scores=scores is None)
        group.add(score)
    keys = tuple(groups)
    if group_by_provenance is None:
        group_by_provenance = len(keys) > 1
    if len(keys) > 1 and not group_by_provenance:
        raise ComparabilityError(
            f"refusing to pool runs with {len(keys)} different provenance keys; "
            "pass group_by_provenance=True to report them apart"
        )
    if unknown:
        raise InputError(f"scores for task ids that are not among the tasks: {sorted(unknown)[:5]}")
    fixed_k = k
    if k is None:
        k = default_k_of_trials(whole.trials())
    run_settings = {**dict(settings or {}), "k": k, "group_by_provenance": group_by_provenance}
    with paused_gc():  # report shapes, no cycles: the collector would walk every score again
        report = whole.report(k, _kept(unmatched), keys, run_settings,
                              None if scores is None else scores(None))
        if not group_by_provenance:
            return report
        out = []
        for key, group in groups.items():
            group_k = fixed_k if fixed_k is not None else default_k_of_trials(group.trials())
            out.append(ProvenanceGroup(key=key, report=group.report(
                group_k, (), (key,), {**run_settings, "k": group_k},
                None if scores is None else scores(key))))
        return replace(report, groups=tuple(out))


def _kept(items: Iterable[Any]) -> Sequence:
    """A sequence as it is (a run's spooled unmatched episodes stay where they are); other
    iterables (and lists) as tuples."""
    if isinstance(items, Sequence) and not isinstance(items, list):
        return items
    return tuple(items)
