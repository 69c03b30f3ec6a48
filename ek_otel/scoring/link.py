"""Linking an episode to its task, and scoring it: the per-episode step of ``ek-otel score``
and ``ek-otel serve``.

An episode's task id comes from its root span or resource (the episode builder reads it).
An episode without one is scored against ``ScoreSettings.default_task_id`` (a one-task gold
file, or the task the caller names), else listed as :class:`Unmatched`; an episode whose
task id is not among the tasks is listed as unmatched, never dropped. A trace that is not an
agent run (``meta["not_an_agent_run"]``: no model call, tool call, agent or task id) is
listed as unmatched with reason ``not an agent run: <what it is>``, never scored. See
``docs/ARCHITECTURE.md`` for where this sits in the data path.

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

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Optional, Union

from ..core.answer import score_answer
from ..core.episode import TaskSpec
from ..core.evaluate import score_episode
from ..core.ignore import is_ignored, merge_ignore_patterns, without_ignored
from ..core.toolcalls import calls_of
from ..core.scores import EpisodeScore
from ..emit.envelope import ScoreEnvelope
from ..errors import GoldFileError, IgnoredGoldCallError, UnknownTaskError
from ..ingest.episodes import NOT_A_RUN
from ..ingest.semconv import NOT_AN_AGENT_RUN
from .settings import ScoreSettings, file_sha256, task_id_key_list

__all__ = [
    "NO_TASK_ID",
    "UNKNOWN_TASK",
    "NO_INPUT",
    "NO_TASK_FOR_INPUT",
    "AMBIGUOUS_INPUT",
    "input_index",
    "NO_ROOT_SPAN",
    "LATE_EVICTED",
    "NOT_AN_AGENT_RUN",
    "Unmatched",
    "episode_ids",
    "load_gold",
    "load_settings",
    "load_scoring",
    "with_overrides",
    "check_tasks",
    "link_task",
    "score_linked",
    "score_and_envelope",
]

#: Unmatched reasons.
NO_TASK_ID = "no task id"
UNKNOWN_TASK = "task id not in the gold file"
NO_INPUT = "no task id, and no first user message recorded (--link-by input)"
NO_TASK_FOR_INPUT = "no task id, and no task has its input (--link-by input)"
AMBIGUOUS_INPUT = "no task id, and its input is the input of several tasks"
NO_ROOT_SPAN = "no root span to write the score to"
LATE_EVICTED = "late spans for a trace no longer in memory"
#: (also ``NOT_AN_AGENT_RUN``, from ingest.semconv: the reason of a trace that is not an agent
#: run, followed by what it is: ``not an agent run: MCP ping``)


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


def episode_ids(episode: Any) -> tuple:
    """``(trace_id, root_span_id)`` of an episode ("" for what it lacks).

    Example:
        >>> from ek_otel.core.episode import Episode, Provenance
        >>> episode_ids(Episode("t", provenance=Provenance(trace_id="ab" * 16))), episode_ids(None)
        (('abababababababababababababababab', ''), ('', ''))
    """
    provenance = getattr(episode, "provenance", None)
    return (getattr(provenance, "trace_id", "") or "", getattr(provenance, "root_span_id", "") or "")


def load_gold(path: str, task_id: Optional[str] = None) -> tuple:
    """``(tasks, default_task_id)`` of a gold file, as ``score`` and ``serve`` link runs.

    ``tasks`` maps task id -> TaskSpec. The default task (for episodes without a task id)
    is ``task_id`` when given, else the only task of a one-task file, else None.

    Raises:
        GoldFileError: a broken or empty gold file; UnknownTaskError (a GoldFileError): a
            ``task_id`` that is not in it.

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
        ek_otel.errors.UnknownTaskError: ...g.jsonl: task 'other' is not a task of this gold file
    """
    from ..gold.native import load_tasks

    tasks_list = load_tasks(path)
    if not tasks_list:
        raise GoldFileError(path, None, "the gold file holds no task")
    tasks = {t.task_id: t for t in tasks_list}
    if task_id is not None and task_id not in tasks:
        raise UnknownTaskError(path, task_id)
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
    ignore_tools: Iterable[str] = (),
    link_by: str = "task",
    match: Optional[str] = None,
    ordered: Optional[bool] = None,
) -> tuple:
    """``(tasks, ScoreSettings)`` from a gold file and the scoring options.

    ``match`` and ``ordered``, when given, override every task's (:func:`with_overrides`).

    Raises:
        GoldFileError: a broken or empty gold file, a ``task_id`` not in it, tasks the
            matcher cannot score, or an ``ignore_tools`` pattern that matches a gold call
            (:class:`~ek_otel.errors.IgnoredGoldCallError`), ``link_by="input"`` with a gold
            file whose tasks have no ``input``; InputError: a pricing file that cannot be
            used; ValueError: a bad ``ignore_tools`` pattern.

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
        from ..gold.pricing import load_pricing

        prices = load_pricing(pricing)
    settings = ScoreSettings(
        level=level, strategy=strategy, matcher=matcher, prices=prices,
        default_task_id=default_task, gold_sha256=file_sha256(gold), group_by=group_by,
        task_id_keys=task_id_key_list(task_id_keys), ignore_tools=tuple(ignore_tools),
        link_by=link_by, match=match, ordered=ordered,
    )
    check_tasks(tasks, settings, path=gold)
    tasks = with_overrides(tasks, settings)
    if link_by == "input" and not input_index(tasks):
        raise GoldFileError(gold, None, "no task has an input (a string) to link runs by "
                                        "(--link-by input)")
    return tasks, settings


def load_scoring(gold: str, settings_json: str = "") -> tuple:
    """``(tasks, ScoreSettings)`` from a gold file and settings that travelled as JSON
    (:meth:`~ek_otel.scoring.settings.ScoreSettings.to_json`): how a worker process of
    ``ek-otel serve``, and ``ek-otel report``, get the settings the command line made. Empty
    JSON means the defaults for this gold file (:func:`load_settings` without options).

    Raises:
        GoldFileError: a broken or empty gold file, or tasks the matcher cannot score;
            ValueError: JSON that is not scoring settings.

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "g.jsonl")
        >>> _ = open(p, "w").write('{"task_id": "only"}')
        >>> _, sent = load_settings(p, level="arg")
        >>> tasks, settings = load_scoring(p, sent.to_json())
        >>> list(tasks), settings == sent, load_scoring(p)[1].level
        (['only'], True, 'call')
    """
    if not settings_json:
        return load_settings(gold)
    settings = ScoreSettings.from_json(settings_json)
    tasks, _ = load_gold(gold)
    check_tasks(tasks, settings, path=gold)
    return with_overrides(tasks, settings), settings


def with_overrides(tasks: Mapping[str, TaskSpec], settings: ScoreSettings) -> dict:
    """``tasks`` with the settings' ``match`` and ``ordered`` overrides applied (``ek-otel
    score --match superset --ordered``): every task, its alternatives included, is scored in
    that mode; a task is unchanged where no override is given.

    Example:
        >>> t = with_overrides({"a": TaskSpec("a")}, ScoreSettings(match="superset", ordered=True))
        >>> t["a"].match, t["a"].ordered
        ('superset', True)
        >>> with_overrides({"a": TaskSpec("a", ordered=True)}, ScoreSettings())["a"].ordered
        True
    """
    changes = {key: getattr(settings, key) for key in ("match", "ordered")
               if getattr(settings, key) is not None}
    if not changes:
        return dict(tasks)
    return {task_id: replace(task, **changes) for task_id, task in tasks.items()}


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
        >>> link_task(Episode("", meta={"not_an_agent_run": "MCP ping"}), tasks,
        ...           ScoreSettings(default_task_id="a")).reason
        'not an agent run: MCP ping'
    """
    trace_id, root_span_id = episode_ids(episode)
    meta = getattr(episode, "meta", None)
    not_a_run = meta.get(NOT_A_RUN) if isinstance(meta, Mapping) else None
    if not_a_run:
        return Unmatched(trace_id, "", f"{NOT_AN_AGENT_RUN}: {not_a_run}", root_span_id)
    task_id = str(getattr(episode, "task_id", "") or "")
    if not task_id and settings.link_by == "input":
        return _link_by_input(episode, tasks, trace_id, root_span_id)
    if not task_id:
        if settings.default_task_id is not None and settings.default_task_id in tasks:
            return tasks[settings.default_task_id]
        return Unmatched(trace_id, "", NO_TASK_ID, root_span_id)
    task = tasks.get(task_id)
    if task is None:
        return Unmatched(trace_id, task_id, UNKNOWN_TASK, root_span_id)
    return task


#: id(tasks) -> (tasks, normalised input -> task ids): made once per gold file.
_INPUT_INDEX: dict = {}


def input_index(tasks: Mapping[str, TaskSpec]) -> dict:
    """Normalised ``input`` -> the ids of the tasks that have it (tasks whose input is a
    string; cached per mapping).

    Example:
        >>> input_index({"a": TaskSpec("a", input="Refund  A-77"), "b": TaskSpec("b")})
        {'refund a-77': ('a',)}
    """
    from ..gold.generalise import normalised_input

    known = _INPUT_INDEX.get(id(tasks))
    if known is None or known[0] is not tasks:
        index: dict = {}
        for task_id, task in tasks.items():
            key = normalised_input(task.input)
            if key is not None:
                index.setdefault(key, []).append(task_id)
        if len(_INPUT_INDEX) > 64:
            _INPUT_INDEX.clear()
        known = _INPUT_INDEX[id(tasks)] = (tasks, {k: tuple(v) for k, v in index.items()})
    return known[1]


def _link_by_input(episode: Any, tasks: Mapping[str, TaskSpec], trace_id: str,
                   root_span_id: str) -> Union[TaskSpec, Unmatched]:
    """The task whose input is the episode's normalised first user message, or why none.

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> tasks = {"a": TaskSpec("a", input="Hi"), "b": TaskSpec("b", input="hi "),
        ...          "c": TaskSpec("c", input="Bye")}
        >>> s = ScoreSettings(link_by="input")
        >>> link_task(Episode("", meta={"input": "BYE"}), tasks, s).task_id
        'c'
        >>> link_task(Episode("", meta={"input": "hi"}), tasks, s).reason
        'no task id, and its input is the input of several tasks: a, b'
        >>> link_task(Episode("", meta={"input": None}), tasks, s).reason
        'no task id, and no first user message recorded (--link-by input)'
    """
    from ..gold.generalise import normalised_input

    key = normalised_input(getattr(episode, "meta", {}).get("input"))
    if key is None:
        return Unmatched(trace_id, "", NO_INPUT, root_span_id)
    found = input_index(tasks).get(key, ())
    if not found:
        return Unmatched(trace_id, "", NO_TASK_FOR_INPUT, root_span_id)
    if len(found) > 1:
        return Unmatched(trace_id, "", f"{AMBIGUOUS_INPUT}: {', '.join(found)}", root_span_id)
    return tasks[found[0]]


def check_tasks(tasks: Mapping[str, TaskSpec], settings: ScoreSettings, *, path: str = "") -> None:
    """Check, before anything is read, that the matcher can score every task.

    The ``bfcl`` matcher needs gold made by ``ek-otel gold from-bfcl`` (single-turn
    categories); the ``ek`` matcher scores any task. No ``settings.ignore_tools`` pattern
    may match a gold call (that call could never be matched); a task's own
    ``ignore_tools`` are checked with the gold file.

    Raises:
        BfclDataError: a task the BFCL checker cannot check, named;
            IgnoredGoldCallError: an ignored tool that a task expects (``path`` names the
            gold file).

    Example:
        >>> check_tasks({"t": TaskSpec("t")}, ScoreSettings())
        >>> check_tasks({"t": TaskSpec("t")}, ScoreSettings(matcher="bfcl"))
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: task t: meta.bfcl_category is missing (make the gold with `ek-otel gold from-bfcl`)
        >>> check_tasks({"t": TaskSpec("t", gold=[("think", {})])},
        ...             ScoreSettings(ignore_tools=["th*"]), path="g.jsonl")
        Traceback (most recent call last):
        ...
        ek_otel.errors.IgnoredGoldCallError: g.jsonl: task 't' expects a call to 'think', which ignore_tools 'th*' removes from every run
    """
    if settings.ignore_tools:
        for task in tasks.values():
            for tool, _ in calls_of(task):
                for pattern in settings.ignore_tools:
                    if is_ignored(tool, (pattern,)):
                        raise IgnoredGoldCallError(path, task.task_id, tool, pattern)
    if settings.matcher != "bfcl":
        return
    from ..bfcl.matcher import entry_from_task

    for task in tasks.values():
        entry_from_task(task)


def score_linked(episode: Any, task: TaskSpec, settings: ScoreSettings) -> EpisodeScore:
    """Score an episode against the task it is linked to, with the settings' matcher.

    With the ``bfcl`` matcher the official checker's verdict decides success; the ek
    matcher's counts stay as detail. Ignored tools (``settings.ignore_tools`` and the
    task's) are removed before either matcher sees the calls.

    Example:
        >>> from ek_otel.core.episode import Episode, Step, Trajectory
        >>> s = score_linked(Episode("t", Trajectory([Step("a")])), TaskSpec("t", gold=[("a", {})]),
        ...                  ScoreSettings(level="arg"))
        >>> s.f1, s.level, s.metric
        (1.0, 'arg', 'tool_call')
    """
    base = score_episode(episode, task, level=settings.level, strategy=settings.strategy,
                         canonicalizer=settings.canonicalizer, prices=settings.prices,
                         ignore_tools=settings.ignore_tools)
    if task.answer is not None:  # its own metric (ek.answer), never in the tool-call counts
        base = replace(base, answer=score_answer(getattr(episode, "output", None), task.answer,
                                                 settings.canonicalizer))
    if settings.matcher != "bfcl":
        return base
    from ..bfcl.matcher import bfcl_verdict_for_episode

    # the official checker sees the calls the ek matcher sees: ignored tools removed
    checked, _ = without_ignored(episode, merge_ignore_patterns(settings.ignore_tools,
                                                                task.ignore_tools))
    verdict = bfcl_verdict_for_episode(checked, task)
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
        settings: The :class:`~ek_otel.scoring.settings.ScoreSettings`.
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
    trace_id, root_span_id = episode_ids(episode)
    if not trace_id or not root_span_id:
        return Unmatched(trace_id, linked.task_id, NO_ROOT_SPAN, root_span_id)
    score = score_linked(episode, linked, settings)
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
        transcript=(getattr(episode, "meta", None) or {}).get("transcript") if settings.transcripts else None,
    )
