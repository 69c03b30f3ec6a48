"""The one JSON report shape: what ``ek-otel score --json`` and ``ek-otel report --json``
write, and what :meth:`CorpusReport.to_dict` (the report of ``ek_otel.evaluate``) returns.

Keys: ``aggregate`` (precision, recall, f1, exact_match, success_rate, episodes, unmatched,
revisions, k, mean pass@k / pass^k, cost, dollars, dollars_per_success), ``episodes`` (one
entry per scored episode: task_id, trace_id, [root_span_id,] revision, [service,] tp/fp/fn,
precision/recall/f1, exact, success, label, explanation, cost, dollars, arg_diffs,
missing_calls, spurious_calls, calls (the matcher's pairing: ``got``, ``gold``, ``turn``,
``exact``, ``arg_diffs`` indexes), ``match`` (the task's match mode, when not ``exact``),
``violations`` (the hard rules broken: kind, tool, detail; only when some were), and
``group`` (index into ``groups``) when there are groups; root_span_id and service come with
a written-back score),
``headline`` (runs, runs_passed, tasks, pass, flaky, fail, text: :mod:`ek_otel.core.verdicts`),
``per_task`` (figures, ``verdict`` pass/flaky/fail, pass@k, pass^k, dollars, slice), ``per_slice``, ``k``,
``pass_at_k``/``pass_hat_k`` per task, ``unmatched`` (trace_id, task_id, reason),
``provenance`` (None for a library evaluation, which writes nothing back) and, with several
provenance keys, ``groups`` (key, aggregate, headline, per_task; each group's ``aggregate.k`` and its
pass@k / pass^k come from that run's own trials unless the caller fixed ``k``). Rates of an
empty cut and undefined pass^k are null, and so are precision with no call predicted, recall
with no call expected, and F1 with neither (:func:`~ek_otel.core.fields.defined_precision_recall_f1`).

Example:
    >>> from ek_otel.core.episode import Episode, TaskSpec
    >>> from ek_otel import evaluate
    >>> d = report_to_dict(evaluate([Episode("t"), Episode("lost")], [TaskSpec("t")]))
    >>> d["aggregate"]["episodes"], d["aggregate"]["f1"], d["unmatched"][0]["task_id"]
    (1, None, 'lost')
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Optional

from ..core.agents import agent_rows
from ..core.jsonable import to_jsonable
from ..core.reports import EvaluationReport
from ..core.gc_pause import paused_gc
from ..core.scores import EpisodeScore
from ..core.tally import DollarTally
from ..core.verdicts import headline_of, task_verdict
from .report_json import list_item, with_last_key
from .spool import AppendRows, Chained, EpisodeRows, Scores, score_of

__all__ = ["report_to_dict", "run_to_dict", "episode_dict", "envelope_row", "dollars_of",
           "dollars_by_task", "EpisodeStream", "CorpusReport"]


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
    out.update(unmatched=unmatched, revisions=revisions)
    out.update((name, getattr(report, name)) for name in _CORPUS_FIGURES)
    return out


#: The corpus report's figures in the aggregate block, in their order there.
_CORPUS_FIGURES = ("k", "mean_pass_at_k", "mean_pass_hat_k", "cost", "dollars", "n_unpriced",
                   "n_cost_incomplete", "dollars_per_success")


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
        "calls": [_row_dict(r) for r in s.calls],
    })
    if s.answer is not None:  # only for tasks that expect an answer: other rows keep their bytes
        out["answer"] = {"value": s.answer.value, "passed": bool(s.answer.detail.get("passed")),
                         "explanation": s.answer.explanation}
    match = s.settings.get("match") if s.settings else None
    if match:  # the same for the match mode and the hard rules: only when a task uses them
        out["match"] = match
    if s.violations:
        out["violations"] = [v.to_dict() for v in s.violations]
    if s.turns:  # a multi-turn task, on a run that recorded its user turns
        out["turns"] = [t.to_dict() for t in s.turns]
    return out


def _row_dict(r: Any) -> dict:
    row = {"got": _call_dict(r.got), "gold": _call_dict(r.gold), "turn": r.turn,
           "exact": r.exact, "arg_diffs": list(r.diffs)}
    if r.agent is not None:  # multi-agent runs only
        row["agent"] = r.agent
    return row


def answer_figures(envelopes: Iterable[Any]) -> Optional[dict]:
    """The corpus figures of the answer metric (``ek.answer``): ``{"episodes", "passed",
    "rate"}`` over the episodes whose task expects an answer; None when none does.

    Example:
        >>> from ek_otel.core.scores import Score
        >>> from types import SimpleNamespace as E
        >>> def env(passed):
        ...     return E(score=E(answer=None if passed is None else Score(float(passed), detail={"passed": passed})))
        >>> answer_figures([env(True), env(False), env(None)])
        {'episodes': 2, 'passed': 1, 'rate': 0.5}
        >>> answer_figures([env(None)]) is None
        True
    """
    episodes = passed = 0
    for envelope in envelopes:
        answer = getattr(envelope.score, "answer", None)
        if answer is not None:
            episodes += 1
            passed += bool(answer.detail.get("passed"))
    if not episodes:
        return None
    return {"episodes": episodes, "passed": passed, "rate": passed / episodes}
def episode_dict(score: EpisodeScore) -> dict:
    """One episode's row as the JSON report writes it (without the trace's head).

    Example:
        >>> episode_dict(EpisodeScore("t", success=False, explanation="no call"))["explanation"]
        'no call'
    """
    return to_jsonable(_episode_dict(score, _library_head(score)))


def envelope_row(envelope: Any) -> bytes:
    """A written-back score's row of ``ek-otel score --json`` (without ``group``), encoded as
    the report holds it among its episodes (:func:`~ek_otel.scoring.report_json.list_item`):
    made where the episode is scored (``ScoreSettings.json_rows``), so that writing the report
    only joins the rows.

    Example:
        >>> import json
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0", "", {}))
        >>> json.loads(envelope_row(env))["root_span_id"] == "cd" * 8
        True
    """
    return list_item(to_jsonable(_episode_dict(envelope.score, _envelope_head(envelope))))


def _call_dict(call: Any) -> Optional[dict]:
    return None if call is None else {"tool": call[0], "args": call[1]}


def dollars_of(scores: Iterable[EpisodeScore]) -> Optional[float]:
    """The summed dollars of scores; None unless every one of them is priced (or none given).

    Example:
        >>> dollars_of([EpisodeScore("t", dollars=0.25), EpisodeScore("t", dollars=0.5)])
        0.75
        >>> dollars_of([EpisodeScore("t", dollars=0.25), EpisodeScore("t")]), dollars_of([])
        (None, None)
    """
    tally = DollarTally()
    for s in scores:
        tally.add(s.dollars)
    return tally.value


def dollars_by_task(scores: Iterable[Any]) -> Callable[[str], Optional[float]]:
    """task id -> the summed dollars of its scores (:func:`dollars_of`), read in one pass.

    Example:
        >>> by_task = dollars_by_task([EpisodeScore("t", dollars=0.25), EpisodeScore("u")])
        >>> by_task("t"), by_task("u"), by_task("other")
        (0.25, None, None)
    """
    tallies: dict = {}
    for s in scores:
        tally = tallies.get(s.task_id)
        if tally is None:
            tally = tallies[s.task_id] = DollarTally()
        tally.add(s.dollars)
    return lambda task_id: tallies[task_id].value if task_id in tallies else None


def _per_task(report: EvaluationReport, task_dollars: Callable[[str], Optional[float]]) -> dict:
    per_task = {}
    for task_id, cut in report.per_task.items():
        figures = _figures(cut)
        figures.update(
            verdict=task_verdict(cut.n, cut.successes),
            pass_at_k=report.pass_at_k.get(task_id),
            pass_hat_k=report.pass_hat_k.get(task_id),
            dollars=task_dollars(task_id),
            slice=report.slices.get(task_id),
        )
        per_task[task_id] = figures
    return per_task


class EpisodeStream:
    """The JSON report's ``episodes`` made one at a time, for a report too large to hold
    whole: iterable (again and again) and sized; :mod:`~ek_otel.scoring.report_json`
    writes it in blocks, as it writes a long list. ``encoded``, when given, makes the same
    rows already encoded (:func:`~ek_otel.scoring.report_json.list_item`), which the
    writer joins instead.

    Example:
        >>> stream = EpisodeStream(lambda: iter([{"f1": 1.0}]), 1)
        >>> len(stream), list(stream), stream.encoded
        (1, [{'f1': 1.0}], None)
    """

    def __init__(self, make: Callable[[], Iterator[dict]], length: int,
                 encoded: Optional[Callable[[], Iterator[bytes]]] = None):
        self.make, self.length, self.encoded = make, length, encoded

    def __iter__(self) -> Iterator[dict]:
        return self.make()

    def __len__(self) -> int:
        return self.length


def _headline(report: EvaluationReport) -> dict:
    return headline_of((cut.n, cut.successes) for cut in report.per_task.values()).to_dict()


def _to_dict(report: EvaluationReport, episodes: Any, unmatched: Sequence[Any], revisions: int,
             provenance: Any, task_dollars: Callable[[str], Optional[float]],
             agents: Sequence[Any] = ()) -> dict:
    out = {
        "aggregate": _aggregate_dict(report, len(unmatched), revisions),
        "headline": _headline(report),
        "episodes": [],
        "per_task": _per_task(report, task_dollars),
        "per_slice": {name: _figures(cut) for name, cut in report.per_slice.items()},
        "k": report.k,
        "pass_at_k": dict(report.pass_at_k),
        "pass_hat_k": dict(report.pass_hat_k),
        "unmatched": [],
        "provenance": provenance,
    }
    if report.groups:
        out["groups"] = [
            {"key": list(g.key), "aggregate": _aggregate_dict(g.report, 0, 0),
             "headline": _headline(g.report),
             "per_task": _per_task(g.report, _report_dollars(g.report))}
            for g in report.groups
        ]
    out = to_jsonable(out)
    out["episodes"] = episodes  # in its place among the keys

    def unmatched_rows() -> Iterator[dict]:
        for u in unmatched:
            yield {"trace_id": u.trace_id, "task_id": u.task_id, "reason": u.reason}

    lazy = isinstance(episodes, EpisodeStream) and isinstance(unmatched, (AppendRows, Chained))
    out["unmatched"] = (EpisodeStream(unmatched_rows, len(unmatched)) if lazy
                        else to_jsonable(list(unmatched_rows())))
    if agents:  # multi-agent runs only: other reports keep their bytes
        out["agents"] = [row.as_dict() for row in agents]
    return out


def _report_dollars(report: EvaluationReport) -> Callable[[str], Optional[float]]:
    """task id -> dollars, from the report's own tally (or its scores, for a report made
    before it had one)."""
    if report.task_dollars or not report.per_task:
        return lambda task_id: report.task_dollars.get(task_id)
    return dollars_by_task(report.scores)


def _episodes(rows: Iterable[tuple], group_of: Callable[[Any, Any], Optional[int]],
              head: Callable[[Any], dict], grouped: bool) -> Iterator[dict]:
    """The JSON rows of ``(outcome, comparability)`` pairs (the cyclic GC paused while they
    are made, :func:`~ek_otel.core.gc_pause.paused_gc`: a million fresh dicts and lists with
    no cycle among them)."""
    with paused_gc():
        for outcome, comparability in rows:
            score = score_of(outcome)
            row = _episode_dict(score, head(outcome))
            if grouped:
                row["group"] = group_of(score, comparability)
            yield to_jsonable(row)


def _encoded_episodes(rows: Iterable[tuple], group_of: Callable[[Any, Any], Optional[int]],
                      grouped: bool) -> Iterator[bytes]:
    """The rows of :func:`_episodes`, from ``(encoded row, comparability)`` pairs
    (:func:`envelope_row`): as they are, or with their ``group``."""
    if not grouped:
        for row, _ in rows:
            yield row
        return
    for row, comparability in rows:
        yield with_last_key(row, "group", group_of(None, comparability))


def _group_finder(report: EvaluationReport, by_key: bool) -> Callable[[Any, Any], Optional[int]]:
    """``(score, comparability) -> index into groups``: by comparability key, or (for scores
    held in memory with no key beside them) by the score object itself."""
    if by_key:
        index = {g.key: i for i, g in enumerate(report.groups)}
        return lambda _score, key: index.get(key)
    group_of = {id(s): i for i, g in enumerate(report.groups) for s in g.report.scores}
    return lambda score, _key: group_of.get(id(score))


def _report(report: EvaluationReport, outcomes: Any, head: Callable[[Any], dict],
            unmatched: Sequence[Any], revisions: int, provenance: Any,
            task_dollars: Callable[[str], Optional[float]], lazy: bool,
            encoded: Optional[EpisodeRows] = None, agents: Sequence[Any] = ()) -> dict:
    spooled = isinstance(outcomes, EpisodeRows)
    group_of = _group_finder(report, by_key=spooled)
    grouped = bool(report.groups)

    def rows() -> Iterator[tuple]:
        return outcomes.rows() if spooled else ((o, None) for o in outcomes)

    if lazy:
        made: Optional[Callable[[], Iterator[bytes]]] = None
        if encoded is not None:  # the rows were encoded where they were scored
            by_key = _group_finder(report, by_key=True)
            made = lambda: _encoded_episodes(encoded.encoded_rows(), by_key, grouped)  # noqa: E731
        episodes: Any = EpisodeStream(lambda: _episodes(rows(), group_of, head, grouped),
                                      len(outcomes), made)
    else:
        episodes = list(_episodes(rows(), group_of, head, grouped))
    return _to_dict(report, episodes, unmatched, revisions, provenance, task_dollars, agents)


def _library_head(s: EpisodeScore) -> dict:
    return {"task_id": s.task_id, "trace_id": s.trace_id, "revision": s.revision}


def _envelope_head(e: Any) -> dict:
    head = {"task_id": e.task_id, "trace_id": e.trace_id, "root_span_id": e.root_span_id,
            "revision": e.revision, "service": e.evaluated_service}
    transcript = getattr(e, "transcript", None)  # score --transcripts only
    if transcript is not None:
        head["transcript"] = transcript
    return head


def report_to_dict(report: EvaluationReport) -> dict:
    """The JSON report of a library evaluation (no write-back: no root span, no provenance).

    Example:
        >>> from ek_otel import evaluate
        >>> report_to_dict(evaluate([], []))["episodes"]
        []
    """
    scores = report.scores
    outcomes = scores.rows if isinstance(scores, Scores) else scores
    return _report(report, outcomes, _library_head, report.unmatched, 0, None,
                   _report_dollars(report), lazy=False,
                   agents=agent_rows(row for s in outcomes for row in score_of(s).calls))


def run_to_dict(run: Any, *, lazy_episodes: bool = False) -> dict:
    """The JSON report of a :class:`~ek_otel.scoring.run.ScoreRun` (``ek-otel score --json``).

    With ``lazy_episodes`` its ``episodes`` (and its ``unmatched``, when they were spooled)
    are an :class:`EpisodeStream`, made one block at a time as the report is written
    (``ek-otel score --json`` of millions of episodes); and when the run holds its rows
    encoded already (``run.json_rows``: :func:`envelope_row`, made where each episode was
    scored), the stream's ``encoded`` gives them, so that writing the report joins them.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> sorted(run_to_dict(score_episodes([], {}, ScoreSettings())))[:3]
        ['aggregate', 'episodes', 'headline']
    """
    return _report(run.report, run.envelopes, _envelope_head, run.unmatched, run.revisions,
                   run.provenance, run.task_dollars, lazy=lazy_episodes,
                   encoded=getattr(run, "json_rows", None), agents=run.agents())


@dataclass(frozen=True)
class CorpusReport(EvaluationReport):
    """What :func:`ek_otel.evaluate` returns: an
    :class:`~ek_otel.core.reports.EvaluationReport` that also writes the one JSON report
    (the core's report knows no JSON shape: that is this module's).

    Example:
        >>> from ek_otel.core.episode import Episode, TaskSpec
        >>> from ek_otel import evaluate
        >>> d = evaluate([Episode("t")], [TaskSpec("t")], k=2).to_dict()
        >>> d["pass_at_k"], d["aggregate"]["f1"], d["aggregate"]["episodes"]
        ({'t': None}, None, 1)
    """

    @classmethod
    def of(cls, report: EvaluationReport) -> "CorpusReport":
        """The same report (its fields shared, not copied), as a :class:`CorpusReport`."""
        return cls(**{f.name: getattr(report, f.name) for f in fields(report)})

    def to_dict(self) -> dict:
        """The JSON report, in the one shape ``ek-otel score --json`` writes too
        (:func:`report_to_dict`; NaN becomes null)."""
        return report_to_dict(self)
