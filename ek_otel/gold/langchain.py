"""LangChain agentevals reference trajectories (OpenAI-style message lists), in and out.

A trajectory's first user message is the input and its assistant ``tool_calls`` the calls,
exact and ordered (agentevals' ``strict`` mode); tool results and the final answer are kept
in ``meta.langchain``. One trajectory, a list of them, or LangSmith examples with
``reference_outputs`` are read. The formats and their notes are described in
:mod:`ek_otel.gold.importers`.

Example:
    >>> from ek_otel.core.episode import TaskSpec
    >>> examples, _ = export_langchain([TaskSpec("t", input="hi", ordered=True, gold=[("f", {"x": 1})])])
    >>> tasks, _ = import_langchain(examples)
    >>> tasks[0].task_id, tasks[0].input, tasks[0].gold
    ('t', 'hi', (('f', {'x': AnyOf(values=(1,))}),))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .exact import exact_args, gold_args, input_text
from .native import task_from_dict
from .peer_modes import langchain_keys, langchain_settings

__all__ = ["import_langchain", "export_langchain"]


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("role", value.get("type")), str)


def _trajectory_calls(messages: list, where: str) -> list:
    """The tool calls of a trajectory's assistant messages, in order (OpenAI's
    ``{"function": {"name", "arguments": JSON}}`` or LangChain's ``{"name", "args"}``)."""
    calls = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role", message.get("type")) not in ("assistant", "ai"):
            continue
        for call in message.get("tool_calls") or ():
            if not isinstance(call, Mapping):
                continue
            function = call.get("function") if isinstance(call.get("function"), Mapping) else call
            name = function.get("name")
            args = function.get("arguments", function.get("args", {}))
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError as exc:
                    raise InputError(f"{where}: the arguments of {name} are not JSON: {exc}") from None
            if not isinstance(name, str) or not isinstance(args, Mapping):
                raise InputError(f"{where}: a tool call without a name or with non-object arguments")
            calls.append({name: gold_args(args)})
    return calls


def import_langchain(data: Any, *, source: str = "<langchain>") -> tuple:
    """``(tasks, notes)`` of LangChain agentevals reference trajectories: OpenAI-style message
    lists (``role`` user/assistant/tool, assistant ``tool_calls``). ``data`` is one
    trajectory, a list of them, or a list of examples ``{"id"/"name", "reference_outputs"
    (or "reference_trajectory", "outputs"): trajectory}`` (a LangSmith dataset export). The
    first user message is the input; the calls are exact and ordered (agentevals' ``strict``
    mode) unless an example names its modes (``trajectory_match_mode``,
    ``tool_args_match_mode``, ``tool_args_match_overrides``, in the example or its
    ``metadata``: :mod:`ek_otel.gold.peer_modes`); the tool results and the final answer are
    kept in ``meta.langchain``, not scored.

    Example:
        >>> tasks, notes = import_langchain([{"role": "user", "content": "Weather in SF?"},
        ...     {"role": "assistant", "content": "", "tool_calls": [{"function": {
        ...         "name": "get_weather", "arguments": '{"city": "San Francisco"}'}}]},
        ...     {"role": "tool", "content": "80 and sunny"}, {"role": "assistant", "content": "Sunny."}],
        ...     source="ref.json")
        >>> tasks[0].task_id, tasks[0].input, tasks[0].gold
        ('ref.json#0', 'Weather in SF?', (('get_weather', {'city': AnyOf(values=('San Francisco',))}),))
    """
    if isinstance(data, list) and data and all(_is_message(m) for m in data):
        examples = [(None, data, {})]
    elif isinstance(data, list):
        examples = []
        for index, item in enumerate(data):
            if isinstance(item, list):
                examples.append((None, item, {}))
            elif isinstance(item, Mapping):
                trajectory = next((item[k] for k in ("reference_outputs", "reference_trajectory", "outputs")
                                   if isinstance(item.get(k), list)), None)
                if trajectory is None:
                    raise InputError(f"example {index}: no reference_outputs trajectory", path=source)
                settings = {**(item.get("metadata") if isinstance(item.get("metadata"), Mapping) else {}),
                            **item}
                examples.append((item.get("id", item.get("name")), trajectory, settings))
            else:
                raise InputError(f"example {index}: not a trajectory", path=source)
    else:
        raise InputError("not agentevals reference trajectories (a message list, or a list of them)",
                         path=source)
    base = source.rsplit("/", 1)[-1]
    tasks, notes = [], []
    for index, (name, messages, settings) in enumerate(examples):
        task_id = str(name) if name else f"{base}#{index}"
        users = [m for m in messages if isinstance(m, Mapping) and m.get("role", m.get("type")) in ("user", "human")]
        text = users[0].get("content") if users else None
        calls = _trajectory_calls(messages, f"{source}: {task_id}")
        try:
            keys = langchain_keys(settings, task_id, notes)
        except InputError as exc:
            raise InputError(f"example {index}: {exc.message}", path=source) from None
        obj: dict = {"task_id": task_id, "calls": calls, "ordered": keys.pop("ordered"),
                     "meta": {"langchain": {"source": source}}}
        match = keys.pop("match")
        if match != "exact":
            obj["match"] = match
        obj.update(keys)
        mode = settings.get("trajectory_match_mode", "strict")
        if isinstance(text, str):
            obj["input"] = text
        finals = [m.get("content") for m in messages if isinstance(m, Mapping)
                  and m.get("role", m.get("type")) in ("assistant", "ai") and not m.get("tool_calls")
                  and isinstance(m.get("content"), str) and m.get("content")]
        if finals:
            obj["meta"]["langchain"]["final_answer"] = finals[-1]
        tools = sum(1 for m in messages if isinstance(m, Mapping) and m.get("role", m.get("type")) == "tool")
        if mode == "strict" and "args" not in obj and "args_by_tool" not in obj:
            how = "agentevals' strict match (ordered, exact arguments)"
        else:
            how = f"agentevals' {mode} match, arguments {obj.get('args', 'exact')}"
        notes.append(f"{task_id}: imported as {how}; "
                     f"{tools} tool result(s) and the final answer are kept in meta.langchain, not scored")
        tasks.append(task_from_dict(obj, path=source))
    return tasks, notes


def export_langchain(tasks: list) -> tuple:
    """``(examples, notes)``: one reference trajectory per task (``{"id", "reference_outputs":
    [user message, one assistant message per call]}``), with exact arguments.

    Example:
        >>> from ek_otel.core.episode import AnyOf, TaskSpec
        >>> examples, _ = export_langchain([TaskSpec("t", input="hi", ordered=True, gold=[("f", {"x": AnyOf((1,))})])])
        >>> examples[0]["reference_outputs"][1]["tool_calls"]
        [{'function': {'name': 'f', 'arguments': '{"x": 1}'}}]
    """
    examples, notes = [], []
    for task in tasks:
        if len(task.alternatives) > 1:
            notes.append(f"{task.task_id}: only the first of {len(task.alternatives)} alternatives is written")
        if task.optional:
            notes.append(f"{task.task_id}: a reference trajectory has no optional calls; "
                         f"{len(task.optional)} written as expected")
        messages: list = [{"role": "user", "content": input_text(task)}]
        for index, (tool, args) in enumerate(task.gold):
            written = exact_args(args, f"{task.task_id}: calls[{index}].{tool}", notes)
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": tool, "arguments": json.dumps(written, ensure_ascii=False)}}]})
        example: dict = {"id": task.task_id, "reference_outputs": messages}
        settings = langchain_settings(task, notes)
        if settings != {"trajectory_match_mode": "strict"}:
            example["metadata"] = settings
        examples.append(example)
    return examples, notes
