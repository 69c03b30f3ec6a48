"""The BFCL matcher: BFCL's official verdict on calls scored against native gold tasks.

A gold task made by ``ek-otel gold from-bfcl`` carries everything the official checker
needs: the function docs (``task.tools``, raw schemas), the possible answer
(``task.gold``, or ``meta.bfcl_ground_truth`` for the few labels the native format cannot
hold) and the category (``meta.bfcl_category``), which picks the rules. So the calls of an
:class:`~ek_otel.core.episode.Episode` (from traces, or from a BFCL result via
:func:`episode_from_result`) get exactly the verdict ``ek-otel bfcl`` gives the result.

This reuses :mod:`ek_otel.bfcl.single_turn`; nothing is re-implemented. Single-turn
categories only.

Example:
    >>> from ek_otel.core.episode import AnyOf, TaskSpec, ToolSpec
    >>> task = TaskSpec("simple_python_0", gold=[("f", {"x": AnyOf((1,))})],
    ...     tools=[ToolSpec("f", schema={"type": "dict", "required": ["x"],
    ...                                   "properties": {"x": {"type": "integer"}}})],
    ...     meta={"bfcl_category": "simple_python"})
    >>> bfcl_verdict_for_calls([("f", {"x": 1})], task).valid
    True
    >>> bfcl_verdict_for_calls([("f", {"x": True})], task).error_type
    'type_error:simple'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory, as_call
from ..core.rules import Rule
from ..errors import BfclDataError
from .categories import SINGLE_TURN, is_relevance, language_of
from .data import BfclEntry
from .decode import decode_ast, is_function_calling_format
from .single_turn import check_single_turn
from .verdict import Verdict

__all__ = [
    "DECODE_ERROR_KEY",
    "RAW_RESULT_KEY",
    "entry_from_task",
    "bfcl_verdict_for_calls",
    "bfcl_verdict_for_episode",
    "episode_from_result",
]

#: Episode meta key holding the decoder's message when a BFCL result could not be decoded.
DECODE_ERROR_KEY = "bfcl_decode_error"
#: Episode meta key holding the raw BFCL result of an undecodable or ill-shaped result.
RAW_RESULT_KEY = "bfcl_result"


def _allowed(value: Any) -> list:
    return list(value.values) if isinstance(value, AnyOf) else [value]


def _native_only(task: TaskSpec) -> str:
    """What of the native gold format a task uses that BFCL's possible answers cannot hold."""
    uses = []
    if any(isinstance(v, Rule) for _, args in task.gold for v in args.values()):
        uses.append("argument rules")
    if task.optional:
        uses.append("optional calls")
    if len(task.alternatives) > 1:
        uses.append("alternatives")
    return " and ".join(uses)


def entry_from_task(task: TaskSpec) -> BfclEntry:
    """Rebuild the BFCL entry (docs, possible answer, category) of a from-bfcl gold task.

    Example:
        >>> from ek_otel.core.episode import TaskSpec
        >>> entry_from_task(TaskSpec("irrelevance_0", meta={"bfcl_category": "irrelevance"})).category
        'irrelevance'
        >>> entry_from_task(TaskSpec("t"))
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: task t: meta.bfcl_category is missing (make the gold with `ek-otel gold from-bfcl`)
        >>> from ek_otel.core.rules import AnyValue
        >>> entry_from_task(TaskSpec("t", gold=[("f", {"id": AnyValue()})]))
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: task t: the BFCL matcher checks BFCL possible answers; this task uses argument rules, which the official checker has no rule for (score it with the ek matcher)
    """
    uses = _native_only(task)
    if uses:
        raise BfclDataError(f"task {task.task_id}: the BFCL matcher checks BFCL possible answers; "
                            f"this task uses {uses}, which the official checker has no rule for "
                            "(score it with the ek matcher)")
    category = task.meta.get("bfcl_category")
    if not category:
        raise BfclDataError(f"task {task.task_id}: meta.bfcl_category is missing "
                            "(make the gold with `ek-otel gold from-bfcl`)")
    if category not in SINGLE_TURN:
        raise BfclDataError(f"task {task.task_id}: the BFCL matcher checks single-turn "
                            f"categories, not {category}")
    extras = task.meta.get("bfcl_tool_extras", {})
    docs = []
    for tool in task.tools:
        doc: dict = {"name": tool.name}
        if tool.description:
            doc["description"] = tool.description
        if tool.schema is not None:
            doc["parameters"] = tool.schema
        doc.update(extras.get(tool.name, {}))
        docs.append(doc)
    answer = None
    if not is_relevance(category):
        ground_truth = task.meta.get("bfcl_ground_truth")
        if ground_truth is None:
            ground_truth = [{name: {arg: _allowed(v) for arg, v in args.items()}}
                            for name, args in task.gold]
        answer = {"id": task.task_id, "ground_truth": ground_truth}
    question = {"id": task.task_id, "question": task.meta.get("question"), "function": docs}
    question.update(task.meta.get("bfcl_extra", {}))
    return BfclEntry(task.task_id, category, question, answer)


def bfcl_verdict_for_calls(calls: Sequence[Any], task: TaskSpec, *,
                           underscore_to_dot: bool = False) -> Verdict:
    """The official BFCL verdict on ``calls`` (``(tool, args)`` pairs or Steps) for ``task``.

    Example:
        >>> from ek_otel.core.episode import TaskSpec
        >>> t = TaskSpec("live_irrelevance_1-0-0", meta={"bfcl_category": "live_irrelevance"})
        >>> bfcl_verdict_for_calls([], t).valid, bfcl_verdict_for_calls([("f", {})], t).valid
        (True, False)
    """
    entry = entry_from_task(task)
    decoded = [{name: dict(args)} for name, args in (as_call(c) for c in calls)]
    return check_single_turn(entry, decoded, underscore_to_dot=underscore_to_dot,
                             style="decoded")


def bfcl_verdict_for_episode(episode: Episode, task: TaskSpec, *,
                             underscore_to_dot: bool = False) -> Verdict:
    """:func:`bfcl_verdict_for_calls` on an episode's calls; an episode made from an
    undecodable BFCL result (see :func:`episode_from_result`) is re-checked from its raw
    result so that decoder verdicts match too.

    Example:
        >>> from ek_otel.core.episode import TaskSpec
        >>> t = TaskSpec("irrelevance_1", meta={"bfcl_category": "irrelevance"})
        >>> bfcl_verdict_for_episode(episode_from_result("irrelevance_1", "no call", "irrelevance"), t).valid
        True
    """
    if RAW_RESULT_KEY in episode.meta:
        return check_single_turn(entry_from_task(task), episode.meta[RAW_RESULT_KEY],
                                 underscore_to_dot=underscore_to_dot)
    return bfcl_verdict_for_calls(episode.calls, task, underscore_to_dot=underscore_to_dot)


def episode_from_result(entry_id: str, result: Any, category: str,
                        style: Optional[str] = None) -> Episode:
    """An :class:`~ek_otel.core.episode.Episode` from one BFCL result: one Step per decoded call.

    A result that does not decode into calls gives an episode with no steps whose meta
    holds the decoder message (:data:`DECODE_ERROR_KEY`) and the raw result.

    Example:
        >>> episode_from_result("parallel_0", "[f(a=1), g(b='x')]", "parallel").calls
        (('f', {'a': 1}), ('g', {'b': 'x'}))
        >>> episode_from_result("parallel_0", "f(a=", "parallel").meta[DECODE_ERROR_KEY]
        "closing parenthesis ']' does not match opening parenthesis '(' (<unknown>, line 1)"
    """
    try:
        decoded = decode_ast(result, language_of(category), style)
    except Exception as exc:  # kept for the verdict, as the official runner keeps it
        return Episode(entry_id, meta={DECODE_ERROR_KEY: str(exc), RAW_RESULT_KEY: result})
    if not is_function_calling_format(decoded):
        return Episode(entry_id, meta={RAW_RESULT_KEY: result})
    steps = [Step(name, args) for call in decoded for name, args in call.items()]
    return Episode(entry_id, Trajectory(steps))
