"""The checks of a gold task's match keys: its match mode, argument modes and hard rules.

Task keys (see :mod:`ek_otel.core.modes` and :mod:`ek_otel.core.hardrules`):

- ``"match"``: ``"exact"`` (default), ``"superset"`` or ``"subset"``;
- ``"args"``: the argument mode of every call, ``"exact"`` (default), ``"ignore"``,
  ``"subset"`` or ``"superset"``; ``"args_by_tool"``: ``{tool: mode}`` over it;
- ``"forbid"``: tool names (``*`` globs) never to be called;
- ``"max_calls"``: ``{tool: n}``, ``"*"`` for all calls together;
- ``"no_repeat"``: true to fail a run that makes the same call twice.

Call markers, beside the tool name in a call object as ``"optional": true`` is: ``"args":
"ignore"`` (the argument mode of that call) and ``"agent": "billing"`` (the agent that must
make it). A marker is told from a tool by its value: a string, where a tool's arguments are
an object.

Every problem is one line naming the key, as the other checks of
:mod:`ek_otel.gold.schema`.

Example:
    >>> match_key_problems({"match": "any_order", "max_calls": {"search": -1}}, [])
    ['match must be one of "exact", "superset", "subset", got "any_order"', 'max_calls.search must be a whole number >= 0, got -1']
    >>> match_key_problems({"forbid": ["delete_*"]}, [("calls[0]", "delete_user", {}, False)])
    ["calls[0]: the task expects a call to 'delete_user', which forbid 'delete_*' forbids"]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.hardrules import TOTAL
from ..core.ignore import is_ignored
from ..core.modes import ARG_MODES, MATCH_MODES, mode_problem

__all__ = ["MATCH_TASK_KEYS", "CALL_MARKERS", "is_marker", "marker_problems", "match_key_problems",
           "expected_calls_hit"]

#: The task keys checked here.
MATCH_TASK_KEYS = ("match", "args", "args_by_tool", "forbid", "max_calls", "no_repeat")

#: Call markers and the JSON type that tells each from a tool: ``optional`` (boolean) is
#: :data:`ek_otel.gold.schema.OPTIONAL_KEY`'s.
CALL_MARKERS = {"optional": bool, "args": str, "agent": str}


def is_marker(key: str, value: Any) -> bool:
    """Whether ``key: value`` of a call object is a marker, not a tool.

    Example:
        >>> is_marker("args", "ignore"), is_marker("args", {"x": [1]}), is_marker("optional", True)
        (True, False, True)
    """
    kind = CALL_MARKERS.get(key)
    return kind is not None and isinstance(value, kind)


def _short(value: Any) -> str:
    text = json.dumps(value, default=repr, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def marker_problems(call: Mapping[str, Any], at: str) -> list[str]:
    """The problems of a call's string markers (``args``, ``agent``).

    Example:
        >>> marker_problems({"f": {}, "args": "loose", "agent": ""}, "calls[0]")
        ['calls[0]: args must be one of "exact", "ignore", "subset", "superset", got "loose"', 'calls[0]: agent must be a non-empty agent name']
    """
    problems = []
    if is_marker("args", call.get("args")):
        problem = mode_problem(call["args"], ARG_MODES, "args")
        if problem:
            problems.append(f"{at}: {problem}")
    if is_marker("agent", call.get("agent")) and not call["agent"].strip():
        problems.append(f"{at}: agent must be a non-empty agent name")
    return problems


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def match_key_problems(obj: Mapping[str, Any], gold_calls: Sequence[tuple]) -> list[str]:
    """Every problem of the match keys of task ``obj``.

    ``gold_calls`` are ``(where, tool, args, optional)`` of the task's well-formed calls: a
    forbidden tool must not be expected, nor a limit be lower than the calls of ``calls`` or
    ``turns`` the task requires.

    Example:
        >>> match_key_problems({"max_calls": {"search": 1}},
        ...                    [("calls[0]", "search", {}, False), ("calls[1]", "search", {}, False)])
        ['max_calls.search is 1, but the task expects 2 calls to search']
        >>> match_key_problems({"args_by_tool": {"search": "loose"}, "no_repeat": 1}, [])
        ['args_by_tool.search: args must be one of "exact", "ignore", "subset", "superset", got "loose"', 'no_repeat must be true or false, got 1']
    """
    problems = []
    if "match" in obj and (problem := mode_problem(obj["match"], MATCH_MODES, "match")):
        problems.append(problem)
    if "args" in obj and (problem := mode_problem(obj["args"], ARG_MODES, "args")):
        problems.append(problem)
    if "args_by_tool" in obj:
        by_tool = obj["args_by_tool"]
        if not isinstance(by_tool, Mapping):
            problems.append(f'args_by_tool must be an object {{"tool": "mode"}}, got {_short(by_tool)}')
        else:
            problems.extend(f"args_by_tool.{tool}: {problem}" for tool, mode in by_tool.items()
                            if (problem := mode_problem(mode, ARG_MODES, "args")))
    if "forbid" in obj:
        problems.extend(_forbid_problems(obj["forbid"], gold_calls))
    if "max_calls" in obj:
        problems.extend(_max_calls_problems(obj["max_calls"], gold_calls))
    if "no_repeat" in obj and not isinstance(obj["no_repeat"], bool):
        problems.append(f"no_repeat must be true or false, got {_short(obj['no_repeat'])}")
    return problems


def _forbid_problems(patterns: Any, gold_calls: Sequence[tuple]) -> list[str]:
    if not isinstance(patterns, list):
        return [f'forbid must be a list of tool names, e.g. ["delete_*"], got {_short(patterns)}']
    bad = [f"forbid[{i}]: a tool name must be a non-empty string, got {_short(p)}"
           for i, p in enumerate(patterns) if not isinstance(p, str) or not p.strip()]
    if bad:
        return bad
    return expected_calls_hit(patterns, gold_calls, "forbid '{}' forbids")


def expected_calls_hit(patterns: Sequence[str], gold_calls: Sequence[tuple], what: str) -> list[str]:
    """One problem per expected call whose tool a pattern matches; ``what`` says what the
    pattern does (``{}`` is the pattern).

    Example:
        >>> expected_calls_hit(["rm*"], [("calls[0]", "rmdir", {}, False)], "forbid '{}' forbids")
        ["calls[0]: the task expects a call to 'rmdir', which forbid 'rm*' forbids"]
    """
    problems = []
    for where, tool, _, _ in gold_calls:
        for pattern in patterns:
            if is_ignored(tool, (pattern,)):
                problems.append(f"{where}: the task expects a call to '{tool}', which "
                                + what.format(pattern))
                break
    return problems


def _max_calls_problems(limits: Any, gold_calls: Sequence[tuple]) -> list[str]:
    if not isinstance(limits, Mapping):
        return [f'max_calls must be an object {{"tool": n, "*": total}}, got {_short(limits)}']
    problems = [f"max_calls.{tool} must be a whole number >= 0, got {_short(n)}"
                for tool, n in limits.items() if not _whole(n)]
    if problems:
        return problems
    required = Counter(tool for where, tool, _, optional in gold_calls
                       if not optional and not where.startswith("alternatives"))
    for tool, most in limits.items():
        n = sum(required.values()) if tool == TOTAL else required.get(tool, 0)
        if n > most:
            what = "calls" if tool == TOTAL else f"calls to {tool}"
            problems.append(f"max_calls.{tool} is {most}, but the task expects {n} {what}")
    return problems
