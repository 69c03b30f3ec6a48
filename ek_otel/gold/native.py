"""Gold task files in the native format: the task model (dicts <-> :class:`TaskSpec`), and
the files read, checked and written through it.

A gold file holds tasks in one of three forms, chosen by the file itself:

- **YAML** when the name ends in ``.yaml`` or ``.yml``: a list of tasks;
- **a JSON array** when the first character that is not blank is ``[``;
- **JSON Lines** otherwise: one task object per line. Blank lines and lines whose first
  non-blank character is ``#`` are comments and are skipped.

Each task is checked by :func:`ek_otel.gold.schema.task_problems`. Errors are
:class:`~ek_otel.errors.GoldFileError` s that name the file, the line (for JSON Lines the
task's own line; for a JSON array or YAML the line where the task starts) and the problem.
A bad task is never skipped: :func:`load_tasks` fails on the first error, and
:func:`validate_file` collects them all. The reading of the three forms, item by item with
their lines, is :mod:`ek_otel.gold.documents`.

Example:
    >>> task = task_from_dict({"task_id": "w1", "calls": [{"get_weather": {"city": ["Paris"],
    ...                                                    "unit": ["celsius", ""]}}]})
    >>> task.gold
    (('get_weather', {'city': AnyOf(values=('Paris',)), 'unit': AnyOf(values=('celsius', ''))}),)
    >>> task_to_dict(task)
    {'task_id': 'w1', 'calls': [{'get_weather': {'city': ['Paris'], 'unit': ['celsius', '']}}]}

Argument rules (:mod:`ek_otel.core.rules`), optional calls and alternatives round-trip too:

    >>> obj = {"task_id": "r1", "alternatives": [
    ...     [{"lookup": {"order_id": {"regex": "A-[0-9]+"}}, "optional": True},
    ...      {"refund": {"order_id": {"any": True}, "amount": {"number": 35.5, "abs_tol": 0.01}}}],
    ...     [{"escalate": {}}]], "answer": {"contains": "refund issued"}}
    >>> task = task_from_dict(obj)
    >>> task.optional, task.gold[1][1]["amount"].describe(), task.answer.describe()
    (frozenset({0}), '35.5 ± 0.01', "contains 'refund issued'")
    >>> task_to_dict(task) == obj
    True

So do the match mode, the argument modes and the hard rules:

    >>> obj = {"task_id": "m1", "calls": [{"search": {"q": ["cats"]}},
    ...        {"book": {"id": [1]}, "args": "superset"}], "match": "superset", "args": "ignore",
    ...        "forbid": ["delete_*"], "max_calls": {"search": 3, "*": 10}, "no_repeat": True}
    >>> task = task_from_dict(obj)
    >>> task.match, task.args, task.call_args, task.max_calls["*"]
    ('superset', 'ignore', {1: 'superset'}, 10)
    >>> task_to_dict(task) == obj
    True
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..core.episode import DEFAULT_TASK_VALUE, Alternative, AnyOf, TaskSpec, ToolSpec
from ..core.grammar import FieldSpec
from ..core.rules import Rule, parse_rule
from ..errors import GoldFileError
from .documents import document_items, read_text, write_documents
from .schema import OPTIONAL_KEY, normalize_tool, split_call, task_problems

__all__ = [
    "GoldValidation",
    "load_tasks",
    "validate_file",
    "task_from_dict",
    "task_to_dict",
    "tool_from_dict",
    "tool_to_dict",
    "dump_tasks",
    "gold_value",
    "value_to_json",
]

PathLike = Union[str, "os.PathLike[str]"]

# ---------------------------------------------------------------------------
# dict <-> TaskSpec
# ---------------------------------------------------------------------------


def _field_from_property(name: str, prop: Mapping[str, Any], required: bool) -> FieldSpec:
    kind = prop.get("type", "any")
    enum = prop.get("enum")
    return FieldSpec(
        name=name,
        type=kind if isinstance(kind, str) else "any",
        importance=float(prop.get("importance", 1.0)),
        domain=tuple(enum) if isinstance(enum, list) else None,
        required=required,
        description=prop.get("description", ""),
        schema=prop,
    )


def tool_from_dict(obj: Mapping[str, Any]) -> ToolSpec:
    """Build a :class:`ToolSpec` from a tool schema that the checks accept (flat or nested).

    Each property of ``parameters`` becomes a :class:`FieldSpec` (type, importance, enum as
    domain, required); the raw ``parameters`` object is kept as ``ToolSpec.schema``.

    Example:
        >>> t = tool_from_dict({"type": "function", "function": {"name": "refund",
        ...     "parameters": {"type": "object", "required": ["amount"],
        ...                    "properties": {"amount": {"type": "number", "importance": 20}}}},
        ...     "destructive": True})
        >>> t.weight, t.params["amount"].importance, t.params["amount"].required
        (10.0, 20.0, True)
    """
    flat = copy.deepcopy(normalize_tool(obj))
    params = flat.get("parameters")
    fields: dict[str, FieldSpec] = {}
    if isinstance(params, Mapping):
        required = set(params.get("required", []))
        for name, prop in params.get("properties", {}).items():
            fields[name] = _field_from_property(name, prop, name in required)
    importance = flat.get("importance")
    return ToolSpec(
        name=flat["name"],
        params=fields,
        importance=float(importance) if importance is not None else None,
        destructive=bool(flat.get("destructive", False)),
        description=flat.get("description", ""),
        schema=params,
    )


def tool_to_dict(tool: ToolSpec) -> dict:
    """The flat tool schema of a :class:`ToolSpec` (defaults left out); inverse of :func:`tool_from_dict`.

    A ToolSpec built in code (without a raw ``schema``) gets its ``parameters`` rebuilt from
    its :class:`FieldSpec` s.

    Example:
        >>> tool_to_dict(ToolSpec("send", destructive=True))
        {'name': 'send', 'destructive': True}
        >>> tool_to_dict(ToolSpec("f", params={"a": FieldSpec("a", "string", importance=2.0,
        ...                                                   required=True)}))
        {'name': 'f', 'parameters': {'type': 'object', 'properties': {'a': {'type': 'string', 'importance': 2.0}}, 'required': ['a']}}
    """
    out: dict[str, Any] = {"name": tool.name}
    if tool.description:
        out["description"] = tool.description
    if tool.schema is not None:
        out["parameters"] = copy.deepcopy(dict(tool.schema))
    elif tool.params:
        out["parameters"] = _parameters_from_fields(tool.params)
    if tool.importance is not None:
        out["importance"] = tool.importance
    if tool.destructive:
        out["destructive"] = True
    return out


def _parameters_from_fields(params: Mapping[str, FieldSpec]) -> dict:
    properties: dict[str, Any] = {}
    for name, spec in params.items():
        if spec.schema is not None:
            properties[name] = copy.deepcopy(dict(spec.schema))
            continue
        prop: dict[str, Any] = {}
        if spec.type != "any":
            prop["type"] = spec.type
        if spec.description:
            prop["description"] = spec.description
        if spec.domain is not None:
            prop["enum"] = list(spec.domain)
        if spec.importance != 1.0:
            prop["importance"] = spec.importance
        properties[name] = prop
    out: dict[str, Any] = {"type": "object", "properties": properties}
    required = [name for name, spec in params.items() if spec.required]
    if required:
        out["required"] = required
    return out


def gold_value(allowed: Any) -> Any:
    """The in-memory gold value of a gold-file value: a list of admissible values becomes an
    :class:`AnyOf`, a rule object a :class:`~ek_otel.core.rules.Rule`.

    Example:
        >>> gold_value(["Paris", ""]), gold_value({"any": True})
        (AnyOf(values=('Paris', '')), AnyValue(optional=False))
    """
    if isinstance(allowed, Mapping):
        return parse_rule(allowed)
    return AnyOf(tuple(copy.deepcopy(allowed)))


def _gold_from_calls(calls: list, offset: int = 0) -> tuple:
    """``(gold calls, indices of the optional ones, {index: argument mode}, {index: agent})``
    of a checked call list (indices from ``offset``)."""
    gold = []
    optional = []
    call_args = {}
    call_agents = {}
    for index, call in enumerate(calls, start=offset):
        tool, args, is_optional = split_call(call)
        gold.append((tool, {arg: gold_value(allowed) for arg, allowed in args.items()}))
        if is_optional:
            optional.append(index)
        if isinstance(call.get("args"), str):
            call_args[index] = call["args"]
        if isinstance(call.get("agent"), str):
            call_agents[index] = call["agent"]
    return tuple(gold), frozenset(optional), call_args, call_agents


def value_to_json(value: Any) -> Any:
    """The gold-file form of an in-memory gold value (inverse of :func:`gold_value`).

    Example:
        >>> from ek_otel.core.rules import Number
        >>> value_to_json(AnyOf((1, ""))), value_to_json(Number(2.0, abs_tol=0.5)), value_to_json(3)
        ([1, ''], {'number': 2.0, 'abs_tol': 0.5}, [3])
    """
    if isinstance(value, Rule):
        return value.to_dict()
    if isinstance(value, AnyOf):
        return copy.deepcopy(list(value.values))
    return [copy.deepcopy(value)]  # an exact gold value is the one-element case


def _calls_from_gold(gold, optional=frozenset(), offset: int = 0, call_args=None,
                     call_agents=None) -> list:
    out = []
    for index, (tool, args) in enumerate(gold):
        call: dict = {tool: {arg: value_to_json(v) for arg, v in args.items()}}
        if index + offset in optional:
            call[OPTIONAL_KEY] = True
        if call_args and index + offset in call_args:
            call["args"] = call_args[index + offset]
        if call_agents and index + offset in call_agents:
            call["agent"] = call_agents[index + offset]
        out.append(call)
    return out


def task_from_dict(obj: Any, *, path: str = "<dict>", line: Optional[int] = None) -> TaskSpec:
    """Check one task object and build its :class:`TaskSpec`.

    ``calls`` become ``TaskSpec.gold`` as ``(tool, {arg: AnyOf(allowed)})`` pairs; ``turns``
    become ``TaskSpec.turns`` and their concatenation ``TaskSpec.gold``.

    Raises:
        GoldFileError: naming ``path``, ``line`` and the first problem of the task.

    Example:
        >>> task_from_dict({"task_id": "t", "calls": []}).gold
        ()
        >>> task_from_dict({"task_id": "t", "calls": {}}, path="gold.jsonl", line=7)
        Traceback (most recent call last):
        ...
        ek_otel.errors.GoldFileError: gold.jsonl:7: calls must be a list of calls like [{"tool": {"arg": [allowed, ...]}}] ([] when no call is expected), got object
    """
    problems = task_problems(obj)
    if problems:
        raise GoldFileError(path, line, problems[0])
    return _build_task(obj)


def _build_task(obj: Mapping[str, Any]) -> TaskSpec:
    turns = None
    alternatives: tuple = ()
    if "turns" in obj:
        parts = []
        offset = 0
        for turn in obj["turns"]:
            parts.append(_gold_from_calls(turn, offset))
            offset += len(turn)
        turns = tuple(part[0] for part in parts)
        gold = tuple(call for turn in turns for call in turn)
        optional = frozenset(i for part in parts for i in part[1])
        call_args = {i: mode for part in parts for i, mode in part[2].items()}
        call_agents = {i: agent for part in parts for i, agent in part[3].items()}
    elif "alternatives" in obj:
        alternatives = tuple(Alternative(*_gold_from_calls(calls)) for calls in obj["alternatives"])
        gold, optional = alternatives[0].calls, alternatives[0].optional
        call_args, call_agents = alternatives[0].call_args, alternatives[0].call_agents
    else:
        gold, optional, call_args, call_agents = _gold_from_calls(obj.get("calls", []))
    return TaskSpec(
        task_id=obj["task_id"],
        input=copy.deepcopy(obj.get("input")),
        gold=gold,
        value=float(obj.get("value", DEFAULT_TASK_VALUE)),
        tools=tuple(tool_from_dict(t) for t in obj.get("tools", [])),
        slice=obj.get("slice"),
        ordered=obj.get("ordered", False),
        turns=turns,
        meta=copy.deepcopy(dict(obj.get("meta", {}))),
        ignore_tools=tuple(dict.fromkeys(obj.get("ignore_tools", ()))),
        optional=optional,
        alternatives=alternatives,
        answer=gold_value(obj["answer"]) if "answer" in obj else None,
        match=obj.get("match", "exact"),
        args=obj.get("args", "exact"),
        args_by_tool=dict(obj.get("args_by_tool", {})),
        call_args=call_args,
        call_agents=call_agents,
        forbid=tuple(dict.fromkeys(obj.get("forbid", ()))),
        max_calls=dict(obj.get("max_calls", {})),
        no_repeat=obj.get("no_repeat", False),
    )


def task_to_dict(task: TaskSpec) -> dict:
    """The native-format object of a task, defaults left out; the inverse of :func:`task_from_dict`.

    For a canonical object (flat tool shape, no default values written out)
    ``task_to_dict(task_from_dict(obj)) == obj``.

    Example:
        >>> task_to_dict(TaskSpec("t", gold=[("search", {"q": AnyOf(("cats", "Cats"))})],
        ...                       slice="search", value=2.0))
        {'task_id': 't', 'calls': [{'search': {'q': ['cats', 'Cats']}}], 'slice': 'search', 'value': 2.0}
    """
    out: dict[str, Any] = {"task_id": task.task_id}
    if task.input is not None:
        out["input"] = copy.deepcopy(task.input)
    if task.turns is not None:
        out["turns"] = []
        offset = 0
        for turn in task.turns:
            out["turns"].append(_calls_from_gold(turn, task.optional, offset, task.call_args,
                                                 task.call_agents))
            offset += len(turn)
    elif len(task.alternatives) > 1:
        out["alternatives"] = [_calls_from_gold(alt.calls, alt.optional, 0, alt.call_args,
                                                alt.call_agents) for alt in task.alternatives]
    else:
        out["calls"] = _calls_from_gold(task.gold, task.optional, 0, task.call_args,
                                        task.call_agents)
    if task.ordered:
        out["ordered"] = True
    if task.match != "exact":
        out["match"] = task.match
    if task.args != "exact":
        out["args"] = task.args
    if task.args_by_tool:
        out["args_by_tool"] = dict(task.args_by_tool)
    if task.tools:
        out["tools"] = [tool_to_dict(t) for t in task.tools]
    if task.slice is not None:
        out["slice"] = task.slice
    if task.value != DEFAULT_TASK_VALUE:
        out["value"] = task.value
    if task.meta:
        out["meta"] = copy.deepcopy(dict(task.meta))
    if task.ignore_tools:
        out["ignore_tools"] = list(task.ignore_tools)
    if task.answer is not None:
        out["answer"] = value_to_json(task.answer)
    if task.forbid:
        out["forbid"] = list(task.forbid)
    if task.max_calls:
        out["max_calls"] = dict(task.max_calls)
    if task.no_repeat:
        out["no_repeat"] = True
    return out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldValidation:
    """The outcome of checking one gold file: the tasks that are valid and every error.

    Example:
        >>> v = GoldValidation(path="g.jsonl", tasks=(TaskSpec("t"),), errors=())
        >>> v.ok, len(v.tasks)
        (True, 1)
    """

    path: str
    tasks: tuple = ()
    errors: tuple = ()

    @property
    def ok(self) -> bool:
        """True when the file has no error."""
        return not self.errors


def _check(path: PathLike, *, stop_at_first: bool) -> GoldValidation:
    name = str(path)
    text = read_text(path)
    tasks: list[TaskSpec] = []
    errors: list[GoldFileError] = []
    first_line: dict[str, int] = {}
    seen_any = False

    def fail(error: GoldFileError) -> None:
        if stop_at_first:
            raise error
        errors.append(error)

    for line, obj, error in document_items(path, text):
        seen_any = True
        if error is not None:
            fail(error)
            continue
        problems = task_problems(obj)
        task_id = obj.get("task_id") if isinstance(obj, Mapping) else None
        if isinstance(task_id, str):
            if task_id in first_line:
                problems.append(f"duplicate task_id '{task_id}' (first on line {first_line[task_id]})")
            else:
                first_line[task_id] = line
        for problem in problems:
            fail(GoldFileError(name, line, problem))
        if not problems:
            tasks.append(_build_task(obj))
    if not seen_any:
        fail(GoldFileError(name, None, "the file holds no tasks"))
    return GoldValidation(path=name, tasks=tuple(tasks), errors=tuple(errors))


def load_tasks(path: PathLike) -> list[TaskSpec]:
    """Read a gold file (JSON Lines, JSON array or YAML) into :class:`TaskSpec` s, in file order.

    Raises:
        GoldFileError: on the first problem, naming the file, the line and what is wrong.

    Example:
        >>> import tempfile, os
        >>> d = tempfile.mkdtemp()
        >>> p = os.path.join(d, "tasks.jsonl")
        >>> _ = open(p, "w").write('# weather\\n{"task_id": "w1", "calls": [{"get_weather": {"city": ["Paris"]}}]}\\n'
        ...                        '{"task_id": "w1", "calls": []}\\n')
        >>> load_tasks(p)
        Traceback (most recent call last):
        ...
        ek_otel.errors.GoldFileError: ...tasks.jsonl:3: duplicate task_id 'w1' (first on line 2)
    """
    return list(_check(path, stop_at_first=True).tasks)


def validate_file(path: PathLike) -> GoldValidation:
    """Check a whole gold file and collect **every** error (a missing or unreadable file raises).

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "tasks.yaml")
        >>> _ = open(p, "w").write("- task_id: a\\n  calls: []\\n- task_id: b\\n  value: -1\\n  cals: []\\n")
        >>> v = validate_file(p)
        >>> len(v.tasks), [str(e).split(":", 1)[1] for e in v.errors]
        (1, ["3: unknown key 'cals' (did you mean 'calls'?)", '3: value must be a number > 0, got -1'])
    """
    return _check(path, stop_at_first=False)


def dump_tasks(tasks, path: PathLike) -> None:
    """Write tasks to a gold file: YAML for ``.yaml``/``.yml``, a JSON array for ``.json``,
    else JSON Lines. :func:`load_tasks` reads back equal tasks.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "out.jsonl")
        >>> dump_tasks([TaskSpec("t", gold=[("f", {"x": AnyOf((1,))})])], p)
        >>> open(p).read()
        '{"task_id": "t", "calls": [{"f": {"x": [1]}}]}\\n'
        >>> load_tasks(p)[0].gold
        (('f', {'x': AnyOf(values=(1,))}),)
    """
    write_documents([task_to_dict(t) for t in tasks], path)
