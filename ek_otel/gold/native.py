"""Gold task files in the native format: read, check, write.

A gold file holds tasks in one of three forms, chosen by the file itself:

- **YAML** when the name ends in ``.yaml`` or ``.yml``: a list of tasks;
- **a JSON array** when the first character that is not blank is ``[``;
- **JSON Lines** otherwise: one task object per line. Blank lines and lines whose first
  non-blank character is ``#`` are comments and are skipped.

Each task is checked by :func:`ek_otel.gold.schema.task_problems`. Errors are
:class:`~ek_otel.errors.GoldFileError` s that name the file, the line (for JSON Lines the
task's own line; for a JSON array or YAML the line where the task starts) and the problem.
A bad task is never skipped: :func:`load_tasks` fails on the first error, and
:func:`validate_file` collects them all.

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
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

import yaml

from ..core.episode import DEFAULT_TASK_VALUE, Alternative, AnyOf, TaskSpec, ToolSpec
from ..core.grammar import FieldSpec
from ..core.rules import Rule, parse_rule
from ..errors import GoldFileError
from ..limits import GOLD_MAX_INT_DIGITS, GOLD_MAX_NESTING, YAML_MAX_EXPANDED_NODES
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
    "gold_format",
    "gold_value",
    "value_to_json",
    "JsonYamlLoader",
    "nesting_problem",
    "parse_problem",
    "yaml_problem",
]

PathLike = Union[str, "os.PathLike[str]"]

_YAML_SUFFIXES = (".yaml", ".yml")


class JsonYamlLoader(yaml.SafeLoader):
    """A YAML loader whose plain scalars mean what the same text means in JSON.

    PyYAML's safe loader follows YAML 1.1, where ``2026-12-20`` is a date, ``12:30`` is the
    number 750, ``yes``/``no``/``on``/``off`` are booleans and ``0123`` is octal 83. A gold
    value written that way would never match the string a model sends, silently. Here only
    ``true``/``false``, ``null``/``~``, decimal integers (no leading zero) and decimal
    floats are typed; everything else stays a string. An explicit tag (``!!int 0123``) still
    works.

    Untrusted text stays cheap: nesting deeper than :data:`~ek_otel.limits.GOLD_MAX_NESTING`
    and aliases that expand to more than :data:`~ek_otel.limits.YAML_MAX_EXPANDED_NODES`
    nodes (an alias bomb) are refused as a ``ComposerError`` at their line, before anything
    is built.

    Example:
        >>> yaml.load("[2026-12-20, 12:30, yes, 0123, 7, -1.5e3, true, null, .inf]", JsonYamlLoader)
        ['2026-12-20', '12:30', 'yes', '0123', 7, -1500.0, True, None, inf]
        >>> try:
        ...     yaml.load("[" * 200 + "]" * 200, JsonYamlLoader)
        ... except yaml.composer.ComposerError as exc:
        ...     exc.problem, exc.problem_mark.column
        ('nested deeper than 100 levels', 100)
    """

    #: The deepest nesting of sequences and mappings composed (a gold file's list of tasks
    #: adds one: each task then has the same room as in JSON Lines).
    max_nesting = GOLD_MAX_NESTING

    def __init__(self, stream: Any):
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict = {}  # id(node) -> nodes it expands to
        self._expanded = 0  # nodes reached through aliases so far

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            node = super().compose_node(parent, index)
            self._expanded += self._sizes.get(id(node), 1)
            if self._expanded > YAML_MAX_EXPANDED_NODES:
                raise yaml.composer.ComposerError(
                    None, None, f"aliases expand to more than {YAML_MAX_EXPANDED_NODES} nodes "
                    "(an alias bomb?); write the values out", mark)
            return node
        if self._depth >= self.max_nesting and not self.check_event(yaml.ScalarEvent):
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {GOLD_MAX_NESTING} levels",
                                              self.peek_event().start_mark)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.SequenceNode):
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(c), 1) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1)
                                            for k, v in node.value)
        return node


JsonYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


class JsonYamlDumper(yaml.SafeDumper):
    """Writes YAML that :class:`JsonYamlLoader` reads back as written.

    PyYAML's own dumper quotes a string only when YAML 1.1 would read it as something else,
    so a string such as ``0E0`` (no number in YAML 1.1, a number in JSON) stays plain and comes
    back as ``0.0``. This dumper quotes every string that the JSON-like loader would not read
    back as that string.

    Example:
        >>> text = yaml.dump(["0E0", "yes", "1", "x"], Dumper=JsonYamlDumper)
        >>> print(text, end="")
        - '0E0'
        - 'yes'
        - '1'
        - x
        >>> yaml.load(text, JsonYamlLoader)
        ['0E0', 'yes', '1', 'x']
    """


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    tag = JsonYamlLoader.resolve(JsonYamlLoader, yaml.ScalarNode, data, (True, False))
    style = "'" if tag != "tag:yaml.org,2002:str" else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


JsonYamlDumper.add_representer(str, _represent_str)


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


def _gold_from_calls(calls: list) -> tuple:
    """``(gold calls, indices of the optional ones)`` of a checked call list."""
    gold = []
    optional = []
    for index, call in enumerate(calls):
        tool, args, is_optional = split_call(call)
        gold.append((tool, {arg: gold_value(allowed) for arg, allowed in args.items()}))
        if is_optional:
            optional.append(index)
    return tuple(gold), frozenset(optional)


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


def _calls_from_gold(gold, optional=frozenset(), offset: int = 0) -> list:
    out = []
    for index, (tool, args) in enumerate(gold):
        call: dict = {tool: {arg: value_to_json(v) for arg, v in args.items()}}
        if index + offset in optional:
            call[OPTIONAL_KEY] = True
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
        parts = [_gold_from_calls(turn) for turn in obj["turns"]]
        turns = tuple(calls for calls, _ in parts)
        gold = tuple(call for turn in turns for call in turn)
        optional = set()
        offset = 0
        for calls, flags in parts:
            optional.update(offset + i for i in flags)
            offset += len(calls)
        optional = frozenset(optional)
    elif "alternatives" in obj:
        alternatives = tuple(Alternative(*_gold_from_calls(calls)) for calls in obj["alternatives"])
        gold, optional = alternatives[0].calls, alternatives[0].optional
    else:
        gold, optional = _gold_from_calls(obj.get("calls", []))
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
            out["turns"].append(_calls_from_gold(turn, task.optional, offset))
            offset += len(turn)
    elif len(task.alternatives) > 1:
        out["alternatives"] = [_calls_from_gold(alt.calls, alt.optional) for alt in task.alternatives]
    else:
        out["calls"] = _calls_from_gold(task.gold, task.optional)
    if task.ordered:
        out["ordered"] = True
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


def gold_format(path: PathLike, text: Optional[str] = None) -> str:
    """Which form a gold file is in: ``"yaml"``, ``"json"`` (an array) or ``"jsonl"``.

    Example:
        >>> gold_format("tasks.yml"), gold_format("t.json", '  [{"task_id": "a"}]')
        ('yaml', 'json')
        >>> gold_format("t.jsonl", '# a comment\\n{"task_id": "a"}')
        'jsonl'
    """
    if str(path).lower().endswith(_YAML_SUFFIXES):
        return "yaml"
    if text is not None and text.lstrip().startswith("["):
        return "json"
    return "jsonl"


def _read_text(path: PathLike) -> str:
    name = str(path)
    try:
        return Path(path).read_text(encoding="utf-8-sig")  # tolerate a BOM
    except FileNotFoundError:
        raise GoldFileError(name, None, "no such file") from None
    except IsADirectoryError:
        raise GoldFileError(name, None, "is a directory, not a gold file") from None
    except UnicodeDecodeError as exc:
        raise GoldFileError(name, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise GoldFileError(name, None, f"cannot read: {exc.strerror or exc}") from None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class _DuplicateKey(ValueError):
    """A JSON object or YAML mapping that repeats a key (the parsers would keep the last)."""

    def __init__(self, key: Any, line: Optional[int] = None):
        super().__init__(f"duplicate key '{key}' in one object (the second would silently win)")
        self.line = line


def _no_duplicate_keys(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_yaml_keys(node: Any) -> None:
    """Raise :class:`_DuplicateKey` for a mapping node below ``node`` that repeats a key.

    Each node is visited once, however many aliases point at it (no alias bomb here), and
    without recursion.

    Example:
        >>> _check_yaml_keys(JsonYamlLoader("a: &x {b: 1, c: [2]}\\nd: [*x, *x]\\n").get_single_node())
        >>> _check_yaml_keys(JsonYamlLoader("a: 1\\na: 2\\n").get_single_node())
        Traceback (most recent call last):
        ...
        ek_otel.gold.native._DuplicateKey: duplicate key 'a' in one object (the second would silently win)
    """
    visited: set = set()
    stack = [node]
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, value_node in node.value:
                key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in seen:
                    raise _DuplicateKey(key_node.value, key_node.start_mark.line + 1)
                seen.add(key)
            stack.extend(value for _, value in reversed(node.value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))


def nesting_problem(obj: Any) -> Optional[str]:
    """Why a parsed gold or pricing value is refused for its nesting (deeper than
    :data:`~ek_otel.limits.GOLD_MAX_NESTING`), or None; without recursion.

    Example:
        >>> nesting_problem({"a": [[1]]}), nesting_problem([[[[]]]] * 2)
        (None, None)
        >>> import json; nesting_problem(json.loads("[" * 150 + "]" * 150))
        'nested deeper than 100 levels'
    """
    stack = [(obj, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= GOLD_MAX_NESTING:
            return f"nested deeper than {GOLD_MAX_NESTING} levels"
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return None


def parse_problem(exc: BaseException) -> str:
    """The message of what a JSON or YAML parser raised beyond its syntax errors: an integer
    literal over Python's digit limit (``ValueError``), nesting past the recursion limit.

    Example:
        >>> import json
        >>> try:
        ...     json.loads("1" * 5000)
        ... except ValueError as exc:
        ...     parse_problem(exc)
        'an integer literal longer than 4300 digits'
    """
    if isinstance(exc, RecursionError):
        return f"nested deeper than {GOLD_MAX_NESTING} levels"
    if "digits" in str(exc):
        return f"an integer literal longer than {GOLD_MAX_INT_DIGITS} digits"
    return str(exc)[:200]


def _jsonl_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    # split on "\n" only: str.splitlines() would also split inside a JSON string at U+0085/U+2028
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            obj = json.loads(stripped, object_pairs_hook=_no_duplicate_keys)
        except _DuplicateKey as exc:
            yield number, None, GoldFileError(path, number, str(exc))
        except json.JSONDecodeError as exc:
            hint = ""
            if number == 1 and stripped.startswith("{") and stripped.count("{") > stripped.count("}"):
                hint = " (JSON Lines needs one whole task per line; a pretty-printed file must be a JSON array)"
            yield number, None, GoldFileError(path, number, f"invalid JSON: {exc.msg} (column {exc.colno}){hint}")
        except (ValueError, RecursionError) as exc:
            yield number, None, GoldFileError(path, number, parse_problem(exc))
        else:
            problem = nesting_problem(obj)
            if problem is not None:
                yield number, None, GoldFileError(path, number, problem)
            else:
                yield number, obj, None


def _json_array_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)
    ws = " \t\r\n"

    def skip(i: int) -> int:
        while i < len(text) and text[i] in ws:
            i += 1
        return i

    def invalid(exc_or_msg, offset: int) -> GoldFileError:
        if isinstance(exc_or_msg, json.JSONDecodeError):
            return GoldFileError(path, exc_or_msg.lineno, f"invalid JSON: {exc_or_msg.msg} (column {exc_or_msg.colno})")
        return GoldFileError(path, _line_of(text, offset), f"invalid JSON: {exc_or_msg}")

    i = skip(0) + 1  # past "["
    i = skip(i)
    if i < len(text) and text[i] == "]":
        i = skip(i + 1)
        if i < len(text):
            yield _line_of(text, i), None, invalid("extra data after the array", i)
        return
    while True:
        start = skip(i)
        try:
            obj, end = decoder.raw_decode(text, start)
        except _DuplicateKey as exc:
            yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), str(exc))
            try:
                _, end = json.JSONDecoder().raw_decode(text, start)  # well-formed: go on after it
            except json.JSONDecodeError as exc:
                yield _line_of(text, start), None, invalid(exc, start)
                return
        except json.JSONDecodeError as exc:
            yield _line_of(text, start), None, invalid(exc, start)
            return
        except (ValueError, RecursionError) as exc:
            yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), parse_problem(exc))
            return
        else:
            problem = nesting_problem(obj)
            if problem is not None:
                yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), problem)
            else:
                yield _line_of(text, start), obj, None
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        if i < len(text) and text[i] == "]":
            i = skip(i + 1)
            if i < len(text):
                yield _line_of(text, i), None, invalid("extra data after the array", i)
            return
        yield _line_of(text, i), None, invalid("expected ',' or ']' after a task", i)
        return


def _yaml_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    loader = None
    try:
        loader = JsonYamlLoader(text)  # reads the first characters: may raise ReaderError
        loader.max_nesting = GOLD_MAX_NESTING + 1  # the list of tasks
        root = loader.get_single_node()
        if root is None:
            return
        if not isinstance(root, yaml.SequenceNode):
            yield root.start_mark.line + 1, None, GoldFileError(
                path, root.start_mark.line + 1, "a YAML gold file must be a list of tasks (- task_id: ...)"
            )
            return
        for node in root.value:
            line = node.start_mark.line + 1
            try:
                _check_yaml_keys(node)
            except _DuplicateKey as exc:
                yield line, None, GoldFileError(path, exc.line or line, str(exc))
                continue
            try:
                obj = loader.construct_object(node, deep=True)
            except ValueError as exc:  # an integer literal over the digit limit
                yield line, None, GoldFileError(path, line, parse_problem(exc))
                continue
            yield line, obj, None
    except yaml.MarkedYAMLError as exc:
        line, message = yaml_problem(exc, text)
        yield line or 0, None, GoldFileError(path, line, message)
    except yaml.YAMLError as exc:
        line, message = yaml_problem(exc, text)
        yield line or 0, None, GoldFileError(path, line, message)
    except RecursionError as exc:  # pragma: no cover - the composer refuses deep text first
        yield 0, None, GoldFileError(path, None, parse_problem(exc))
    finally:
        if loader is not None:
            loader.dispose()


def yaml_problem(exc: BaseException, text: str) -> tuple:
    """``(line or None, message)`` of a YAML error: its mark's line, or for a character
    YAML refuses (``ReaderError``: a control character) the line of that character.

    Example:
        >>> try:
        ...     yaml.load("a: 1\\nb: \\x07\\n", JsonYamlLoader)
        ... except yaml.YAMLError as exc:
        ...     yaml_problem(exc, "a: 1\\nb: \\x07\\n")
        (2, "invalid YAML: the control character '\\\\x07' is not allowed (only tab, newline and printable characters)")
    """
    if isinstance(exc, yaml.reader.ReaderError):
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        return (_line_of(text, exc.position),
                f"invalid YAML: the control character {character!r} is not allowed "
                "(only tab, newline and printable characters)")
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return (mark.line + 1 if mark is not None else None), f"invalid YAML: {problem}"
    return None, f"invalid YAML: {exc}"


def _items(path: PathLike, text: str):
    name = str(path)
    kind = gold_format(path, text)
    if kind == "yaml":
        return _yaml_items(text, name)
    if kind == "json":
        return _json_array_items(text, name)
    return _jsonl_items(text, name)


def _check(path: PathLike, *, stop_at_first: bool) -> GoldValidation:
    name = str(path)
    text = _read_text(path)
    tasks: list[TaskSpec] = []
    errors: list[GoldFileError] = []
    first_line: dict[str, int] = {}
    seen_any = False

    def fail(error: GoldFileError) -> None:
        if stop_at_first:
            raise error
        errors.append(error)

    for line, obj, error in _items(path, text):
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
    objs = [task_to_dict(t) for t in tasks]
    name = str(path).lower()
    if name.endswith(_YAML_SUFFIXES):
        text = yaml.dump(objs, Dumper=JsonYamlDumper, sort_keys=False)  # ASCII escapes: raw U+0085 would not survive
    elif name.endswith(".json"):
        text = "[\n" + ",\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n]\n"
    else:
        text = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)
    Path(path).write_text(text, encoding="utf-8")
