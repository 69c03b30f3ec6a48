"""Scoring a stream of episodes and aggregating the corpus: the one corpus loop, behind
``ek-otel score``, ``ek-otel report`` and :func:`evaluate` (``ek_otel.evaluate``).

- :func:`score_episodes` links and scores each episode (:mod:`~ek_otel.scoring.link`),
  sends the envelopes to a sink in batches, and aggregates a :class:`ScoreRun`.
- :func:`evaluate_corpus` is the library's :func:`evaluate`: the
  same loop, linking by task id only and writing nothing back.
- :func:`aggregate` makes the corpus report of scores made elsewhere (the server's store).

**Revisions**: an episode whose trace and root span were already scored (late spans) is
scored again as a revision: its revision number goes up by one, its new score is emitted,
and it replaces the earlier one in the report. The revision numbers come from the keys of
the last :data:`REVISION_MEMORY` distinct episodes (so that memory stays flat): an episode
that comes again after that many others is numbered 0 again, though it still replaces the
earlier one in the report. Dumps never come near that: their late spans re-score only the
traces :class:`~ek_otel.ingest.assemble.LateRecords` still keeps (a few thousand).

**Memory**: the report keeps every episode's latest score, in memory for a small run and in
a temporary file past :data:`~ek_otel.scoring.spool.SPOOL_AFTER` episodes
(:mod:`~ek_otel.scoring.spool`), so a run of millions of episodes takes flat memory.

Example:
    >>> from ek_otel.core.episode import Episode, Provenance, Step, TaskSpec, Trajectory
    >>> prov = Provenance(trace_id="ab" * 16, root_span_id="cd" * 8)
    >>> run = score_episodes([Episode("t", Trajectory([Step("a")]), provenance=prov)],
    ...                      {"t": TaskSpec("t", gold=[("a", {})])}, ScoreSettings())
    >>> run.report.f1, run.to_dict()["aggregate"]["episodes"]
    (1.0, 1)
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..core.agents import agent_rows
from ..core.episode import TaskSpec
from ..core.ignore import check_ignore_patterns
from ..core.reports import EvaluationReport
from ..core.aggregate import aggregate_scores, check_comparable, comparability_key, index_tasks
from ..core.evaluate import canonicalizer_name, score_episode
from ..emit.delivery import SendResult
from ..emit.envelope import ScoreEnvelope, ScoreProvenance
from .link import NO_TASK_ID, UNKNOWN_TASK, Unmatched, episode_ids, score_and_envelope
from .report import CorpusReport, dollars_by_task, envelope_row, run_to_dict
from .settings import ScoreSettings
from .spool import AppendRows, EpisodeRows, ignored_calls_of

__all__ = [
    "evaluate",
    "DEFAULT_BATCH",
    "REVISION_MEMORY",
    "Outcome",
    "ScoreRun",
    "collect_run",
    "score_stream",
    "aggregate",
    "score_episodes",
    "evaluate_corpus",
]

#: How many envelopes go to the sink in one ``send``.
DEFAULT_BATCH = 256

#: How many distinct episodes :func:`score_stream` remembers to number revisions (ten times
#: the traces :class:`~ek_otel.ingest.assemble.LateRecords` keeps for late spans by default;
#: some 300 bytes each).
REVISION_MEMORY = 20_000


@dataclass(frozen=True)
class ScoreRun:
    """What a scoring run did.

    Attributes:
        envelopes: The latest score of each scored episode, in first-seen order (a tuple;
            for a large run, an :class:`~ek_otel.scoring.spool.EpisodeRows` that reads them
            from a temporary file).
        unmatched: The episodes that were not scored, and why (a tuple; for a large run, a
            sequence read from a temporary file: :class:`~ek_otel.scoring.spool.AppendRows`).
        report: The corpus :class:`~ek_otel.core.reports.EvaluationReport` over
            ``envelopes`` (pass^k uses each task's episodes as its trials).
        revisions: How many re-scores (late spans) were made.
        emitted: How many envelopes were sent to the sink (revisions included).
        emit_failures: How many of them the sink did not accept.
        provenance: The :class:`~ek_otel.emit.envelope.ScoreProvenance` of the scores.
        emit_result: The sink's :class:`~ek_otel.emit.delivery.SendResult`s summed: per
            signal, the scores sent, failed, or not sent for want of the endpoint.
        json_rows: With ``ScoreSettings.json_rows``, the
            :class:`~ek_otel.scoring.spool.EpisodeRows` that also hold each envelope's row of
            the JSON report, encoded where it was scored
            (:func:`~ek_otel.scoring.report.envelope_row`); else None.
    """

    envelopes: tuple
    unmatched: tuple
    report: EvaluationReport
    revisions: int = 0
    emitted: int = 0
    emit_failures: int = 0
    provenance: Optional[ScoreProvenance] = None
    emit_result: SendResult = SendResult()
    json_rows: Optional[EpisodeRows] = None

    def agents(self) -> list:
        """The calls by agent of a multi-agent run (:func:`ek_otel.core.agents.agent_rows`
        over every scored episode's rows), made once; ``[]`` when no call names its agent.

        Example:
            >>> ScoreRun((), (), aggregate([], {})).agents()
            []
        """
        cached = self.__dict__.get("_agents")
        if cached is None:
            cached = agent_rows(row for envelope in self.envelopes
                                for row in envelope.score.calls)
            object.__setattr__(self, "_agents", cached)
        return cached

    @property
    def emit_ok(self) -> bool:
        """True when every envelope sent was accepted."""
        return self.emit_failures == 0

    def task_dollars(self, task_id: str) -> Optional[float]:
        """The dollars of one task's scored episodes; None unless every one of them is priced.

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> s = EpisodeScore("t", dollars=0.25)
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", s, ScoreProvenance("0", "", {}))
            >>> run = ScoreRun((env, env), (), aggregate([], {}))
            >>> run.task_dollars("t"), run.task_dollars("other")
            (0.5, None)
        """
        by_task = self.__dict__.get("_dollars_by_task")
        if by_task is None:
            by_task = dollars_by_task(score for score, _ in self._facts())
            object.__setattr__(self, "_dollars_by_task", by_task)  # once per run, not per task
        return by_task(task_id)

    @property
    def ignored_calls(self) -> int:
        """How many calls to ignored tools (``--ignore-tool``) the scores left out.

        Example:
            >>> score_episodes([], {}, ScoreSettings()).ignored_calls
            0
        """
        return sum(ignored_calls_of(score) for score, _ in self._facts())

    def _facts(self) -> Iterator[tuple]:
        """``(score, comparability)`` of each envelope (light records from a spool)."""
        if isinstance(self.envelopes, EpisodeRows):
            return self.envelopes.facts()
        return ((envelope.score, None) for envelope in self.envelopes)

    def to_dict(self, *, lazy_episodes: bool = False) -> dict:
        """The JSON report of ``ek-otel score --json`` (:func:`ek_otel.scoring.report.run_to_dict`;
        ``lazy_episodes``: its ``episodes`` made one block at a time as they are written).

        Example:
            >>> d = score_episodes([], {}, ScoreSettings()).to_dict()
            >>> d["aggregate"]["episodes"], d["aggregate"]["f1"], d["episodes"]
            (0, None, [])
        """
        return run_to_dict(self, lazy_episodes=lazy_episodes)


def aggregate(
    scored: Sequence[tuple],
    tasks: Mapping[str, TaskSpec],
    *,
    unmatched: Sequence[Unmatched] = (),
    k: Optional[int] = None,
    settings: Optional[ScoreSettings] = None,
    scores: Optional[Callable[[Optional[tuple]], Sequence]] = None,
) -> EvaluationReport:
    """The corpus report over ``(EpisodeScore, comparability_key)`` pairs (read once: they
    may be a stream; ``scores`` as in :func:`~ek_otel.core.aggregate.aggregate_scores`).

    The figures are the core's (:func:`~ek_otel.core.aggregate.aggregate_scores`): micro
    P/R/F1, per task, per slice, pass@k and pass^k, dollars. ``k`` defaults to
    :func:`~ek_otel.core.evaluate.default_k`. With several provenance keys the report
    carries one group per key instead of refusing.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> s = EpisodeScore("t", tp=1.0, f1=1.0, exact=True, success=True)
        >>> r = aggregate([(s, ()), (s, ())], {"t": TaskSpec("t")})
        >>> r.k, r.pass_hat_k["t"], r.f1
        (2, 1.0, 1.0)
    """
    run_settings: dict = {}
    if settings is not None:
        run_settings.update(settings.provenance().matcher, priced=settings.prices is not None)
    return aggregate_scores(scored, tasks, k=k, unmatched=unmatched,
                            settings=run_settings, group_by_provenance=None, scores=scores)


class _Batcher:
    """Envelopes to a sink, ``size`` per ``send``; counts what was sent and refused."""

    def __init__(self, sink: Any, size: int):
        self.sink, self.size = sink, size
        self.pending: list = []
        self.sent = 0
        self.failed = 0
        self.result = SendResult()

    def add(self, envelope: ScoreEnvelope) -> None:
        if self.sink is None:
            return
        self.pending.append(envelope)
        if len(self.pending) >= self.size:
            self.flush()

    def flush(self) -> None:
        if self.sink is None or not self.pending:
            return
        batch, self.pending = self.pending, []
        self.sent += len(batch)
        result = SendResult.from_bool(self.sink.send(batch), len(batch))
        self.result += result
        if not result:
            keys = set(result.failed_keys)
            self.failed += len(keys) if keys else len(batch)


@dataclass(frozen=True)
class Outcome:
    """One episode scored: the first half of the corpus loop (:func:`score_stream`), which
    :func:`collect_run` gathers. Worker processes make these for their share of the traces;
    the main process collects them in input order.

    ``key`` says which episode this is (a later outcome with the same key is a revision and
    replaces it); ``revision`` counts from 0; ``outcome`` is the
    :class:`~ek_otel.emit.envelope.ScoreEnvelope` (or the core score, for
    :func:`evaluate_corpus`) or the :class:`~ek_otel.scoring.link.Unmatched`;
    ``comparability`` is :func:`~ek_otel.core.aggregate.comparability_key` of the episode;
    ``row`` the envelope's row of the JSON report, encoded by the process that scored it
    (:func:`~ek_otel.scoring.report.envelope_row`; with ``ScoreSettings.json_rows`` only, else
    None): the main process of a parallel run then writes the report by joining them.

    Example:
        >>> Outcome(("ab" * 16, "cd" * 8), 0, Unmatched("ab" * 16, "x", UNKNOWN_TASK), ()).revision
        0
    """

    key: tuple
    revision: int
    outcome: Any
    comparability: tuple
    row: Optional[bytes] = None


@dataclass
class _Scored:
    """What the corpus loop gathered: the latest outcome per episode key, and the rest."""

    latest: EpisodeRows
    unmatched: AppendRows
    revisions: int


def _outcomes(
    episodes: Iterable[Any],
    score_one: Callable[[Any, int], Any],
    revision_key: Callable[[Any], Any],
    row_of: Optional[Callable[[Any], bytes]] = None,
) -> Iterator[Outcome]:
    """The per-episode half of the one corpus loop: score each episode
    (``score_one(episode, revision)`` returns an outcome or an :class:`Unmatched`); an
    episode whose ``revision_key`` was scored before is its next revision. The keys of the
    last :data:`REVISION_MEMORY` distinct episodes are remembered (module doc). ``row_of``
    encodes a scored outcome's row of the JSON report (:attr:`Outcome.row`)."""
    revision_of: "OrderedDict[Any, int]" = OrderedDict()
    for episode in episodes:
        key = revision_key(episode)
        revision = revision_of.get(key, -1) + 1
        outcome = score_one(episode, revision)
        row = None
        if not isinstance(outcome, Unmatched):
            if row_of is not None:
                row = row_of(outcome)
            revision_of[key] = revision
            if revision:
                revision_of.move_to_end(key)
            elif len(revision_of) > REVISION_MEMORY:
                revision_of.popitem(last=False)
        yield Outcome(key, revision, outcome, comparability_key(episode), row)


def _collect(
    outcomes: Iterable[Outcome],
    on_outcome: Optional[Callable[[Any], None]] = None,
    on_scored: Optional[Callable[[Any], None]] = None,
    spool_after: Optional[int] = None,
) -> _Scored:
    """The gathering half of the one corpus loop: a revision replaces the earlier outcome of
    its key (:class:`~ek_otel.scoring.spool.EpisodeRows`, which moves to a temporary file
    past ``spool_after`` episodes, default :data:`~ek_otel.scoring.spool.SPOOL_AFTER`); ``on_scored`` sees each scored outcome, ``on_outcome``
    every outcome."""
    done = _Scored(EpisodeRows(spool_after), AppendRows(spool_after), 0)
    for item in outcomes:
        outcome = item.outcome
        if isinstance(outcome, Unmatched):
            done.unmatched.append(outcome)
        else:
            done.revisions += 1 if item.revision else 0
            done.latest.put(item.key, outcome, item.comparability, item.row)
            if on_scored is not None:
                on_scored(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    return done


def _held(rows: AppendRows) -> Sequence:
    """The rows as a tuple when they are in memory (a small run), else the spooled rows."""
    return rows if rows.spooled else tuple(rows)


def _episode_key(episode: Any) -> tuple:
    trace_id, root_span_id = episode_ids(episode)
    return (trace_id, root_span_id) if trace_id else ("", str(id(episode)))


def score_stream(episodes: Iterable[Any], tasks: Mapping[str, TaskSpec],
                 settings: ScoreSettings) -> Iterator[Outcome]:
    """Link and score each episode: the :class:`Outcome` stream that :func:`collect_run`
    gathers (:func:`score_episodes` is the two together). With ``settings.json_rows`` each
    scored outcome also carries its encoded row of the JSON report (:attr:`Outcome.row`).

    Example:
        >>> from ek_otel.core.episode import Episode, Provenance, Step, TaskSpec, Trajectory
        >>> prov = Provenance(trace_id="ab" * 16, root_span_id="cd" * 8)
        >>> episodes = [Episode("t", Trajectory([Step("a")]), provenance=prov)] * 2
        >>> [(o.revision, o.outcome.revision) for o in score_stream(
        ...     episodes, {"t": TaskSpec("t", gold=[("a", {})])}, ScoreSettings())]
        [(0, 0), (1, 1)]
    """
    def score_one(episode: Any, revision: int) -> Any:
        return score_and_envelope(episode, tasks, settings, revision=revision)

    return _outcomes(episodes, score_one, _episode_key, envelope_row if settings.json_rows else None)


def collect_run(
    outcomes: Iterable[Outcome],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    sink: Any = None,
    on_episode: Optional[Callable[[Union[ScoreEnvelope, Unmatched]], None]] = None,
    batch_size: int = DEFAULT_BATCH,
) -> ScoreRun:
    """Gather scored :class:`Outcome` s (in input order) into a :class:`ScoreRun`: send the
    envelopes to ``sink`` in batches, keep the latest revision of each episode, aggregate.

    Memory stays flat however many episodes come: past
    :data:`~ek_otel.scoring.spool.SPOOL_AFTER` of them the envelopes move to a temporary
    file (:mod:`~ek_otel.scoring.spool`), the report is added up from it one row at a time,
    and the run's ``envelopes`` and ``report.scores`` read it again when asked.

    Example:
        >>> collect_run([], {}, ScoreSettings()).report.n_episodes
        0
    """
    batcher = _Batcher(sink, batch_size)
    done = _collect(outcomes, on_episode, batcher.add)
    batcher.flush()
    rows = done.latest
    unmatched = _held(done.unmatched)
    if rows.spooled:  # a large run: read from the spool, never held whole
        envelopes: Sequence = rows
        report = aggregate(rows.facts(), tasks, unmatched=unmatched, settings=settings,
                           scores=rows.scores)
    else:
        envelopes = tuple(rows)
        report = aggregate(list(rows.facts()), tasks, unmatched=unmatched, settings=settings)
    return ScoreRun(
        envelopes=envelopes,
        unmatched=unmatched,
        report=report,
        revisions=done.revisions,
        emitted=batcher.sent,
        emit_failures=batcher.failed,
        emit_result=batcher.result,
        provenance=settings.provenance(),
        json_rows=rows if settings.json_rows and rows.has_rows else None,
    )


def score_episodes(
    episodes: Iterable[Any],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    sink: Any = None,
    on_episode: Optional[Callable[[Union[ScoreEnvelope, Unmatched]], None]] = None,
    batch_size: int = DEFAULT_BATCH,
) -> ScoreRun:
    """Score a stream of episodes, send their envelopes to ``sink``, and aggregate:
    :func:`collect_run` of :func:`score_stream`.

    An episode whose trace and root span were already scored is a revision (module doc).

    Example:
        >>> from ek_otel.core.episode import Episode, Provenance, Step, TaskSpec, Trajectory
        >>> prov = Provenance(trace_id="ab" * 16, root_span_id="cd" * 8)
        >>> first = Episode("t", Trajectory([Step("a")]), provenance=prov)
        >>> again = Episode("t", Trajectory([Step("a"), Step("b")]), provenance=prov)
        >>> run = score_episodes([first, again], {"t": TaskSpec("t", gold=[("a", {})])},
        ...                      ScoreSettings())
        >>> [e.revision for e in run.envelopes], run.revisions, run.report.n_episodes
        ([1], 1, 1)
    """
    return collect_run(score_stream(episodes, tasks, settings), tasks, settings, sink=sink,
                       on_episode=on_episode, batch_size=batch_size)


def evaluate_corpus(
    episodes: Iterable[Any],
    tasks: Union[Mapping[str, TaskSpec], Iterable[TaskSpec]],
    *,
    k: Optional[int] = None,
    group_by_provenance: bool = False,
    **scoring: Any,
) -> EvaluationReport:
    """:func:`evaluate` (documented there): every episode is its own
    trial, linked by its task id alone; nothing is written back. ``scoring`` holds the
    keyword arguments of :func:`~ek_otel.core.evaluate.score_episode` (``level``,
    ``strategy``, ``prices``, ``canonicalizer``, ``ignore_tools``).

    Example:
        >>> from ek_otel.core.episode import Episode, TaskSpec
        >>> evaluate_corpus([Episode("t"), Episode("x")], [TaskSpec("t")]).unmatched
        (Unmatched(trace_id='', task_id='x', reason='task id not in the gold file', root_span_id=''),)
    """
    if k is not None and (not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer, not {k!r}")
    by_id = index_tasks(tasks)

    def score_one(episode: Any, _revision: int) -> Any:
        task = by_id.get(episode.task_id)
        if task is None:
            trace_id, root_span_id = episode_ids(episode)
            task_id = str(episode.task_id)
            return Unmatched(trace_id, task_id, UNKNOWN_TASK if task_id else NO_TASK_ID,
                             root_span_id)
        return score_episode(episode, task, **scoring)

    trial = itertools.count()
    done = _collect(_outcomes(episodes, score_one, lambda _episode: next(trial)))
    rows = done.latest
    if not group_by_provenance:
        check_comparable(key for _, key in rows.facts())
    if scoring.get("ignore_tools"):
        scoring["ignore_tools"] = check_ignore_patterns(scoring["ignore_tools"])
    settings = {"level": scoring.get("level", "call"), "strategy": scoring.get("strategy", "optimal"),
                "canonicalizer": canonicalizer_name(scoring.get("canonicalizer")),
                "priced": scoring.get("prices") is not None}
    if scoring.get("ignore_tools"):  # only when used: the default report keeps its shape
        settings["ignore_tools"] = list(scoring["ignore_tools"])
    if rows.spooled:
        return aggregate_scores(rows.facts(), by_id, k=k, unmatched=_held(done.unmatched),
                                settings=settings, group_by_provenance=group_by_provenance,
                                scores=rows.scores)
    return aggregate_scores(list(rows.facts()), by_id, k=k, unmatched=_held(done.unmatched),
                            settings=settings, group_by_provenance=group_by_provenance)


def evaluate(
    episodes: Iterable[Any],
    tasks: Union[Mapping[str, TaskSpec], Iterable[TaskSpec]],
    *,
    level: str = "call",
    strategy: str = "optimal",
    prices: Any = None,
    k: Optional[int] = None,
    group_by_provenance: bool = False,
    canonicalizer: Any = None,
    ignore_tools: Sequence[str] = (),
) -> CorpusReport:
    """Score a corpus of episodes against their tasks and aggregate.

    Each episode is scored with :func:`~ek_otel.core.evaluate.score_episode`. Figures are micro-averaged (summed
    TP/FP/FN), overall, per task and per slice. pass@k and pass^k use each task's episodes
    as its trials (``k`` defaults to :func:`~ek_otel.core.passk.default_k`: the fewest trials of any repeated
    task). ``dollars_per_success`` divides the total dollars by
    the number of successful episodes.

    Args:
        episodes: The episodes (any order; several per task are repeated trials).
        tasks: TaskSpecs, or a mapping task_id -> TaskSpec.
        level, strategy, canonicalizer, ignore_tools: As in :func:`~ek_otel.core.evaluate.score_episode`
            (``ignore_tools`` adds to each task's own; the report's ``settings`` records it).
        prices: A :class:`~ek_otel.core.cost.PriceTable` (or a mapping model -> ModelPrice) for dollars.
        k: The k of pass@k and pass^k (default: :func:`~ek_otel.core.passk.default_k`).
        group_by_provenance: Allow episodes with different ``run.comparability_key()``;
            the report then carries one :class:`~ek_otel.core.reports.ProvenanceGroup` per key (the top-level
            figures pool them, as asked).

    Raises:
        ComparabilityError: when the scored episodes have more than one provenance key and
            ``group_by_provenance`` is False.

    Example:
        >>> from ek_otel.core.episode import Episode, RunProvenance, TaskSpec
        >>> eps = [Episode("t", run=RunProvenance(model="a")),
        ...        Episode("t", run=RunProvenance(model="b")), Episode("zzz")]
        >>> evaluate(eps, [TaskSpec("t")])
        Traceback (most recent call last):
        ...
        ek_otel.errors.ComparabilityError: refusing to pool runs with 2 different provenance keys ...
        >>> r = evaluate(eps, [TaskSpec("t")], group_by_provenance=True)
        >>> [g.report.n_episodes for g in r.groups], tuple(u.task_id for u in r.unmatched)
        ([1, 1], ('zzz',))
        >>> from ek_otel.core.episode import Step, Trajectory
        >>> run = Episode("t", Trajectory([Step("search"), Step("transfer_to_billing")]))
        >>> r = evaluate([run], [TaskSpec("t", gold=[("search", {})])],
        ...              ignore_tools=["transfer_to_*"])
        >>> r.f1, r.settings["ignore_tools"]
        (1.0, ['transfer_to_*'])
    """
    return CorpusReport.of(evaluate_corpus(
        episodes, tasks, level=level, strategy=strategy, prices=prices, k=k,
        group_by_provenance=group_by_provenance, canonicalizer=canonicalizer,
        ignore_tools=ignore_tools))
