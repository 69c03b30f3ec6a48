"""The one JSON report shape: what ``ek-otel score --json`` and ``ek-otel report --json``
write, and what :meth:`ek_otel.core.evaluate.EvaluationReport.to_dict` returns.

Keys: ``aggregate`` (precision, recall, f1, exact_match, success_rate, episodes, unmatched,
revisions, k, mean pass@k / pass^k, cost, dollars, dollars_per_success), ``episodes`` (one
entry per scored episode: task_id, trace_id, [root_span_id,] revision, [service,] tp/fp/fn,
precision/recall/f1, exact, success, label, explanation, cost, dollars, arg_diffs,
missing_calls, spurious_calls, calls (the matcher's pairing: ``got``, ``gold``, ``turn``,
``exact``, ``arg_diffs`` indexes), and ``group`` (index into ``groups``) when there are
groups; root_span_id and service come with a written-back score),
``per_task`` (figures, pass@k, pass^k, dollars, slice), ``per_slice``, ``k``,
``pass_at_k``/``pass_hat_k`` per task, ``unmatched`` (trace_id, task_id, reason),
``provenance`` (None for a library evaluation, which writes nothing back) and, with several
provenance keys, ``groups`` (key, aggregate, per_task; each group's ``aggregate.k`` and its
pass@k / pass^k come from that run's own trials unless the caller fixed ``k``). Rates of an
empty cut and undefined pass^k are null.

Example:
    >>> from ek_otel.core.episode import Episode, TaskSpec
    >>> from ek_otel.core.evaluate import evaluate
    >>> d = report_to_dict(evaluate([Episode("t"), Episode("lost")], [TaskSpec("t")]))
    >>> d["aggregate"]["episodes"], d["aggregate"]["f1"], d["unmatched"][0]["task_id"]
    (1, 1.0, 'lost')
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Optional

from ..core.evaluate import EvaluationReport, to_jsonable
from ..core.scores import EpisodeScore

__all__ = ["report_to_dict", "run_to_dict", "dollars_of"]


def _figures(cut: Any) -> dict:
    return {
        "episodes": cut.n,
        "successes": cut.successes,
        "tp": cut.tp,
        "fp": cut.fp,
        "fn": cut.fn,
        "precision": cut.precision,
        "recall": cut.recall,
        "f1": cut.f1,
        "exact_match": cut.exact_rate,
        "success_rate": cut.success_rate,
        "value_weighted_success": cut.value_weighted_success,
    }


def _aggregate_dict(report: EvaluationReport, unmatched: int, revisions: int) -> dict:
    out = _figures(report.overall)
    out.update(
        unmatched=unmatched,
        revisions=revisions,
        k=report.k,
        mean_pass_at_k=report.mean_pass_at_k,
        mean_pass_hat_k=report.mean_pass_hat_k,
        cost=report.cost,
        dollars=report.dollars,
        n_unpriced=report.n_unpriced,
        dollars_per_success=report.dollars_per_success,
    )
    return out


def _episode_dict(s: EpisodeScore, head: dict) -> dict:
    out = dict(head)
    out.update({
        "tp": s.tp,
        "fp": s.fp,
        "fn": s.fn,
        "precision": s.precision,
        "recall": s.recall,
        "f1": s.f1,
        "exact": s.exact,
        "success": s.success,
        "label": s.label,
        "explanation": s.explanation,
        "cost": s.cost,
        "dollars": s.dollars,
        "arg_diffs": s.arg_diffs,
        "missing_calls": [{"tool": t, "args": a} for t, a in s.missing_calls],
        "spurious_calls": [{"tool": t, "args": a} for t, a in s.spurious_calls],
        "calls": [{"got": _call_dict(r.got), "gold": _call_dict(r.gold), "turn": r.turn,
                   "exact": r.exact, "arg_diffs": list(r.diffs)} for r in s.calls],
    })
    return out


def _call_dict(call: Any) -> Optional[dict]:
    return None if call is None else {"tool": call[0], "args": call[1]}


def dollars_of(scores: Sequence[EpisodeScore]) -> Optional[float]:
    """The summed dollars of scores; None unless every one of them is priced (or none given).

    Example:
        >>> dollars_of([EpisodeScore("t", dollars=0.25), EpisodeScore("t", dollars=0.5)])
        0.75
        >>> dollars_of([EpisodeScore("t", dollars=0.25), EpisodeScore("t")]), dollars_of([])
        (None, None)
    """
    if not scores or any(s.dollars is None for s in scores):
        return None
    return round(sum(s.dollars for s in scores), 12)


def _dollars_by_task(scores: Sequence[EpisodeScore]) -> Callable[[str], Optional[float]]:
    by_task: dict = {}
    for s in scores:
        by_task.setdefault(s.task_id, []).append(s)
    return lambda task_id: dollars_of(by_task.get(task_id, ()))


def _per_task(report: EvaluationReport, task_dollars: Callable[[str], Optional[float]]) -> dict:
    per_task = {}
    for task_id, cut in report.per_task.items():
        figures = _figures(cut)
        figures.update(
            pass_at_k=report.pass_at_k.get(task_id),
            pass_hat_k=report.pass_hat_k.get(task_id),
            dollars=task_dollars(task_id),
            slice=report.slices.get(task_id),
        )
        per_task[task_id] = figures
    return per_task


def _to_dict(report: EvaluationReport, episodes: list, scores: Sequence[EpisodeScore],
             unmatched: Sequence[Any], revisions: int, provenance: Any,
             task_dollars: Callable[[str], Optional[float]]) -> dict:
    group_of = {id(s): i for i, g in enumerate(report.groups) for s in g.report.scores}
    if group_of:
        for episode, score in zip(episodes, scores):
            episode["group"] = group_of.get(id(score))
    out = {
        "aggregate": _aggregate_dict(report, len(unmatched), revisions),
        "episodes": episodes,
        "per_task": _per_task(report, task_dollars),
        "per_slice": {name: _figures(cut) for name, cut in report.per_slice.items()},
        "k": report.k,
        "pass_at_k": dict(report.pass_at_k),
        "pass_hat_k": dict(report.pass_hat_k),
        "unmatched": [{"trace_id": u.trace_id, "task_id": u.task_id, "reason": u.reason}
                      for u in unmatched],
        "provenance": provenance,
    }
    if report.groups:
        out["groups"] = [
            {"key": list(g.key), "aggregate": _aggregate_dict(g.report, 0, 0),
             "per_task": _per_task(g.report, _dollars_by_task(g.report.scores))}
            for g in report.groups
        ]
    return to_jsonable(out)


def report_to_dict(report: EvaluationReport) -> dict:
    """The JSON report of a library evaluation (no write-back: no root span, no provenance).

    Example:
        >>> from ek_otel.core.evaluate import evaluate
        >>> report_to_dict(evaluate([], []))["episodes"]
        []
    """
    episodes = [_episode_dict(s, {"task_id": s.task_id, "trace_id": s.trace_id,
                                  "revision": s.revision}) for s in report.scores]
    return _to_dict(report, episodes, report.scores, report.unmatched, 0, None,
                    _dollars_by_task(report.scores))


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: the report is a million fresh dicts and lists
    with no cycle among them, and with the whole run in memory each full collection rescans
    it (the report of 100k spans: 2.3-3.2 s of CPU with the collector, 0.7 s without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_to_dict(run: Any) -> dict:
    """The JSON report of a :class:`~ek_otel.scoring.run.ScoreRun` (``ek-otel score --json``).

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> sorted(run_to_dict(score_episodes([], {}, ScoreSettings())))[:3]
        ['aggregate', 'episodes', 'k']
    """
    with _no_cyclic_gc():
        episodes = [
            _episode_dict(e.score, {"task_id": e.task_id, "trace_id": e.trace_id,
                                    "root_span_id": e.root_span_id, "revision": e.revision,
                                    "service": e.evaluated_service})
            for e in run.envelopes
        ]
        return _to_dict(run.report, episodes, [e.score for e in run.envelopes], run.unmatched,
                        run.revisions, run.provenance, run.task_dollars)
