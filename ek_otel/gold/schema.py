"""What a valid gold task looks like: structural checks with precise messages.

The native gold format (one task per JSON object) is checked here by hand, so that every
problem comes with a message a person can act on: which key, which call, which argument,
what was expected and what was found. The same format is shipped as a JSON Schema
(``gold-task.schema.json``, see :func:`json_schema`) for editors and other tools; the
hand checks are the authority, and a test keeps the two in agreement.

:func:`task_problems` returns **every** problem of one task (an empty list means the task
is valid); it reads only plain JSON values and never raises on bad input.

Example:
    >>> task_problems({"task_id": "t1", "calls": [{"get_weather": {"city": ["Paris"]}}]})
    []
    >>> task_problems({"task_id": "t1", "cals": []})
    ["unknown key 'cals' (did you mean 'calls'?)"]
    >>> task_problems({"task_id": "t1", "calls": [{"get_weather": {"city": "Paris"}}]})
    ['calls[0].get_weather.city: the allowed values must be a list, e.g. ["Paris"], or a rule such as {"any": true}, got "Paris"']
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, Optional

from ..core.ignore import pattern_problem
from ..core.rules import rule_problems
from .match_keys import (MATCH_TASK_KEYS, expected_calls_hit, is_marker, marker_problems,
                         match_key_problems)

__all__ = [
    "TASK_KEYS",
    "TOOL_KEYS",
    "SCHEMA_FILE",
    "json_schema",
    "task_problems",
    "tool_problems",
    "normalize_tool",
    "did_you_mean",
    "json_type_name",
    "split_call",
    "OPTIONAL_KEY",
    "is_float_number",
]

#: Every top-level key a gold task may carry.
TASK_KEYS = ("task_id", "input", "calls", "turns", "alternatives", "ordered", "tools", "slice",
             "value", "meta", "ignore_tools", "answer") + MATCH_TASK_KEYS

#: The key that marks a gold call optional (``{"lookup": {...}, "optional": true}``); only
#: with a boolean value, so a tool named ``optional`` (whose arguments are an object) is still
#: a tool.
OPTIONAL_KEY = "optional"

#: Every key of a tool in the flat (canonical) shape. ``type`` may only be ``"function"``.
TOOL_KEYS = ("name", "description", "parameters", "importance", "destructive", "type")

#: Keys of the OpenAI nested shape ``{"type": "function", "function": {...}}``.
_NESTED_OUTER_KEYS = ("type", "function", "importance", "destructive")
_NESTED_INNER_KEYS = ("name", "description", "parameters", "importance", "destructive", "strict")

#: Keys of a ``parameters`` object the checks understand (others are kept, unchecked).
_PARAMETER_OBJECT_TYPES = ("object", "dict")  # "dict" is what BFCL function docs write

#: The file name of the shipped JSON Schema (inside the ``ek_otel.gold`` package).
SCHEMA_FILE = "gold-task.schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of one gold task, as shipped in the package.

    Example:
        >>> json_schema()["required"]
        ['task_id']
    """
    return json.loads(_schema_text())


def json_type_name(value: Any) -> str:
    """The JSON name of a Python value's type, for messages.

    Example:
        >>> json_type_name([1]), json_type_name({}), json_type_name(True), json_type_name(None)
        ('array', 'object', 'boolean', 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def did_you_mean(word: str, choices) -> str:
    """A `` (did you mean 'x'?)`` suffix for the closest of ``choices``, or ``""``.

    Example:
        >>> did_you_mean("taskid", TASK_KEYS)
        " (did you mean 'task_id'?)"
        >>> did_you_mean("zzz", TASK_KEYS)
        ''
    """
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _short(value: Any, limit: int = 60) -> str:
    """A compact rendering of a value for a message."""
    text = json.dumps(value, default=repr, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(value: Any) -> bool:
    """A finite number that a float holds (an integer of 400 digits is not)."""
    return is_float_number(value)


def is_float_number(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool) that is finite as a float.

    Example:
        >>> is_float_number(2), is_float_number(1.5), is_float_number(10 ** 400), is_float_number(True)
        (True, True, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond the float range
        return False


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------


def normalize_tool(obj: Mapping[str, Any]) -> dict:
    """The flat shape of a tool: unwraps OpenAI's ``{"type": "function", "function": {...}}``.

    ``importance``/``destructive`` may sit on either level of the nested shape; OpenAI's
    ``strict`` flag and the ``type`` marker are dropped. Call this only on a tool that
    :func:`tool_problems` accepts.

    Example:
        >>> normalize_tool({"type": "function", "function": {"name": "f", "strict": True},
        ...                 "destructive": True})
        {'name': 'f', 'destructive': True}
        >>> normalize_tool({"name": "f", "type": "function"})
        {'name': 'f'}
    """
    if "function" in obj:
        flat = {k: v for k, v in obj["function"].items() if k != "strict"}
        for key in ("importance", "destructive"):
            if key in obj:
                flat[key] = obj[key]
        return flat
    return {k: v for k, v in obj.items() if k != "type"}


def tool_problems(obj: Any, where: str) -> list[str]:
    """Every problem of one tool schema (``where`` prefixes each message, e.g. ``tools[0]``).

    Example:
        >>> tool_problems({"name": "f", "parameters": []}, "tools[0]")
        ["tools[0] (f): parameters must be a JSON-schema object {'type': 'object', 'properties': {...}}, got array"]
        >>> tool_problems({"name": "f", "parameters": {"type": "object",
        ...     "properties": {"a": {"type": "number", "importance": 20}}}}, "tools[0]")
        []
    """
    if not isinstance(obj, Mapping):
        return [f"{where}: a tool must be an object with a name, got {json_type_name(obj)}"]
    problems: list[str] = []
    if "function" in obj:
        for key in obj:
            if key not in _NESTED_OUTER_KEYS:
                problems.append(f"{where}: unknown key '{key}'{did_you_mean(key, _NESTED_OUTER_KEYS)}")
        if obj.get("type", "function") != "function":
            problems.append(f"{where}: type must be 'function', got {_short(obj.get('type'))}")
        inner = obj["function"]
        if not isinstance(inner, Mapping):
            return problems + [f"{where}.function must be an object, got {json_type_name(inner)}"]
        for key in inner:
            if key not in _NESTED_INNER_KEYS:
                problems.append(
                    f"{where}.function: unknown key '{key}'{did_you_mean(key, _NESTED_INNER_KEYS)}"
                )
        if "strict" in inner and not isinstance(inner["strict"], bool):
            problems.append(f"{where}.function: strict must be true or false, got {_short(inner['strict'])}")
        for key in ("importance", "destructive"):
            if key in obj and key in inner:
                problems.append(f"{where}: {key} is given twice (outside and inside 'function')")
        if problems:
            return problems
        flat = normalize_tool(obj)
    else:
        for key in obj:
            if key not in TOOL_KEYS:
                problems.append(f"{where}: unknown key '{key}'{did_you_mean(key, TOOL_KEYS)}")
        if "type" in obj and obj["type"] != "function":
            problems.append(f"{where}: type must be 'function', got {_short(obj['type'])}")
        flat = normalize_tool(obj)

    name = flat.get("name")
    if name is None:
        return problems + [f"{where}: the tool has no name"]
    if not isinstance(name, str) or not name:
        return problems + [f"{where}: the tool name must be a non-empty string, got {_short(name)}"]
    label = f"{where} ({name})"
    if "description" in flat and not isinstance(flat["description"], str):
        problems.append(f"{label}: description must be a string, got {json_type_name(flat['description'])}")
    if "importance" in flat and not (_is_number(flat["importance"]) and flat["importance"] >= 0):
        problems.append(f"{label}: importance must be a number >= 0, got {_short(flat['importance'])}")
    if "destructive" in flat and not isinstance(flat["destructive"], bool):
        problems.append(f"{label}: destructive must be true or false, got {_short(flat['destructive'])}")
    if "parameters" in flat:
        problems.extend(_parameters_problems(flat["parameters"], label))
    return problems


def _parameters_problems(params: Any, label: str) -> list[str]:
    if not isinstance(params, Mapping):
        return [
            f"{label}: parameters must be a JSON-schema object "
            f"{{'type': 'object', 'properties': {{...}}}}, got {json_type_name(params)}"
        ]
    problems: list[str] = []
    kind = params.get("type", "object")
    if kind not in _PARAMETER_OBJECT_TYPES:
        problems.append(f"{label}: parameters.type must be 'object' (or BFCL's 'dict'), got {_short(kind)}")
    properties = params.get("properties", {})
    if not isinstance(properties, Mapping):
        return problems + [f"{label}: parameters.properties must be an object, got {json_type_name(properties)}"]
    for arg, prop in properties.items():
        where = f"{label}: argument '{arg}'"
        if not isinstance(prop, Mapping):
            problems.append(f"{where} must be described by a JSON-schema object, got {json_type_name(prop)}")
            continue
        kind = prop.get("type")
        if kind is not None and not (
            isinstance(kind, str) or (isinstance(kind, list) and all(isinstance(k, str) for k in kind))
        ):
            problems.append(f"{where}: type must be a string or a list of strings, got {_short(kind)}")
        if "importance" in prop and not (_is_number(prop["importance"]) and prop["importance"] >= 0):
            problems.append(f"{where}: importance must be a number >= 0, got {_short(prop['importance'])}")
        if "enum" in prop and not isinstance(prop["enum"], list):
            problems.append(f"{where}: enum must be a list, got {json_type_name(prop['enum'])}")
        if "description" in prop and not isinstance(prop["description"], str):
            problems.append(f"{where}: description must be a string, got {json_type_name(prop['description'])}")
    required = params.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        problems.append(f"{label}: parameters.required must be a list of argument names, got {_short(required)}")
    else:
        for arg in required:
            if arg not in properties:
                problems.append(
                    f"{label}: required argument '{arg}' is not among the properties"
                    f"{did_you_mean(arg, properties)}"
                )
    return problems


# ---------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------


def split_call(call: Mapping[str, Any]) -> Optional[tuple]:
    """``(tool, args, optional)`` of a gold call object, or None when it is not one call.

    The markers beside the tool name (``"optional": true``, ``"args": "ignore"``,
    ``"agent": "billing"``; :mod:`ek_otel.gold.match_keys`) are not tools.

    Example:
        >>> split_call({"lookup": {"id": [1]}, "optional": True, "args": "ignore"})
        ('lookup', {'id': [1]}, True)
        >>> split_call({"optional": {}})          # a tool named "optional"
        ('optional', {}, False)
        >>> split_call({"a": {}, "b": {}}) is None
        True
    """
    keys = [k for k, v in call.items() if not is_marker(k, v)]
    if len(keys) != 1:
        return None
    return keys[0], call[keys[0]], call.get(OPTIONAL_KEY) is True


def _value_problems(allowed: Any, at: str) -> list[str]:
    """One gold value: a list of admissible values, or a rule object (core.rules)."""
    if isinstance(allowed, Mapping):
        return [f"{at}: {problem}" for problem in rule_problems(allowed)]
    if not isinstance(allowed, list):
        return [
            f"{at}: the allowed values must be a list, "
            f"e.g. [{json.dumps(allowed, default=repr)}], or a rule such as {{\"any\": true}}, "
            f"got {_short(allowed)}"
        ]
    if not allowed:
        return [
            f"{at}: the allowed values list is empty, so nothing could match "
            f'(write [""] for an argument that may be omitted)'
        ]
    return []


def _call_list_problems(calls: Any, where: str) -> list[str]:
    if not isinstance(calls, list):
        return [
            f'{where} must be a list of calls like [{{"tool": {{"arg": [allowed, ...]}}}}] '
            f"([] when no call is expected), got {json_type_name(calls)}"
        ]
    problems: list[str] = []
    for i, call in enumerate(calls):
        at = f"{where}[{i}]"
        if not isinstance(call, Mapping):
            problems.append(
                f'{at} must be an object {{"tool": {{"arg": [allowed, ...]}}}}, got {json_type_name(call)}'
            )
            continue
        parts = split_call(call)
        if parts is None:
            names = [k for k, v in call.items() if not is_marker(k, v)]
            problems.append(
                f"{at} must have exactly one key, the tool name (and optionally \"optional\": true, "
                f"\"args\": \"mode\", \"agent\": \"name\"), "
                f"got {len(names)} ({', '.join(repr(k) for k in names) or 'none'}); "
                f"write one call per list entry"
            )
            continue
        tool, args, _ = parts
        if not isinstance(tool, str) or not tool:
            problems.append(f"{at}: the tool name must be a non-empty string")
            continue
        if not isinstance(args, Mapping):
            problems.append(
                f"{at}.{tool}: the arguments must be an object {{arg: [allowed, ...]}}, "
                f"got {json_type_name(args)}"
            )
            continue
        for arg, allowed in args.items():
            problems.extend(_value_problems(allowed, f"{at}.{tool}.{arg}"))
        problems.extend(marker_problems(call, at))
    return problems


def _gold_calls(obj: Mapping[str, Any]) -> list[tuple[str, str, Mapping]]:
    """``(where, tool, args)`` for every well-formed gold call of a task."""
    found = []
    lists = []
    if isinstance(obj.get("calls"), list):
        lists.append(("calls", obj["calls"]))
    for key in ("turns", "alternatives"):
        if isinstance(obj.get(key), list):
            lists.extend(
                (f"{key}[{t}]", turn) for t, turn in enumerate(obj[key]) if isinstance(turn, list)
            )
    for where, calls in lists:
        for i, call in enumerate(calls):
            parts = split_call(call) if isinstance(call, Mapping) else None
            if parts is not None and isinstance(parts[1], Mapping):
                found.append((f"{where}[{i}]", parts[0], parts[1], parts[2]))
    return found


def _ignore_tools_problems(obj: Mapping[str, Any]) -> list[str]:
    """``ignore_tools``: a list of tool names (``*`` globs) that match no gold call."""
    patterns = obj["ignore_tools"]
    if not isinstance(patterns, list):
        return [f'ignore_tools must be a list of tool names, e.g. ["final_answer"], '
                f"got {json_type_name(patterns)}"]
    problems = [f"ignore_tools[{i}]: {problem}" for i, pattern in enumerate(patterns)
                if (problem := pattern_problem(pattern))]
    if problems:
        return problems
    return expected_calls_hit(patterns, _gold_calls(obj), "ignore_tools '{}' removes from every run")


# ---------------------------------------------------------------------------
# A whole task
# ---------------------------------------------------------------------------


def task_problems(obj: Any) -> list[str]:
    """Every problem of one gold task; ``[]`` when the task is valid.

    Besides the shape of each key, the calls are checked against the tools when tools
    are given: a called tool must be among them, and an argument must be among the
    tool's ``parameters.properties`` when the tool declares parameters.

    Example:
        >>> task_problems({"task_id": "t", "calls": [{"refund": {"amout": [10]}}],
        ...     "tools": [{"name": "refund", "parameters": {"type": "object",
        ...                "properties": {"amount": {"type": "number"}}}}]})
        ["calls[0].refund: argument 'amout' is not in the tool's parameters (did you mean 'amount'?)"]
        >>> task_problems([])
        ['a task must be a JSON object, got array']
        >>> task_problems({"task_id": "t", "ignore_tools": ["final_answer", ""]})
        ['ignore_tools[1]: a tool name must be a non-empty string, got ""']
    """
    if not isinstance(obj, Mapping):
        return [f"a task must be a JSON object, got {json_type_name(obj)}"]
    problems = [f"unknown key '{key}'{did_you_mean(key, TASK_KEYS)}" for key in obj if key not in TASK_KEYS]
    problems += _task_id_problems(obj)
    problems += _calls_and_turns_problems(obj)
    problems += _scalar_field_problems(obj)
    tool_list_problems, tools_by_name = _tools_problems(obj)
    problems += tool_list_problems
    problems += _calls_against_tools_problems(obj, tools_by_name)
    if any(key in obj for key in MATCH_TASK_KEYS):
        problems += match_key_problems(obj, _gold_calls(obj))
    return problems


def _task_id_problems(obj: Mapping) -> list[str]:
    task_id = obj.get("task_id")
    if "task_id" not in obj:
        return ["task_id is missing"]
    if not isinstance(task_id, str):
        return [f"task_id must be a string, got {_short(task_id)}"]
    if not task_id.strip():
        return ["task_id is empty"]
    return []


def _calls_and_turns_problems(obj: Mapping) -> list[str]:
    """The gold calls: one list (``calls``) or one list per user turn (``turns``)."""
    problems: list[str] = []
    if "calls" in obj:
        problems.extend(_call_list_problems(obj["calls"], "calls"))
    if "turns" in obj:
        turns = obj["turns"]
        if "calls" in obj:
            problems.append("give either calls or turns, not both (turns are the calls of a multi-turn task)")
        if not isinstance(turns, list):
            problems.append(f"turns must be a list of call lists, one per user turn, got {json_type_name(turns)}")
        else:
            for t, turn in enumerate(turns):
                problems.extend(_call_list_problems(turn, f"turns[{t}]"))
    if "alternatives" in obj:
        alternatives = obj["alternatives"]
        if "calls" in obj or "turns" in obj:
            problems.append("give either calls, turns or alternatives (alternatives are the "
                            "acceptable call lists of the task, the first included)")
        if not isinstance(alternatives, list) or len(alternatives) < 2:
            problems.append("alternatives must be a list of at least two call lists, "
                            f"e.g. [[{{\"a\": {{}}}}], [{{\"b\": {{}}}}]], got {_short(alternatives)}")
        else:
            for a, calls in enumerate(alternatives):
                problems.extend(_call_list_problems(calls, f"alternatives[{a}]"))
    return problems


def _scalar_field_problems(obj: Mapping) -> list[str]:
    """``ordered``, ``slice``, ``value``, ``meta`` and ``ignore_tools``."""
    problems: list[str] = []
    if "ordered" in obj and not isinstance(obj["ordered"], bool):
        problems.append(f"ordered must be true or false, got {_short(obj['ordered'])}")
    if "slice" in obj and obj["slice"] is not None and not isinstance(obj["slice"], str):
        problems.append(f"slice must be a string label, got {_short(obj['slice'])}")
    if "value" in obj and not (_is_number(obj["value"]) and obj["value"] > 0):
        problems.append(f"value must be a number > 0, got {_short(obj['value'])}")
    if "meta" in obj and not isinstance(obj["meta"], Mapping):
        problems.append(f"meta must be an object, got {json_type_name(obj['meta'])}")
    if "ignore_tools" in obj:
        problems.extend(_ignore_tools_problems(obj))
    if "answer" in obj:
        problems.extend(_value_problems(obj["answer"], "answer"))
    return problems


def _tools_problems(obj: Mapping) -> tuple:
    """``(problems, tool name -> its parameters schema)`` of the task's ``tools`` list (only
    valid tools, the first of each name, are in the map)."""
    problems: list[str] = []
    tools_by_name: dict[str, Optional[Mapping]] = {}
    if "tools" not in obj:
        return problems, tools_by_name
    tools = obj["tools"]
    if not isinstance(tools, list):
        return [f"tools must be a list of tool schemas, got {json_type_name(tools)}"], tools_by_name
    first_index: dict[str, int] = {}
    for i, tool in enumerate(tools):
        these = tool_problems(tool, f"tools[{i}]")
        problems.extend(these)
        if these:
            continue
        flat = normalize_tool(tool)
        name = flat["name"]
        if name in first_index:
            problems.append(f"tools[{i}]: duplicate tool name '{name}' (also tools[{first_index[name]}])")
            continue
        first_index[name] = i
        tools_by_name[name] = flat.get("parameters")
    return problems, tools_by_name


def _calls_against_tools_problems(obj: Mapping, tools_by_name: Mapping) -> list[str]:
    """A called tool must be among the tools; an argument among its declared properties."""
    problems: list[str] = []
    if not tools_by_name:
        return problems
    for where, tool, args, _ in _gold_calls(obj):
        if tool not in tools_by_name:
            problems.append(
                f"{where}: tool '{tool}' is not among the task's tools{did_you_mean(tool, tools_by_name)}"
            )
            continue
        params = tools_by_name[tool]
        if not isinstance(params, Mapping) or not isinstance(params.get("properties"), Mapping):
            continue  # no declared properties: any argument is allowed
        properties = params["properties"]
        problems.extend(
            f"{where}.{tool}: argument '{arg}' is not in the tool's parameters{did_you_mean(arg, properties)}"
            for arg in args if arg not in properties
        )
    return problems
