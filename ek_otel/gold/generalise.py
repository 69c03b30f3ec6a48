"""Gold tasks from good runs: the runs of one task merged into one task, varying values
turned into the rules that cover them.

:func:`generalise` takes the runs (:class:`Run`: the calls made, the input, the tool
definitions, the final answer, where the run came from) of one task and gives the task:

- **calls**: the calls of the runs aligned by tool name (a longest common subsequence
  against the run with the most calls, so a call only some runs made finds its place);
  a call made in some runs only is **optional**;
- **arguments**: a value that is the same in every run is exact (``[value]``); one that
  varies becomes the rule that covers the values seen (:func:`value_rule`): a timestamp or
  UUID pattern, an id pattern when only digits vary (``A-[0-9]+``), a numeric range, the
  list of the values seen, or "any value" when they do not even share a type; an argument
  some runs left out becomes optional;
- **ordered** when there are two runs or more and all made the calls in the same order;
- **meta**: the runs' trace ids, services, models and times, and one note per
  generalisation (``meta["generalised"]``), so a reviewer sees what was inferred from how
  many runs.

Nothing here reads files or spans: :mod:`ek_otel.gold.traces` makes the runs.

Example:
    >>> runs = [Run(calls=(("refund", {"order_id": "A-77", "amount": 35.5}),), trace_id="t1"),
    ...         Run(calls=(("refund", {"order_id": "A-78", "amount": 35.5}),), trace_id="t2")]
    >>> task = generalise("refund-1", runs)
    >>> task.gold
    (('refund', {'order_id': Pattern(optional=False, regex='A-[0-9]+'), 'amount': AnyOf(values=(35.5,))}),)
    >>> task.meta["generalised"]
    [{'call': 0, 'tool': 'refund', 'arg': 'order_id', 'rule': 'pattern', 'runs': 2, 'distinct_values': 2}]
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional

from ..core.episode import AnyOf, TaskSpec
from ..core.fields import canonical
from ..core.rules import AnyValue, Number, Pattern, Rule
from .native import task_from_dict, task_to_dict
from .schema import tool_problems

__all__ = ["Run", "generalise", "value_rule", "normalised_input", "TIMESTAMP_REGEX", "UUID_REGEX"]

#: ISO-8601 dates and date-times (what ids of "when" look like in tool calls).
TIMESTAMP_REGEX = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
                   r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?")
#: A UUID, any case.
UUID_REGEX = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

_TIMESTAMP = re.compile(TIMESTAMP_REGEX)
_UUID = re.compile(UUID_REGEX)
_TOKENS = re.compile(r"[0-9]+|[A-Za-z]+|[^0-9A-Za-z]+")
_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


@dataclass(frozen=True)
class Run:
    """One good run of a task, as :func:`generalise` needs it.

    Example:
        >>> Run(calls=(("f", {}),), input="hi").input
        'hi'
    """

    calls: tuple = ()
    input: Optional[str] = None
    tools: tuple = ()
    answer: Optional[str] = None
    trace_id: str = ""
    service: Optional[str] = None
    model: str = ""
    ended_ns: int = 0
    args_captured: bool = True


def normalised_input(text: Any) -> Optional[str]:
    """The form two inputs are compared in: whitespace folded, case folded (the default
    value comparison, :func:`ek_otel.core.fields.canonical`); None for no text.

    Example:
        >>> normalised_input("  Weather in\\n Paris? "), normalised_input(None)
        ('weather in paris?', None)
    """
    if not isinstance(text, str) or not text.strip():
        return None
    return canonical(text)


def _key(value: Any) -> str:
    """One value's identity, as the default comparison sees it (``1 == 1.0``, case folded)."""
    def fold(v: Any) -> Any:
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str):
            return canonical(v)
        if isinstance(v, Mapping):
            return {str(k): fold(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fold(x) for x in v]
        return repr(v)
    return json.dumps(fold(value), sort_keys=True, ensure_ascii=False)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _id_pattern(values: Sequence[str]) -> Optional[str]:
    """A pattern for ids that differ only in their digits (``A-77``/``A-78`` -> ``A-[0-9]+``).

    Example:
        >>> _id_pattern(["ord.1", "ord.22"]), _id_pattern(["A-1", "B-1"])
        ('ord\\\\.[0-9]+', None)
    """
    tokenised = [_TOKENS.findall(v) for v in values]
    if len({len(t) for t in tokenised}) != 1 or not tokenised[0]:
        return None
    parts = []
    varied = False
    for column in zip(*tokenised):
        if len(set(column)) == 1:
            parts.append(_REGEX_SPECIAL.sub(r"\\\1", column[0]))
        elif all(c.isdigit() for c in column):
            parts.append("[0-9]+")
            varied = True
        else:
            return None
    return "".join(parts) if varied else None


def value_rule(values: Sequence[Any]) -> tuple:
    """``(gold value, kind)`` covering every value seen (at least one); kind is ``"exact"``,
    ``"timestamp"``, ``"uuid"``, ``"pattern"``, ``"range"``, ``"list"`` or ``"any"``.

    Example:
        >>> value_rule(["Paris", "paris "])[1], value_rule([3, 3.0])
        ('exact', (AnyOf(values=(3,)), 'exact'))
        >>> value_rule(["2026-12-01T10:00:00Z", "2026-12-02T08:30:00Z"])[1]
        'timestamp'
        >>> value_rule([10, 12.5])
        (Number(optional=False, value=None, abs_tol=0.0, rel_tol=0.0, low=10, high=12.5), 'range')
        >>> value_rule(["Paris", "Lyon"])
        (AnyOf(values=('Paris', 'Lyon')), 'list')
        >>> value_rule(["x", 3])
        (AnyValue(optional=False), 'any')
    """
    distinct: dict = {}
    for value in values:
        distinct.setdefault(_key(value), value)
    seen = list(distinct.values())
    if len(seen) == 1:
        return AnyOf((seen[0],)), "exact"
    if all(isinstance(v, str) for v in seen):
        if all(_TIMESTAMP.fullmatch(v) for v in seen):
            return Pattern(TIMESTAMP_REGEX), "timestamp"
        if all(_UUID.fullmatch(v) for v in seen):
            return Pattern(UUID_REGEX), "uuid"
        pattern = _id_pattern(seen)
        if pattern is not None:
            return Pattern(pattern), "pattern"
        return AnyOf(tuple(seen)), "list"
    if all(_is_number(v) for v in seen):
        return Number(low=min(seen), high=max(seen)), "range"
    kinds = {type(v) if not _is_number(v) else float for v in seen}
    if len(kinds) == 1 and not isinstance(seen[0], (Mapping, list, tuple)):
        return AnyOf(tuple(seen)), "list"
    return AnyValue(), "any"


def _optional(value: Any) -> Any:
    """The same gold value, admitting that the argument is left out."""
    if isinstance(value, Rule):
        return replace(value, optional=True)
    return value if "" in value.values else AnyOf(tuple(value.values) + ("",))


# ---------------------------------------------------------------------------
# Aligning the calls of the runs
# ---------------------------------------------------------------------------


def _lcs(a: Sequence[str], b: Sequence[str]) -> list:
    """Index pairs of a longest common subsequence of two name lists (earliest on ties)."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _slots(runs: Sequence[Run]) -> list:
    """The aligned calls: one slot per expected call, ``[tool, [(run index, args), ...]]``.

    The run with the most calls (the first on a tie) gives the first slots; each other run
    is aligned to them by tool name (:func:`_lcs`), and its calls that found no slot become
    new slots where they were made.
    """
    reference = max(range(len(runs)), key=lambda r: (len(runs[r].calls), -r))
    slots = [[tool, [(reference, args)]] for tool, args in runs[reference].calls]
    for r, run in enumerate(runs):
        if r == reference:
            continue
        pairs = _lcs([slot[0] for slot in slots], [tool for tool, _ in run.calls])
        merged: list = []
        next_slot = next_call = 0
        for i, j in pairs + [(len(slots), len(run.calls))]:
            merged.extend(slots[next_slot:i])
            merged.extend([tool, [(r, args)]] for tool, args in run.calls[next_call:j])
            if i < len(slots):
                slots[i][1].append((r, run.calls[j][1]))
                merged.append(slots[i])
            next_slot, next_call = i + 1, j + 1
        slots = merged
    return slots


# ---------------------------------------------------------------------------
# One task
# ---------------------------------------------------------------------------


def _iso(ns: int) -> Optional[str]:
    if not ns:
        return None
    return _dt.datetime.fromtimestamp(ns / 1e9, tz=_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _tools(runs: Sequence[Run], called: Sequence[tuple], notes: list) -> list:
    """The tool schemas the runs were given, checked: a schema the gold checks refuse, or
    that lacks an argument the runs passed, is kept without its parameters (noted)."""
    found: dict = {}
    for run in runs:
        for tool in run.tools:
            if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
                found.setdefault(tool["name"], dict(tool))
    if not found:
        return []
    for tool, args in called:
        found.setdefault(tool, {"name": tool})
    passed: dict = {}
    for tool, args in called:
        passed.setdefault(tool, set()).update(args)
    out = []
    for name, tool in found.items():
        problems = tool_problems(tool, "tool")
        properties = tool.get("parameters", {}).get("properties") if isinstance(tool.get("parameters"), Mapping) else None
        unknown = sorted(a for a in passed.get(name, ()) if isinstance(properties, Mapping) and a not in properties)
        if problems or unknown:
            why = problems[0] if problems else f"the runs passed {', '.join(unknown)}, which it does not declare"
            notes.append({"tool": name, "schema": "left out", "why": why})
            tool = {k: v for k, v in tool.items() if k in ("name", "description")}
        out.append(tool)
    return out


def generalise(task_id: str, runs: Sequence[Run], *, with_answer: bool = False,
               ordered: Optional[bool] = None, ignore_tools: Sequence[str] = ()) -> TaskSpec:
    """One gold task from the good runs of a task (see the module docstring).

    Args:
        task_id: The task's id.
        runs: At least one run.
        with_answer: Propose ``answer`` from the runs' final answers (the same answer:
            exact; differing ones: the list of those seen).
        ordered: Force ``ordered`` (None: ordered when two runs or more agree on the order).
        ignore_tools: Written to the task's ``ignore_tools`` (their calls are already gone).

    Raises:
        ValueError: no runs.

    Example:
        >>> runs = [Run(calls=(("lookup", {"id": 7}), ("pay", {"amount": 10}))),
        ...         Run(calls=(("pay", {"amount": 10}),))]
        >>> t = generalise("p", runs)
        >>> t.gold, t.optional, t.ordered
        ((('lookup', {'id': AnyOf(values=(7,))}), ('pay', {'amount': AnyOf(values=(10,))})), frozenset({0}), False)
    """
    if not runs:
        raise ValueError(f"task {task_id}: no runs to make it from")
    slots = _slots(runs)
    notes: list = []
    calls = []
    optional_calls = []
    for index, (tool, made) in enumerate(slots):
        present = len({r for r, _ in made})
        if present < len(runs):
            optional_calls.append(index)
            notes.append({"call": index, "tool": tool, "rule": "optional call",
                          "runs": len(runs), "made_in": present})
        arg_names: dict = {}
        for _, args in made:
            for name in args:
                arg_names.setdefault(name, None)
        gold_args = {}
        for name in arg_names:
            values = [args[name] for _, args in made if name in args]
            gold, kind = value_rule(values)
            if len(values) < len(made):
                gold = _optional(gold)
                kind = kind + ", optional"
            if kind != "exact":
                note = {"call": index, "tool": tool, "arg": name, "rule": kind, "runs": len(made),
                        "distinct_values": len({_key(v) for v in values})}
                notes.append(note)
            gold_args[name] = gold
        calls.append((tool, gold_args))
    if ordered is None:
        sequences = {tuple(tool for tool, _ in run.calls) for run in runs}
        ordered = len(runs) > 1 and len(sequences) == 1 and len(slots) > 1
    meta: dict = {
        "from_traces": {
            "runs": len(runs),
            "trace_ids": [run.trace_id for run in runs],
        }
    }
    services = sorted({run.service for run in runs if run.service})
    models = sorted({run.model for run in runs if run.model})
    times = [t for t in (_iso(run.ended_ns) for run in runs) if t]
    if services:
        meta["from_traces"]["services"] = services
    if models:
        meta["from_traces"]["models"] = models
    if times:
        meta["from_traces"]["made"] = [min(times), max(times)] if len(times) > 1 else times
    uncaptured = sum(1 for run in runs if not run.args_captured)
    if uncaptured:
        meta["from_traces"]["arguments_not_captured"] = uncaptured
    tool_notes: list = []
    obj: dict = {"task_id": task_id}
    inputs = [run.input for run in runs if run.input]
    if inputs:
        obj["input"] = inputs[0]
    tools = _tools(runs, calls, tool_notes)
    if tools:
        obj["tools"] = tools
    if ignore_tools:
        obj["ignore_tools"] = list(dict.fromkeys(ignore_tools))
    if with_answer:
        answers = [run.answer for run in runs if isinstance(run.answer, str) and run.answer.strip()]
        if answers:
            gold, kind = value_rule(answers)
            if isinstance(gold, AnyOf) or isinstance(gold, Rule):
                obj["answer"] = task_to_dict(TaskSpec("x", answer=gold))["answer"]
            if kind != "exact":
                notes.append({"answer": True, "rule": kind, "runs": len(answers),
                              "distinct_values": len({_key(a) for a in answers})})
        else:
            meta["from_traces"]["answer"] = "no run recorded a final answer"
    if notes:
        meta["generalised"] = notes
    if tool_notes:
        meta["tool_schemas"] = tool_notes
    spec = TaskSpec(task_id, gold=calls, optional=optional_calls, ordered=ordered)
    obj.update({k: v for k, v in task_to_dict(spec).items() if k != "task_id"})
    obj["meta"] = meta
    return task_from_dict(obj)
