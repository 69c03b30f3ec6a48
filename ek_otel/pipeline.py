"""The scoring pipeline: read → group → build episodes → link to tasks → score → emit.

- :func:`score_and_envelope` is the per-episode step, shared with ``ek-otel serve``: link one
  episode to its task, score it, and return the :class:`~ek_otel.emit.envelope.ScoreEnvelope`
  to write back, or an :class:`Unmatched` saying why it could not be scored.
- :func:`score_episodes` runs that over a stream of episodes, sends the envelopes to a sink
  in batches, and aggregates the corpus report; :func:`score_dump` does the same from dump
  files (the ``ek-otel score`` command).

**Linking** (``design.md``, "Linking traces to tasks"): an episode's task id comes from its
root span or resource (the episode builder reads it). An episode without one is scored
against ``ScoreSettings.default_task_id`` (a one-task gold file, or ``--task``), else listed
as unmatched; an episode whose task id is not among the tasks is listed as unmatched, never
dropped.

**Late spans**: with a dump, a trace is closed some records after its root span; records
that arrive for it later come as a ``late`` group. The pipeline keeps the records of the
most recently closed traces (:data:`KEEP_CLOSED_TRACES`), rebuilds the episode from the old
and the late records together, scores it again, and emits the new score as a **revision**
(``ek.revision`` 1, 2, ...); the report keeps only the latest revision of each episode.
Late records for a trace no longer kept are listed as unmatched (reason
:data:`LATE_EVICTED`), never scored from half a trace.

**Conversations**: with ``group_by="conversation"`` (or ``"session"``) an episode spans
several traces; its score is written to the root span of its earliest trace.

**ek-otel's own output** (resource ``service.name="ek-otel"``, see
:func:`~ek_otel.emit.attributes.is_ek_output`) found in a dump is skipped, so a dump that
already holds scores is scored the same, and never produces revisions of itself.

Example:
    >>> from ek_otel.core.episode import Episode, Provenance, Step, TaskSpec, Trajectory
    >>> task = TaskSpec("t1", gold=[("search", {"q": "cats"})])
    >>> ep = Episode("", Trajectory([Step("search", {"q": "cats"})]),
    ...              provenance=Provenance(trace_id="ab" * 16, root_span_id="cd" * 8))
    >>> settings = ScoreSettings(default_task_id="t1", scored_at_ns=1)
    >>> env = score_and_envelope(ep, {"t1": task}, settings)
    >>> env.task_id, env.score.f1, env.score.label, env.revision
    ('t1', 1.0, 'pass', 0)
    >>> score_and_envelope(ep, {"t1": task}, ScoreSettings())
    Unmatched(trace_id='abababababababababababababababab', task_id='', reason='no task id', root_span_id='cdcdcdcdcdcdcdcd')
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional, Union

from . import __version__
from .core.cost import PriceTable
from .core.episode import Episode, RunProvenance, TaskSpec
from .core.evaluate import (
    EvaluationReport,
    UnmatchedEpisode,
    aggregate_scores,
    score_episode,
    to_jsonable,
)
from .core.scores import EpisodeScore
from .core.toolcalls import LEVELS, STRATEGIES
from .emit.attributes import is_ek_output
from .emit.delivery import SendResult
from .emit.envelope import ScoreEnvelope, ScoreProvenance
from .ingest.semconv import DEFAULT_TASK_ID_KEYS

__all__ = [
    "MATCHERS",
    "SCORE_STRATEGIES",
    "GROUP_BY_CHOICES",
    "KEEP_CLOSED_TRACES",
    "DEFAULT_BATCH",
    "NO_TASK_ID",
    "UNKNOWN_TASK",
    "NO_ROOT_SPAN",
    "LATE_EVICTED",
    "ScoreSettings",
    "Unmatched",
    "ScoreRun",
    "file_sha256",
    "task_id_key_list",
    "load_gold",
    "load_settings",
    "check_tasks",
    "link_task",
    "score_and_envelope",
    "score_episodes",
    "score_dump",
    "read_episodes",
    "aggregate",
]

#: ``ek``: ek-otel's tool-call matcher (F1 over calls or arguments). ``bfcl``: the official
#: BFCL checker's verdict per episode (:mod:`ek_otel.bfcl.matcher`; gold from
#: ``ek-otel gold from-bfcl``): it decides pass/fail, the ek counts stay as detail.
MATCHERS = ("ek", "bfcl")
#: How predicted calls are paired with gold calls when scoring (``ordered`` is for traces).
SCORE_STRATEGIES = tuple(s for s in STRATEGIES if s != "ordered")
#: What one episode is: a trace, or the traces of one conversation / session.
GROUP_BY_CHOICES = ("trace", "conversation", "session")
#: How many closed traces keep their records so that late spans can re-score them.
KEEP_CLOSED_TRACES = 2_000
#: How many envelopes go to the sink in one ``send``.
DEFAULT_BATCH = 256

#: Unmatched reasons.
NO_TASK_ID = "no task id"
UNKNOWN_TASK = "task id not in the gold file"
NO_ROOT_SPAN = "no root span to write the score to"
LATE_EVICTED = "late spans for a trace no longer in memory"


@dataclass(frozen=True)
class ScoreSettings:
    """How episodes are linked, scored and stamped.

    Args:
        level: ``"call"`` or ``"arg"`` (what a true positive is).
        strategy: ``"optimal"`` or ``"best_first"`` pairing of calls with gold calls.
        matcher: One of :data:`MATCHERS`.
        canonicalizer: Optional value canonicalizer passed to the matcher.
        prices: A :class:`~ek_otel.core.cost.PriceTable` for dollars, or None.
        default_task_id: The task of episodes that carry no task id (one-task gold, ``--task``).
        gold_sha256: The hash of the gold file (provenance of every score).
        evaluator_version: Stamped on every score; ek-otel's version by default.
        group_by: One of :data:`GROUP_BY_CHOICES`.
        task_id_keys: Attribute keys tried for the task id, in order.
        scored_at_ns: A fixed score timestamp (tests); None means "now".

    Raises:
        ValueError: for an unknown level, strategy, matcher or grouping.

    Example:
        >>> ScoreSettings(level="arg").provenance().matcher
        {'matcher': 'ek', 'level': 'arg', 'strategy': 'optimal', 'canonicalizer': 'default'}
        >>> ScoreSettings(level="word")
        Traceback (most recent call last):
        ...
        ValueError: level must be one of call, arg; got 'word'
    """

    level: str = "call"
    strategy: str = "optimal"
    matcher: str = "ek"
    canonicalizer: Any = None
    prices: Optional[PriceTable] = None
    default_task_id: Optional[str] = None
    gold_sha256: str = ""
    evaluator_version: str = __version__
    group_by: str = "trace"
    task_id_keys: tuple = DEFAULT_TASK_ID_KEYS
    scored_at_ns: Optional[int] = None

    def __post_init__(self) -> None:
        for name, value, choices in (
            ("level", self.level, LEVELS),
            ("strategy", self.strategy, SCORE_STRATEGIES),
            ("matcher", self.matcher, MATCHERS),
            ("group_by", self.group_by, GROUP_BY_CHOICES),
        ):
            if value not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
        object.__setattr__(self, "task_id_keys", tuple(self.task_id_keys))

    def canonicalizer_name(self) -> str:
        """The canonicalizer's name as recorded in provenance (``"default"`` when None).

        Example:
            >>> ScoreSettings(canonicalizer=str.lower).canonicalizer_name()
            'str.lower'
        """
        if self.canonicalizer is None:
            return "default"
        return getattr(self.canonicalizer, "__qualname__", None) or type(self.canonicalizer).__name__

    def provenance(self) -> ScoreProvenance:
        """The :class:`~ek_otel.emit.envelope.ScoreProvenance` of scores made with these settings.

        Example:
            >>> ScoreSettings(gold_sha256="ab" * 32).provenance().gold_sha256[:4]
            'abab'
        """
        cached = self.__dict__.get("_provenance")
        if cached is None:
            cached = self._make_provenance()
            object.__setattr__(self, "_provenance", cached)  # one per settings, shared by scores
        return cached

    def _make_provenance(self) -> ScoreProvenance:
        return ScoreProvenance(
            evaluator_version=self.evaluator_version,
            gold_sha256=self.gold_sha256,
            matcher={
                "matcher": self.matcher,
                "level": self.level,
                "strategy": self.strategy,
                "canonicalizer": self.canonicalizer_name(),
            },
        )


@dataclass(frozen=True)
class Unmatched:
    """An episode that was not scored, and why: listed in the report, never dropped silently.

    Example:
        >>> Unmatched("ab" * 16, "weather-tokyo", UNKNOWN_TASK).reason
        'task id not in the gold file'
    """

    trace_id: str
    task_id: str
    reason: str
    root_span_id: str = ""


def file_sha256(path: str) -> str:
    """The SHA-256 (hex) of a file's bytes: the gold file's identity in every score.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "g.jsonl"); _ = open(p, "wb").write(b"")
        >>> file_sha256(p)
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def task_id_key_list(extra: Iterable[str] = ()) -> tuple:
    """The task-id keys to try: the given ones first, then the defaults (no duplicates).

    Example:
        >>> task_id_key_list(["my.task"])[:2]
        ('my.task', 'ek.task.id')
    """
    return tuple(dict.fromkeys([*extra, *DEFAULT_TASK_ID_KEYS]))


def load_gold(path: str, task_id: Optional[str] = None) -> tuple:
    """``(tasks, default_task_id)`` of a gold file, as ``score`` and ``serve`` link runs.

    ``tasks`` maps task id -> TaskSpec. The default task (for episodes without a task id)
    is ``task_id`` when given, else the only task of a one-task file, else None.

    Raises:
        GoldFileError: a broken or empty gold file, or a ``task_id`` that is not in it.

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "g.jsonl")
        >>> _ = open(p, "w").write('{"task_id": "only"}')
        >>> tasks, default = load_gold(p)
        >>> list(tasks), default
        (['only'], 'only')
        >>> load_gold(p, "other")
        Traceback (most recent call last):
        ...
        ek_otel.errors.GoldFileError: ...g.jsonl: --task 'other' is not a task of this gold file
    """
    from .errors import GoldFileError
    from .gold.native import load_tasks

    tasks_list = load_tasks(path)
    if not tasks_list:
        raise GoldFileError(path, None, "the gold file holds no task")
    tasks = {t.task_id: t for t in tasks_list}
    if task_id is not None and task_id not in tasks:
        raise GoldFileError(path, None, f"--task {task_id!r} is not a task of this gold file")
    if task_id is not None:
        return tasks, task_id
    return tasks, (tasks_list[0].task_id if len(tasks_list) == 1 else None)


def load_settings(
    gold: str,
    *,
    task_id: Optional[str] = None,
    level: str = "call",
    strategy: str = "optimal",
    matcher: str = "ek",
    pricing: Optional[str] = None,
    task_id_keys: Iterable[str] = (),
    group_by: str = "trace",
) -> tuple:
    """``(tasks, ScoreSettings)`` from a gold file and the scoring options, as ``score`` and
    ``serve`` take them (see :func:`~ek_otel.cli._common.scoring_options`).

    Raises:
        GoldFileError: a broken or empty gold file, a ``task_id`` not in it, or tasks the
            matcher cannot score; InputError: a pricing file that cannot be used.

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "g.jsonl")
        >>> _ = open(p, "w").write('{"task_id": "only"}')
        >>> tasks, settings = load_settings(p, level="arg", task_id_keys=["my.task"])
        >>> list(tasks), settings.default_task_id, settings.level, settings.task_id_keys[:2]
        (['only'], 'only', 'arg', ('my.task', 'ek.task.id'))
    """
    tasks, default_task = load_gold(gold, task_id)
    prices = None
    if pricing:
        from .gold.pricing import load_pricing

        prices = load_pricing(pricing)
    settings = ScoreSettings(
        level=level, strategy=strategy, matcher=matcher, prices=prices,
        default_task_id=default_task, gold_sha256=file_sha256(gold), group_by=group_by,
        task_id_keys=task_id_key_list(task_id_keys),
    )
    check_tasks(tasks, settings)
    return tasks, settings


def _ids(episode: Any) -> tuple:
    provenance = getattr(episode, "provenance", None)
    return (getattr(provenance, "trace_id", "") or "", getattr(provenance, "root_span_id", "") or "")


def link_task(
    episode: Any, tasks: Mapping[str, TaskSpec], settings: ScoreSettings
) -> Union[TaskSpec, Unmatched]:
    """The task an episode is scored against, or :class:`Unmatched` (see module doc).

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> tasks = {"a": TaskSpec("a")}
        >>> link_task(Episode("a"), tasks, ScoreSettings()).task_id
        'a'
        >>> link_task(Episode("b"), tasks, ScoreSettings(default_task_id="a")).reason
        'task id not in the gold file'
        >>> link_task(Episode(""), tasks, ScoreSettings(default_task_id="a")).task_id
        'a'
    """
    trace_id, root_span_id = _ids(episode)
    task_id = str(getattr(episode, "task_id", "") or "")
    if not task_id:
        if settings.default_task_id is not None and settings.default_task_id in tasks:
            return tasks[settings.default_task_id]
        return Unmatched(trace_id, "", NO_TASK_ID, root_span_id)
    task = tasks.get(task_id)
    if task is None:
        return Unmatched(trace_id, task_id, UNKNOWN_TASK, root_span_id)
    return task


def check_tasks(tasks: Mapping[str, TaskSpec], settings: ScoreSettings) -> None:
    """Check, before anything is read, that the matcher can score every task.

    The ``bfcl`` matcher needs gold made by ``ek-otel gold from-bfcl`` (single-turn
    categories); the ``ek`` matcher scores any task.

    Raises:
        BfclDataError: a task the BFCL checker cannot check, named.

    Example:
        >>> check_tasks({"t": TaskSpec("t")}, ScoreSettings())
        >>> check_tasks({"t": TaskSpec("t")}, ScoreSettings(matcher="bfcl"))
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: task t: meta.bfcl_category is missing (make the gold with `ek-otel gold from-bfcl`)
    """
    if settings.matcher != "bfcl":
        return
    from .bfcl.matcher import entry_from_task

    for task in tasks.values():
        entry_from_task(task)


def _bfcl_score(episode: Any, task: TaskSpec, settings: ScoreSettings) -> EpisodeScore:
    """The BFCL checker's verdict decides success; the ek matcher's counts stay as detail."""
    from .bfcl.matcher import bfcl_verdict_for_episode

    verdict = bfcl_verdict_for_episode(episode, task)
    base = score_episode(episode, task, level=settings.level, strategy=settings.strategy,
                         canonicalizer=settings.canonicalizer, prices=settings.prices)
    if verdict.valid:
        why = "BFCL: valid"
    else:
        why = f"BFCL: {verdict.error_type}: " + "; ".join(str(e) for e in verdict.errors)
    return replace(base, metric="bfcl", exact=verdict.valid, success=verdict.valid,
                   explanation=why, settings={**base.settings, "matcher": "bfcl"})


def score_and_envelope(
    episode: Any,
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    revision: int = 0,
) -> Union[ScoreEnvelope, Unmatched]:
    """Link, score and wrap one episode: the per-episode step of ``score`` and ``serve``.

    Args:
        episode: An :class:`~ek_otel.core.episode.Episode` (its provenance gives the trace
            and root span ids).
        tasks: task_id -> :class:`~ek_otel.core.episode.TaskSpec`.
        settings: The :class:`ScoreSettings`.
        revision: 0 for the first score of this episode, +1 per re-score.

    Example:
        >>> from ek_otel.core.episode import Episode, Provenance, TaskSpec
        >>> ep = Episode("t", provenance=Provenance(trace_id="ab" * 16))
        >>> score_and_envelope(ep, {"t": TaskSpec("t")}, ScoreSettings()).reason
        'no root span to write the score to'
    """
    linked = link_task(episode, tasks, settings)
    if isinstance(linked, Unmatched):
        return linked
    trace_id, root_span_id = _ids(episode)
    if not trace_id or not root_span_id:
        return Unmatched(trace_id, linked.task_id, NO_ROOT_SPAN, root_span_id)
    if settings.matcher == "bfcl":
        score = _bfcl_score(episode, linked, settings)
    else:
        score = score_episode(episode, linked, level=settings.level, strategy=settings.strategy,
                              canonicalizer=settings.canonicalizer, prices=settings.prices)
    if score.trace_id != trace_id or score.revision != revision:  # else replace() is a copy
        score = replace(score, trace_id=trace_id, revision=revision)
    provenance = getattr(episode, "provenance", None)
    return ScoreEnvelope(
        trace_id=trace_id,
        root_span_id=root_span_id,
        task_id=linked.task_id,
        score=score,
        provenance=settings.provenance(),
        revision=revision,
        evaluated_service=getattr(provenance, "service_name", None),
        scored_at_ns=settings.scored_at_ns if settings.scored_at_ns is not None else time.time_ns(),
        root_end_ns=getattr(provenance, "root_end_ns", 0) or 0,
    )


# ---------------------------------------------------------------------------
# Many episodes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreRun:
    """What a pipeline run did.

    Attributes:
        envelopes: The latest score of each scored episode, in first-seen order.
        unmatched: The episodes that were not scored, and why.
        report: The corpus :class:`~ek_otel.core.evaluate.EvaluationReport` over
            ``envelopes`` (pass^k uses each task's episodes as its trials).
        revisions: How many re-scores (late spans) were made.
        emitted: How many envelopes were sent to the sink (revisions included).
        emit_failures: How many of them the sink did not accept.
        provenance: The :class:`~ek_otel.emit.envelope.ScoreProvenance` of the scores.
        emit_result: The sink's :class:`~ek_otel.emit.delivery.SendResult`s summed: per
            signal, the scores sent, failed, or not sent for want of the endpoint.
    """

    envelopes: tuple
    unmatched: tuple
    report: EvaluationReport
    revisions: int = 0
    emitted: int = 0
    emit_failures: int = 0
    provenance: Optional[ScoreProvenance] = None
    emit_result: SendResult = SendResult()

    @property
    def emit_ok(self) -> bool:
        """True when every envelope sent was accepted."""
        return self.emit_failures == 0

    def task_dollars(self, task_id: str) -> Optional[float]:
        """The dollars of one task's scored episodes; None unless every one of them is priced.

        Example:
            >>> s = EpisodeScore("t", dollars=0.25)
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", s, ScoreProvenance("0", "", {}))
            >>> run = ScoreRun((env, env), (), aggregate([], {}))
            >>> run.task_dollars("t"), run.task_dollars("other")
            (0.5, None)
        """
        by_task = self.__dict__.get("_scores_by_task")
        if by_task is None:
            by_task = {}
            for envelope in self.envelopes:
                by_task.setdefault(envelope.task_id, []).append(envelope.score)
            object.__setattr__(self, "_scores_by_task", by_task)  # once per run, not per task
        return _dollars_of(by_task.get(task_id, ()))

    def to_dict(self) -> dict:
        """The JSON report of ``ek-otel score --json``.

        Keys: ``aggregate`` (precision, recall, f1, exact_match, success_rate, episodes,
        unmatched, revisions, k, mean pass@k / pass^k, cost, dollars, dollars_per_success),
        ``episodes`` (one entry per scored episode: task_id, trace_id, root_span_id,
        revision, tp/fp/fn, precision/recall/f1, exact, success, label, explanation, cost,
        dollars, arg_diffs, missing_calls, spurious_calls), ``per_task`` (figures + slice,
        pass@k, pass^k, dollars), ``per_slice``, ``pass_at_k``/``pass_hat_k`` per task,
        ``unmatched`` (trace_id, task_id, reason), ``provenance`` and, with several
        provenance keys, ``groups``. Rates of an empty cut and undefined pass^k are null.

        Example:
            >>> run = score_episodes([], {}, ScoreSettings())
            >>> d = run.to_dict()
            >>> d["aggregate"]["episodes"], d["aggregate"]["f1"], d["episodes"]
            (0, None, [])
        """
        return _run_to_dict(self)


def _comparability_key(episode: Any) -> tuple:
    run = getattr(episode, "run", None)
    return (run if run is not None else RunProvenance()).comparability_key()


def aggregate(
    scored: Sequence[tuple],
    tasks: Mapping[str, TaskSpec],
    *,
    unmatched: Sequence[Unmatched] = (),
    k: Optional[int] = None,
    settings: Optional[ScoreSettings] = None,
) -> EvaluationReport:
    """The corpus report over ``(EpisodeScore, comparability_key)`` pairs.

    The figures are the core's (:mod:`ek_otel.core.evaluate`): micro P/R/F1, per task, per
    slice, pass@k and pass^k, dollars. ``k`` defaults to
    :func:`~ek_otel.core.evaluate.default_k` (the fewest trials of any repeated task). With
    several provenance keys the report carries one group per key instead of refusing.

    Example:
        >>> s = EpisodeScore("t", tp=1.0, f1=1.0, exact=True, success=True)
        >>> r = aggregate([(s, ()), (s, ())], {"t": TaskSpec("t")})
        >>> r.k, r.pass_hat_k["t"], r.f1
        (2, 1.0, 1.0)
    """
    keys = tuple(dict.fromkeys(key for _, key in scored))
    run_settings: dict = {}
    if settings is not None:
        run_settings.update(settings.provenance().matcher, priced=settings.prices is not None)
    return aggregate_scores(
        scored, tasks, k=k,
        unmatched=tuple(UnmatchedEpisode(u.task_id, u.trace_id) for u in unmatched),
        settings=run_settings, group_by_provenance=len(keys) > 1,
    )


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


def _dollars_of(scores: Sequence[EpisodeScore]) -> Optional[float]:
    if not scores or any(s.dollars is None for s in scores):
        return None
    return round(sum(s.dollars for s in scores), 12)


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


def _episode_dict(envelope: ScoreEnvelope) -> dict:
    s = envelope.score
    return {
        "task_id": envelope.task_id,
        "trace_id": envelope.trace_id,
        "root_span_id": envelope.root_span_id,
        "revision": envelope.revision,
        "service": envelope.evaluated_service,
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
    }


def _run_to_dict(run: "ScoreRun") -> dict:
    report = run.report
    per_task = {}
    for task_id, cut in report.per_task.items():
        figures = _figures(cut)
        figures.update(
            pass_at_k=report.pass_at_k.get(task_id),
            pass_hat_k=report.pass_hat_k.get(task_id),
            dollars=run.task_dollars(task_id),
        )
        per_task[task_id] = figures
    out = {
        "aggregate": _aggregate_dict(report, len(run.unmatched), run.revisions),
        "episodes": [_episode_dict(e) for e in run.envelopes],
        "per_task": per_task,
        "per_slice": {name: _figures(cut) for name, cut in report.per_slice.items()},
        "k": report.k,
        "pass_at_k": dict(report.pass_at_k),
        "pass_hat_k": dict(report.pass_hat_k),
        "unmatched": [{"trace_id": u.trace_id, "task_id": u.task_id, "reason": u.reason}
                      for u in run.unmatched],
        "provenance": run.provenance,
    }
    if report.groups:
        out["groups"] = [
            {"key": list(g.key), "aggregate": _aggregate_dict(g.report, 0, 0)} for g in report.groups
        ]
    return to_jsonable(out)


class _Batcher:
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


def _episode_key(episode: Any) -> tuple:
    trace_id, root_span_id = _ids(episode)
    return (trace_id, root_span_id) if trace_id else ("", str(id(episode)))


def score_episodes(
    episodes: Iterable[Any],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    sink: Any = None,
    on_episode: Optional[Callable[[Union[ScoreEnvelope, Unmatched]], None]] = None,
    batch_size: int = DEFAULT_BATCH,
) -> ScoreRun:
    """Score a stream of episodes, send their envelopes to ``sink``, and aggregate.

    An episode marked late (``meta["late"]``, or any episode whose trace and root span were
    already scored) is a revision: its revision number goes up by one, its new score is
    emitted, and it replaces the earlier one in the report.

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
    batcher = _Batcher(sink, batch_size)
    latest: "OrderedDict[tuple, tuple]" = OrderedDict()
    revision_of: dict = {}
    unmatched: list = []
    revisions = 0
    for episode in episodes:
        key = _episode_key(episode)
        revision = revision_of.get(key, -1) + 1
        outcome = score_and_envelope(episode, tasks, settings, revision=revision)
        if isinstance(outcome, Unmatched):
            unmatched.append(outcome)
        else:
            revision_of[key] = revision
            revisions += 1 if revision else 0
            latest[key] = (outcome, _comparability_key(episode))
            batcher.add(outcome)
        if on_episode is not None:
            on_episode(outcome)
    batcher.flush()
    scored = [(env.score, comp) for env, comp in latest.values()]
    report = aggregate(scored, tasks, unmatched=unmatched, settings=settings)
    return ScoreRun(
        envelopes=tuple(env for env, _ in latest.values()),
        unmatched=tuple(unmatched),
        report=report,
        revisions=revisions,
        emitted=batcher.sent,
        emit_failures=batcher.failed,
        emit_result=batcher.result,
        provenance=settings.provenance(),
    )


@dataclass(frozen=True)
class _MergedGroup:
    trace_id: str
    spans: tuple = ()
    logs: tuple = ()
    late: bool = False


class _LateRecords:
    """Keeps the records of recently closed traces; merges late groups with them."""

    def __init__(self, keep: int):
        self.keep = keep
        self.closed: "OrderedDict[str, tuple]" = OrderedDict()
        self.evicted: list = []

    def merge(self, groups: Iterable[Any]) -> Iterator[Any]:
        for group in groups:
            trace_id = group.trace_id
            if not trace_id:
                yield group
                continue
            if getattr(group, "late", False):
                earlier = self.closed.pop(trace_id, None)
                if earlier is None:
                    self.evicted.append(Unmatched(trace_id, "", LATE_EVICTED))
                    continue
                group = _MergedGroup(trace_id, earlier[0] + tuple(group.spans),
                                     earlier[1] + tuple(group.logs), True)
            if self.keep:
                self.closed[trace_id] = (tuple(group.spans), tuple(group.logs))
                self.closed.move_to_end(trace_id)
                while len(self.closed) > self.keep:
                    self.closed.popitem(last=False)
            yield group


def read_episodes(
    paths: Sequence[str],
    *,
    report: Any,
    group_by: str = "trace",
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    evicted: Optional[list] = None,
    on_own_output: Optional[Callable[[Any], None]] = None,
) -> Iterator[Episode]:
    """The episodes of dump files, as ``ek-otel score`` and ``ek-otel episodes`` both see them.

    Reads the dumps (streaming), skips ek-otel's own output, groups the records by trace,
    merges late records with the kept records of their trace (the episode comes again,
    rebuilt from all of them, with ``meta["late"]``), and drops the pseudo-episodes of log
    records that belong to no trace.

    Args:
        paths: Dump files, directories, globs or ``-`` (see :func:`~ek_otel.ingest.dumps.read_dump`).
        report: A :class:`~ek_otel.ingest.bad_input.BadInputReport` collecting bad input.
        group_by: One of :data:`GROUP_BY_CHOICES`.
        task_id_keys: Attribute keys tried for the task id, in order.
        keep_closed: How many closed traces keep their records for late spans.
        close_after: Passed to :func:`~ek_otel.ingest.assemble.group_traces` (None: its
            default).
        evicted: A list that receives an :class:`Unmatched` (reason :data:`LATE_EVICTED`)
            for late records of a trace no longer kept.
        on_own_output: Called with each record of ek-otel's own output (scores written
            back), which is skipped.

    Raises:
        InputError: a path does not exist (checked before anything is read).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> list(read_episodes(["/no/such.jsonl"], report=BadInputReport()))
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such.jsonl: no such file or directory
    """
    from .ingest.dumps import expand_paths

    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY_CHOICES)}; got {group_by!r}")
    expand_paths(paths)  # fail on a missing path before anything is read or emitted
    return _episodes_of_dumps(paths, report, group_by, tuple(task_id_keys), keep_closed,
                              close_after, evicted, on_own_output)


def _episodes_of_dumps(paths, report, group_by, task_id_keys, keep_closed, close_after,
                       evicted, on_own_output) -> Iterator[Episode]:
    from .ingest.assemble import group_traces
    from .ingest.dumps import read_dump
    from .ingest.episodes import build_episodes

    grouping = {} if close_after is None else {"close_after": close_after}
    late = _LateRecords(keep_closed)
    records = _not_ours(read_dump(paths, report=report), on_own_output)
    groups = late.merge(group_traces(records, **grouping))
    episodes = build_episodes(groups, group_by=group_by, task_id_keys=task_id_keys,
                              source=", ".join(paths), report=report)
    yield from _real_episodes(episodes)
    if evicted is not None:
        evicted.extend(late.evicted)


def score_dump(
    paths: Sequence[str],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    report: Any,
    sink: Any = None,
    on_episode: Optional[Callable[[Union[ScoreEnvelope, Unmatched]], None]] = None,
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    batch_size: int = DEFAULT_BATCH,
) -> ScoreRun:
    """Score the traces of dump files (the ``ek-otel score`` command without the terminal).

    The episodes are those of :func:`read_episodes` (the same as ``ek-otel episodes``).

    Args:
        paths: Dump files, directories, globs or ``-`` (see :func:`~ek_otel.ingest.dumps.read_dump`).
        tasks: task_id -> TaskSpec.
        settings: The :class:`ScoreSettings`.
        report: A :class:`~ek_otel.ingest.bad_input.BadInputReport` collecting bad input.
        sink: Where envelopes go (a :mod:`ek_otel.emit.sinks` sink), or None.
        on_episode: Called with each envelope or :class:`Unmatched` (progress bars).
        keep_closed: How many closed traces keep their records for late spans.
        close_after: Passed to :func:`~ek_otel.ingest.assemble.group_traces` (None: its
            default).

    Raises:
        InputError: a path does not exist (nothing is read then).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> score_dump(["/no/such.jsonl"], {}, ScoreSettings(), report=BadInputReport())
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such.jsonl: no such file or directory
    """
    evicted: list = []
    episodes = read_episodes(paths, report=report, group_by=settings.group_by,
                             task_id_keys=settings.task_id_keys, keep_closed=keep_closed,
                             close_after=close_after, evicted=evicted)
    run = score_episodes(episodes, tasks, settings, sink=sink,
                         on_episode=on_episode, batch_size=batch_size)
    if evicted:
        run = replace(run, unmatched=run.unmatched + tuple(evicted))
    return run


def _not_ours(records: Iterable[Any], on_own: Optional[Callable[[Any], None]] = None) -> Iterator[Any]:
    """Drop ek-otel's own output (scores written back), so it never re-scores a trace."""
    for record in records:
        if not is_ek_output(record.resource, record.scope_name):
            yield record
        elif on_own is not None:
            on_own(record)


def _real_episodes(episodes: Iterable[Episode]) -> Iterator[Episode]:
    """Skip the pseudo-episodes of log records that belong to no trace and no span."""
    for episode in episodes:
        provenance = episode.provenance
        if provenance is not None and not provenance.trace_id and not provenance.span_count \
                and not episode.trajectory.steps:
            continue
        yield episode


