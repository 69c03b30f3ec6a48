"""The match modes of other tools' files, as gold task keys and back.

- Google ADK: the ``tool_trajectory_avg_score`` criterion of an eval config
  (``test_config.json``: ``{"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0,
  "match_type": "IN_ORDER", "ignore_args": true}}}``, or a bare threshold, which is
  ``EXACT``). ``EXACT`` is ``ordered``; ``IN_ORDER`` is ``match: superset`` with
  ``ordered``; ``ANY_ORDER`` is ``match: superset``; ``ignore_args`` is ``args: ignore``.
- LangChain agentevals: ``trajectory_match_mode`` (``strict`` is ``ordered``; ``unordered``
  the default match; ``subset`` and ``superset`` the match modes of the same names),
  ``tool_args_match_mode`` (``args``) and ``tool_args_match_overrides`` (``args_by_tool``,
  for the overrides that are modes). agentevals' ``subset`` runs its ``superset`` check with
  the outputs and the reference exchanged, arguments included: under it, argument mode
  ``subset`` lets a call *add* arguments and ``superset`` lets it leave some out, so they
  become ``superset`` and ``subset`` here (and back on export), and the verdicts stay theirs
  (``tests/core/test_modes_vs_peers.py`` checks it against agentevals itself).

Example:
    >>> adk_keys({"threshold": 1.0, "match_type": "ANY_ORDER", "ignore_args": True}, "t", [])
    {'ordered': False, 'match': 'superset', 'args': 'ignore'}
    >>> adk_criterion(task_of({"ordered": True, "match": "superset"}), [])
    {'threshold': 1.0, 'match_type': 'IN_ORDER'}
    >>> langchain_keys({"trajectory_match_mode": "superset", "tool_args_match_mode": "subset"}, "t", [])
    {'ordered': False, 'match': 'superset', 'args': 'subset'}
    >>> langchain_keys({"trajectory_match_mode": "subset", "tool_args_match_mode": "subset"}, "t", [])
    {'ordered': False, 'match': 'subset', 'args': 'superset'}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.episode import TaskSpec
from ..core.modes import ARG_MODES
from ..errors import InputError

__all__ = ["ADK_CRITERION", "adk_keys", "adk_criterion", "langchain_keys", "langchain_settings",
           "task_of"]

#: The ADK criterion that holds the trajectory match.
ADK_CRITERION = "tool_trajectory_avg_score"

_ADK_MATCH = {"EXACT": (True, "exact"), "IN_ORDER": (True, "superset"),
              "ANY_ORDER": (False, "superset")}
#: The argument modes as agentevals' ``subset`` reads them (the two sides exchanged).
_FLIPPED = {"subset": "superset", "superset": "subset"}
_LANGCHAIN_MATCH = {"strict": (True, "exact"), "unordered": (False, "exact"),
                    "subset": (False, "subset"), "superset": (False, "superset")}


def task_of(keys: Mapping[str, Any]) -> TaskSpec:
    """A task with these mode keys (for examples).

    Example:
        >>> task_of({"match": "subset"}).match
        'subset'
    """
    return TaskSpec("t", **dict(keys))


def adk_keys(criterion: Any, task_id: str, notes: list) -> dict:
    """The task keys of an ADK ``tool_trajectory_avg_score`` criterion (a threshold or an
    object); a threshold below 1 is named in ``notes`` (ek-otel judges each run whole).

    Raises:
        InputError: a match type ADK does not have.

    Example:
        >>> adk_keys(0.8, "t", notes := [])
        {'ordered': True, 'match': 'exact'}
        >>> notes
        ['t: ADK passes at a mean trajectory score of 0.8 over invocations; ek-otel passes a run when every call matches']
    """
    if isinstance(criterion, Mapping):
        threshold = criterion.get("threshold", 1.0)
        match_type = criterion.get("match_type", "EXACT")
        ignore_args = criterion.get("ignore_args", False)
    else:
        threshold, match_type, ignore_args = criterion, "EXACT", False
    if isinstance(match_type, int) and not isinstance(match_type, bool):  # the enum's value
        match_type = {0: "EXACT", 1: "IN_ORDER", 2: "ANY_ORDER"}.get(match_type, match_type)
    if str(match_type).upper() not in _ADK_MATCH:
        raise InputError(f"{ADK_CRITERION}: match_type must be one of EXACT, IN_ORDER, "
                         f"ANY_ORDER, got {match_type!r}")
    ordered, match = _ADK_MATCH[str(match_type).upper()]
    keys: dict = {"ordered": ordered, "match": match}
    if ignore_args is True:
        keys["args"] = "ignore"
    if isinstance(threshold, (int, float)) and threshold < 1:
        notes.append(f"{task_id}: ADK passes at a mean trajectory score of {threshold:g} over "
                     "invocations; ek-otel passes a run when every call matches")
    return keys


def adk_criterion(task: TaskSpec, notes: list) -> dict:
    """The ADK ``tool_trajectory_avg_score`` criterion of a task; what ADK cannot say is
    named in ``notes``.

    Example:
        >>> adk_criterion(task_of({"match": "subset", "args": "superset"}), notes := [])
        {'threshold': 1.0, 'match_type': 'EXACT'}
        >>> notes
        ["t: ADK has no match 'subset'; written as EXACT", "t: ADK compares arguments exactly or not at all; args 'superset' is written as exact"]
    """
    if task.match == "superset":
        match_type = "IN_ORDER" if task.ordered else "ANY_ORDER"
    else:
        match_type = "EXACT"
        if task.match != "exact":
            notes.append(f"{task.task_id}: ADK has no match '{task.match}'; written as EXACT")
    out: dict = {"threshold": 1.0, "match_type": match_type}
    if task.args == "ignore":
        out["ignore_args"] = True
    elif task.args != "exact":
        notes.append(f"{task.task_id}: ADK compares arguments exactly or not at all; args "
                     f"'{task.args}' is written as exact")
    if task.args_by_tool or task.call_args:
        notes.append(f"{task.task_id}: ADK has one argument mode per eval; the per-tool and "
                     "per-call argument modes are not written")
    return out


def langchain_keys(settings: Mapping[str, Any], task_id: str, notes: list) -> dict:
    """The task keys of agentevals' ``trajectory_match_mode``, ``tool_args_match_mode`` and
    ``tool_args_match_overrides`` (default: ``strict``, exact arguments).

    Raises:
        InputError: a mode agentevals does not have.

    Example:
        >>> langchain_keys({"tool_args_match_overrides": {"search": "ignore", "book": ["id"]}},
        ...                "t", notes := [])
        {'ordered': True, 'match': 'exact', 'args_by_tool': {'search': 'ignore'}}
        >>> notes
        ['t: tool_args_match_overrides.book compares only some keys (or runs code); not kept, its calls follow the task mode']
    """
    mode = settings.get("trajectory_match_mode", "strict")
    if mode not in _LANGCHAIN_MATCH:
        raise InputError(f"trajectory_match_mode must be one of {', '.join(_LANGCHAIN_MATCH)}, "
                         f"got {mode!r}")
    ordered, match = _LANGCHAIN_MATCH[mode]
    keys: dict = {"ordered": ordered, "match": match}
    args = settings.get("tool_args_match_mode", "exact")
    if args not in ARG_MODES:
        raise InputError(f"tool_args_match_mode must be one of {', '.join(ARG_MODES)}, got {args!r}")
    flip = _FLIPPED if mode == "subset" else {}
    args = flip.get(args, args)
    if args != "exact":
        keys["args"] = args
    overrides = settings.get("tool_args_match_overrides") or {}
    by_tool = {}
    for tool, override in (overrides.items() if isinstance(overrides, Mapping) else ()):
        if isinstance(override, str) and override in ARG_MODES:
            by_tool[str(tool)] = flip.get(override, override)
        else:
            notes.append(f"{task_id}: tool_args_match_overrides.{tool} compares only some keys "
                         "(or runs code); not kept, its calls follow the task mode")
    if by_tool:
        keys["args_by_tool"] = by_tool
    return keys


def langchain_settings(task: TaskSpec, notes: list) -> dict:
    """agentevals' settings for a task; what they cannot say is named in ``notes``.

    Example:
        >>> langchain_settings(task_of({"match": "superset", "ordered": True}), notes := [])
        {'trajectory_match_mode': 'superset'}
        >>> notes
        ["t: agentevals' superset match ignores order; the task's order is not kept"]
    """
    if task.match == "exact":
        mode = "strict" if task.ordered else "unordered"
    else:
        mode = task.match
        if task.ordered:
            notes.append(f"{task.task_id}: agentevals' {mode} match ignores order; the task's "
                         "order is not kept")
    out: dict = {"trajectory_match_mode": mode}
    flip = _FLIPPED if mode == "subset" else {}
    if task.args != "exact":
        out["tool_args_match_mode"] = flip.get(task.args, task.args)
    if task.args_by_tool:
        out["tool_args_match_overrides"] = {tool: flip.get(m, m) for tool, m in task.args_by_tool.items()}
    if task.call_args:
        notes.append(f"{task.task_id}: agentevals has no per-call argument mode; "
                     f"{len(task.call_args)} not written")
    return out
