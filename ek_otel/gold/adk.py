"""Google ADK eval sets (and agentevals', which share their shape), in and out.

``import_adk`` reads ``*.evalset.json`` (``eval_cases`` whose ``conversation`` invocations
hold the user's message, the expected tool trajectory ``intermediate_data.tool_uses`` and the
final response) and the older ``*.test.json`` list of ``{"query", "expected_tool_use",
"reference"}``; ``import_agentevals`` the agentevals eval sets (``case_id``, expected calls as
``function_call`` parts); ``export_adk`` writes tasks as one eval set (which agentevals reads
too). ADK compares a trajectory in order (``EXACT``), so tasks are ``ordered``; what ADK
scores by similarity, or does not score, is kept in ``meta.adk`` and named in the notes.
The formats and their notes are described in :mod:`ek_otel.gold.importers`.

Example:
    >>> tasks, notes = import_adk([{"query": "Turn off device_2", "expected_tool_use": [
    ...     {"tool_name": "set_device_info", "tool_input": {"device_id": "device_2"}}]}], source="t.test.json")
    >>> tasks[0].task_id, tasks[0].ordered, tasks[0].gold
    ('t.test.json#0', True, (('set_device_info', {'device_id': AnyOf(values=('device_2',))}),))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.episode import AnyOf
from ..errors import InputError
from .exact import exact_args, gold_args
from .native import task_from_dict
from .peer_modes import ADK_CRITERION, adk_criterion, adk_keys

__all__ = ["import_adk", "import_agentevals", "export_adk", "adk_config"]


def _text(content: Any) -> str:
    """The text of an ADK/Gemini ``Content`` (its text parts joined)."""
    if not isinstance(content, Mapping):
        return content if isinstance(content, str) else ""
    parts = content.get("parts") or []
    return "".join(p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str))


def _exact_calls(uses: list) -> list:
    calls = []
    for use in uses:
        if not isinstance(use, Mapping):
            continue
        name = use.get("name", use.get("tool_name"))
        args = use.get("args", use.get("tool_input")) or {}
        if isinstance(name, str) and name and isinstance(args, Mapping):
            calls.append({name: gold_args(args)})
    return calls


def _function_calls(content: Any) -> list:
    """The ``function_call`` parts of a Content, as tool uses (agentevals' shape)."""
    if not isinstance(content, Mapping) or not isinstance(content.get("parts"), list):
        return []
    return [p["function_call"] for p in content["parts"]
            if isinstance(p, Mapping) and isinstance(p.get("function_call"), Mapping)]


def _tool_uses(invocation: Mapping) -> list:
    """An invocation's expected tool uses: ADK's ``intermediate_data.tool_uses``, or the
    ``function_call`` parts of ``intermediate_data`` / ``agent_content`` (agentevals)."""
    data = invocation.get("intermediate_data")
    if isinstance(data, Mapping) and isinstance(data.get("tool_uses"), list):
        return data["tool_uses"]
    return _function_calls(data) or _function_calls(invocation.get("agent_content"))


def _case_task(case: Mapping, notes: list, source: str) -> Any:
    task_id = case.get("eval_id", case.get("case_id"))
    if not isinstance(task_id, str) or not task_id:
        raise InputError(f"an eval case without an eval_id: {json.dumps(case)[:80]}", path=source)
    conversation = case.get("conversation")
    if not isinstance(conversation, list) or not conversation:
        if case.get("conversation_scenario"):
            notes.append(f"{task_id}: skipped: a conversation_scenario (a simulated user) has no "
                         "expected calls to score")
        else:
            notes.append(f"{task_id}: skipped: no conversation")
        return None
    turns, inputs, responses, intermediate, tool_responses = [], [], [], 0, 0
    for invocation in conversation:
        if not isinstance(invocation, Mapping):
            continue
        inputs.append(_text(invocation.get("user_content")))
        data = invocation.get("intermediate_data") or {}
        turns.append(_exact_calls(_tool_uses(invocation)))
        if isinstance(data, Mapping):
            intermediate += len(data.get("intermediate_responses") or [])
            tool_responses += len(data.get("tool_responses") or [])
        response = _text(invocation.get("final_response")) or _text(invocation.get("agent_content"))
        if response:
            responses.append(response)
    obj: dict = {"task_id": task_id, "ordered": True,
                 "meta": {"adk": {"source": source}}}
    if len(turns) == 1:
        obj["calls"] = turns[0]
        obj["input"] = inputs[0]
    else:
        obj["turns"] = turns
        obj["input"] = inputs
    if responses:
        obj["meta"]["adk"]["final_responses"] = responses
        shown = responses[0] if len(responses[0]) <= 40 else responses[0][:37] + "..."
        notes.append(f"{task_id}: the final response ({shown!r}) is compared by similarity in ADK; "
                     "kept in meta.adk.final_responses, not scored")
    if intermediate:
        notes.append(f"{task_id}: {intermediate} intermediate (sub-agent) response(s) are not scored")
    if tool_responses:
        notes.append(f"{task_id}: {tool_responses} expected tool response(s) are not scored "
                     "(ek-otel scores the calls)")
    if any(not args for turn in turns for call in turn for args in call.values()):
        notes.append(f"{task_id}: a tool use with empty args is taken as a call with no arguments "
                     "(a run that passes some is not exact)")
    session = case.get("session_input")
    if isinstance(session, Mapping) and session.get("state"):
        obj["meta"]["adk"]["session_state"] = session["state"]
        notes.append(f"{task_id}: the session's initial state is kept in meta.adk.session_state, "
                     "not set up by ek-otel")
    return task_from_dict(obj, path=source)


def import_adk(data: Any, *, source: str = "<adk>", config: Any = None) -> tuple:
    """``(tasks, notes)`` of an ADK eval set (see the module docstring); ``data`` parsed JSON.

    ``config`` is the eval config (``test_config.json``: ``{"criteria": {...}}``), when there
    is one: its ``tool_trajectory_avg_score`` criterion gives every task its ``match``,
    ``ordered`` and ``args`` (:func:`ek_otel.gold.peer_modes.adk_keys`).

    Raises:
        InputError: not an eval set, or a config ADK would refuse.

    Example:
        >>> entry = {"query": "q", "expected_tool_use": [{"tool_name": "f", "tool_input": {"x": 1}}]}
        >>> config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0,
        ...                                                      "match_type": "IN_ORDER"}}}
        >>> task = import_adk([entry], config=config)[0][0]
        >>> task.match, task.ordered, task.args
        ('superset', True, 'exact')
    """
    tasks, notes = _import_adk(data, source)
    criterion = _criterion(config, source)
    if criterion is None:
        return tasks, notes
    out = []
    for task in tasks:
        keys = adk_keys(criterion, task.task_id, notes)
        out.append(replace(task, ordered=keys["ordered"], match=keys["match"],
                           args=keys.get("args", task.args)))
    return out, notes


def _criterion(config: Any, source: str) -> Any:
    """The ``tool_trajectory_avg_score`` criterion of an eval config, or None."""
    if config is None:
        return None
    criteria = config.get("criteria") if isinstance(config, Mapping) else None
    if not isinstance(criteria, Mapping):
        raise InputError("the eval config has no criteria object", path=source)
    return criteria.get(ADK_CRITERION)


def _import_adk(data: Any, source: str) -> tuple:
    notes: list = []
    tasks: list = []
    if isinstance(data, list):  # the older *.test.json: a list of queries
        for index, item in enumerate(data):
            if not isinstance(item, Mapping) or "query" not in item:
                raise InputError(f"entry {index}: not an ADK test entry (no query)", path=source)
            obj = {"task_id": f"{source.rsplit('/', 1)[-1]}#{index}", "input": item["query"],
                   "ordered": True, "calls": _exact_calls(item.get("expected_tool_use") or []),
                   "meta": {"adk": {"source": source}}}
            if item.get("reference"):
                obj["meta"]["adk"]["final_responses"] = [item["reference"]]
                notes.append(f"{obj['task_id']}: the reference answer is compared by similarity in "
                             "ADK; kept in meta.adk.final_responses, not scored")
            tasks.append(task_from_dict(obj, path=source))
        return tasks, notes
    if not isinstance(data, Mapping) or not isinstance(data.get("eval_cases"), list):
        raise InputError("not an ADK eval set (no eval_cases list)", path=source)
    for case in data["eval_cases"]:
        task = _case_task(case, notes, source) if isinstance(case, Mapping) else None
        if task is not None:
            tasks.append(task)
    return tasks, notes


def export_adk(tasks: list, *, name: str = "ek-otel") -> tuple:
    """``(eval set, notes)``: the tasks as one ADK eval set (one eval case per task, one
    invocation per turn).

    Example:
        >>> from ek_otel.core.episode import AnyOf, TaskSpec
        >>> from ek_otel.core.rules import AnyValue
        >>> data, notes = export_adk([TaskSpec("t", input="hi", ordered=True,
        ...                                     gold=[("f", {"x": AnyOf((1, 2)), "id": AnyValue()})])])
        >>> data["eval_cases"][0]["conversation"][0]["intermediate_data"]["tool_uses"]
        [{'name': 'f', 'args': {'x': 1}}]
        >>> notes[:2]
        ['t: calls[0].f.x: ADK takes one value; the first of 2 admissible values is written', "t: calls[0].f.id: the rule 'any value' has no ADK form; its value is left out"]
    """
    notes: list = []
    cases = []
    for task in tasks:
        turns = task.turns if task.turns is not None else (task.gold,)
        inputs = task.input if isinstance(task.input, list) else [task.input] * 1
        if not task.ordered and task.match != "superset":
            notes.append(f"{task.task_id}: ADK compares tool trajectories in order; the task's "
                         "calls are unordered")
        if len(task.alternatives) > 1:
            notes.append(f"{task.task_id}: ADK has one trajectory per case; only the first of "
                         f"{len(task.alternatives)} alternatives is written")
        if task.optional:
            notes.append(f"{task.task_id}: ADK has no optional calls; {len(task.optional)} are "
                         "written as required")
        if task.answer is not None:
            notes.append(f"{task.task_id}: the expected answer is written as the final response, "
                         "which ADK compares by similarity")
        conversation = []
        index = 0
        for number, turn in enumerate(turns):
            uses = []
            for tool, args in turn:
                uses.append({"name": tool, "args": exact_args(args, f"{task.task_id}: calls[{index}].{tool}", notes)})
                index += 1
            text = inputs[number] if number < len(inputs) and isinstance(inputs[number], str) else ""
            invocation: dict = {"invocation_id": f"{task.task_id}-{number}",
                                "user_content": {"role": "user", "parts": [{"text": text}]},
                                "intermediate_data": {"tool_uses": uses, "intermediate_responses": []}}
            if number == len(turns) - 1 and isinstance(task.answer, AnyOf) and task.answer.values:
                invocation["final_response"] = {"role": "model",
                                                "parts": [{"text": str(task.answer.values[0])}]}
            conversation.append(invocation)
        cases.append({"eval_id": task.task_id, "conversation": conversation})
    return {"eval_set_id": name, "name": name, "eval_cases": cases}, notes


def adk_config(tasks: list, notes: list) -> dict:
    """The eval config (``test_config.json``) of exported tasks: the first task's criterion;
    a task that would need another is named in ``notes``.

    Example:
        >>> from ek_otel.core.episode import TaskSpec
        >>> adk_config([TaskSpec("a", match="superset"), TaskSpec("b")], notes := [])
        {'criteria': {'tool_trajectory_avg_score': {'threshold': 1.0, 'match_type': 'ANY_ORDER'}}}
        >>> notes
        ["b: ADK has one trajectory criterion per eval config; the task's EXACT is written as ANY_ORDER"]
    """
    criteria = [adk_criterion(task, notes) for task in tasks]
    first = criteria[0] if criteria else {"threshold": 1.0, "match_type": "EXACT"}
    for task, criterion in zip(tasks[1:], criteria[1:]):
        if criterion != first:
            notes.append(f"{task.task_id}: ADK has one trajectory criterion per eval config; the "
                         f"task's {criterion['match_type']}"
                         f"{' (ignore_args)' if criterion.get('ignore_args') else ''} is written "
                         f"as {first['match_type']}{' (ignore_args)' if first.get('ignore_args') else ''}")
    return {"criteria": {ADK_CRITERION: first}}


def import_agentevals(data: Any, *, source: str = "<agentevals>", config: Any = None) -> tuple:
    """``(tasks, notes)`` of an agentevals eval set: ADK's shape, with ``case_id`` for
    ``eval_id`` and the expected calls as ``function_call`` parts of ``intermediate_data``
    or ``agent_content`` (the agent's reply: its text is the final response).

    Example:
        >>> tasks, _ = import_agentevals({"eval_set_id": "d", "eval_cases": [{"case_id": "roll",
        ...     "conversation": [{"user_content": {"parts": [{"text": "Roll a d20"}]},
        ...                       "agent_content": {"parts": [{"function_call": {"name": "roll_die",
        ...                                                                    "args": {"sides": 20}}}]}}]}]})
        >>> tasks[0].task_id, tasks[0].gold
        ('roll', (('roll_die', {'sides': AnyOf(values=(20,))}),))
    """
    if isinstance(data, list) or not isinstance(data, Mapping) or not isinstance(data.get("eval_cases"), list):
        raise InputError("not an agentevals eval set (no eval_cases list)", path=source)
    return import_adk(data, source=source, config=config)
