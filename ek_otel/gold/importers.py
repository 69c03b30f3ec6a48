"""The gold files of other tools, in and out: ``ek-otel gold import`` / ``gold export``.

Each format has an importer (its file -> native tasks) and, where the format can hold
expected calls, an exporter (tasks -> its file). Both return **notes**: one line per task
for what the other format cannot express, so nothing is dropped silently.

Formats:

- ``adk``: Google ADK eval sets (``*.evalset.json``, ``*.test.json``): ``eval_cases`` whose
  ``conversation`` invocations hold the user's message (``user_content``), the expected
  tool trajectory (``intermediate_data.tool_uses``: ``name``, ``args``) and the final
  response; and the older ``*.test.json`` list of ``{"query", "expected_tool_use":
  [{"tool_name", "tool_input"}], "reference"}``. ADK compares a trajectory in order
  (``EXACT``, its default), so tasks are ``ordered``; a conversation of several invocations
  becomes one task with ``turns``. ADK scores the final response by similarity
  (``response_match_score``): it is kept in ``meta``, not made an exact answer. A
  ``conversation_scenario`` (a simulated user, no expected calls) cannot be a task: it is
  named and skipped.
- ``agentevals``: agentevals' eval sets (ADK's shape; ``case_id``, and expected calls as
  ``function_call`` parts of ``intermediate_data`` or ``agent_content``). Exported as ADK
  eval sets, which agentevals reads.
- ``deepeval``: DeepEval goldens (``EvaluationDataset.save_as``: JSON, JSON Lines or CSV) with
  ``expected_tools``: each a task, unordered (``ToolCorrectnessMetric``'s default), the tools'
  ``input_parameters`` exact; goldens without expected tools are named and skipped.
- ``langchain``: LangChain agentevals reference trajectories (OpenAI-style message lists with
  ``tool_calls``; one, a list, or LangSmith examples with ``reference_outputs``): ordered,
  exact (agentevals' ``strict`` mode).

Example:
    >>> case = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c1", "conversation": [{
    ...     "user_content": {"role": "user", "parts": [{"text": "Turn off device_2"}]},
    ...     "final_response": {"role": "model", "parts": [{"text": "Done."}]},
    ...     "intermediate_data": {"tool_uses": [{"name": "set_device_info",
    ...                                          "args": {"device_id": "device_2", "status": "OFF"}}]}}]}]}
    >>> tasks, notes = import_adk(case, source="s.evalset.json")
    >>> tasks[0].task_id, tasks[0].input, tasks[0].ordered, tasks[0].gold[0][0]
    ('c1', 'Turn off device_2', True, 'set_device_info')
    >>> notes
    ["c1: the final response ('Done.') is compared by similarity in ADK; kept in meta.adk.final_responses, not scored"]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Callable

from ..core.episode import AnyOf, TaskSpec
from ..core.rules import Rule
from ..errors import InputError
from .native import task_from_dict

__all__ = ["FORMATS", "import_file", "export_tasks", "import_adk", "export_adk", "import_agentevals",
           "import_deepeval", "export_deepeval", "import_langchain", "export_langchain"]


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
            calls.append({name: {arg: [value] for arg, value in args.items()}})
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


def import_adk(data: Any, *, source: str = "<adk>") -> tuple:
    """``(tasks, notes)`` of an ADK eval set (see the module docstring); ``data`` parsed JSON.

    Raises:
        InputError: not an eval set.
    """
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


def _exact_value(value: Any, where: str, notes: list) -> Any:
    if isinstance(value, Rule):
        notes.append(f"{where}: the rule '{value.describe()}' has no ADK form; its value is left out")
        return None
    if isinstance(value, AnyOf):
        shown = [v for v in value.values if v != ""]
        if len(value.values) > 1:
            notes.append(f"{where}: ADK takes one value; the first of {len(value.values)} admissible "
                         f"values is written")
        return shown[0] if shown else None
    return value


def _exact_args(args: Mapping, where: str, notes: list) -> dict:
    """One exact value per argument (what the other formats hold), each loss noted."""
    written = {}
    for arg, value in args.items():
        exact = _exact_value(value, f"{where}.{arg}", notes)
        if exact is not None:
            written[arg] = exact
    return written


def export_adk(tasks: list, *, name: str = "ek-otel") -> tuple:
    """``(eval set, notes)``: the tasks as one ADK eval set (one eval case per task, one
    invocation per turn).

    Example:
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
        if not task.ordered:
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
                uses.append({"name": tool, "args": _exact_args(args, f"{task.task_id}: calls[{index}].{tool}", notes)})
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


def import_agentevals(data: Any, *, source: str = "<agentevals>") -> tuple:
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
    return import_adk(data, source=source)


_DEEPEVAL_ARGS = ("input_parameters", "inputParameters", "input")


def _deepeval_tools(value: Any) -> list:
    if isinstance(value, str):  # a CSV cell holds the JSON list
        value = json.loads(value) if value.strip() else []
    return value if isinstance(value, list) else []


def import_deepeval(data: Any, *, source: str = "<deepeval>") -> tuple:
    """``(tasks, notes)`` of DeepEval goldens (``EvaluationDataset.save_as``: a JSON list, JSON
    Lines, or CSV rows): each golden with ``expected_tools`` a task; a tool's
    ``input_parameters`` (``inputParameters``, ``input``) its arguments, exact. DeepEval's
    ``ToolCorrectnessMetric`` ignores order by default: tasks are unordered. The expected
    output (judged by LLM metrics), the context and the tools' outputs are named, not scored.

    Example:
        >>> tasks, notes = import_deepeval([{"input": "Solve 5 * 7", "expected_output": "35",
        ...     "expected_tools": [{"name": "calculator", "input_parameters": {"query": "5 * 7"}}]}],
        ...     source="g.json")
        >>> tasks[0].task_id, tasks[0].gold, tasks[0].ordered
        ('g.json#0', (('calculator', {'query': AnyOf(values=('5 * 7',))}),), False)
    """
    if isinstance(data, Mapping) and isinstance(data.get("goldens"), list):
        data = data["goldens"]
    if not isinstance(data, list):
        raise InputError("not DeepEval goldens (a list of objects with input)", path=source)
    tasks, notes = [], []
    names = [g.get("name") for g in data if isinstance(g, Mapping)]
    unique_names = len(set(names)) == len(names) and all(isinstance(n, str) and n for n in names)
    base = source.rsplit("/", 1)[-1]
    for index, golden in enumerate(data):
        if not isinstance(golden, Mapping) or "input" not in golden:
            raise InputError(f"golden {index}: not a DeepEval golden (no input)", path=source)
        task_id = golden["name"] if unique_names else f"{base}#{index}"
        try:
            expected = _deepeval_tools(golden.get("expected_tools", golden.get("expectedTools")))
        except ValueError as exc:
            raise InputError(f"golden {index}: expected_tools is not JSON: {exc}", path=source) from None
        if not expected:
            notes.append(f"{task_id}: skipped: no expected_tools (nothing for a tool-call score)")
            continue
        calls = []
        outputs = 0
        for tool in expected:
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                raise InputError(f"golden {index}: an expected tool without a name", path=source)
            args = next((tool[k] for k in _DEEPEVAL_ARGS if isinstance(tool.get(k), Mapping)), {})
            calls.append({tool["name"]: {arg: [value] for arg, value in args.items()}})
            outputs += tool.get("output") is not None
        meta: dict = {"deepeval": {"source": source}}
        for key in ("expected_output", "context", "retrieval_context", "additional_metadata"):
            if golden.get(key):
                meta["deepeval"][key] = golden[key]
        if golden.get("expected_output"):
            notes.append(f"{task_id}: the expected output is judged by DeepEval's LLM metrics; "
                         "kept in meta.deepeval.expected_output, not scored")
        if outputs:
            notes.append(f"{task_id}: {outputs} expected tool output(s) are not scored")
        tasks.append(task_from_dict({"task_id": task_id, "input": golden["input"], "calls": calls,
                                     "meta": meta}, path=source))
    return tasks, notes


def export_deepeval(tasks: list) -> tuple:
    """``(goldens, notes)``: one DeepEval golden per task (``input``, ``expected_tools`` with
    ``input_parameters``).

    Example:
        >>> goldens, notes = export_deepeval([TaskSpec("t", input="hi", gold=[("f", {"x": AnyOf((1,))})],
        ...                                            ordered=True)])
        >>> goldens, notes
        ([{'name': 't', 'input': 'hi', 'expected_tools': [{'name': 'f', 'input_parameters': {'x': 1}}]}], ["t: DeepEval's ToolCorrectnessMetric ignores order unless should_consider_ordering=True"])
    """
    goldens, notes = [], []
    for task in tasks:
        if task.ordered:
            notes.append(f"{task.task_id}: DeepEval's ToolCorrectnessMetric ignores order unless "
                         "should_consider_ordering=True")
        if task.turns is not None:
            notes.append(f"{task.task_id}: a single-turn golden: the {len(task.turns)} turns' calls "
                         "are written as one list")
        if len(task.alternatives) > 1:
            notes.append(f"{task.task_id}: only the first of {len(task.alternatives)} alternatives is written")
        if task.optional:
            notes.append(f"{task.task_id}: DeepEval has no optional calls; {len(task.optional)} written as expected")
        tools = []
        for index, (tool, args) in enumerate(task.gold):
            tools.append({"name": tool, "input_parameters": _exact_args(
                args, f"{task.task_id}: calls[{index}].{tool}", notes)})
        text = task.input if isinstance(task.input, str) else (
            " / ".join(task.input) if isinstance(task.input, list) else "")
        goldens.append({"name": task.task_id, "input": text, "expected_tools": tools})
    return goldens, notes


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
            calls.append({name: {arg: [value] for arg, value in args.items()}})
    return calls


def import_langchain(data: Any, *, source: str = "<langchain>") -> tuple:
    """``(tasks, notes)`` of LangChain agentevals reference trajectories: OpenAI-style message
    lists (``role`` user/assistant/tool, assistant ``tool_calls``). ``data`` is one
    trajectory, a list of them, or a list of examples ``{"id"/"name", "reference_outputs"
    (or "reference_trajectory", "outputs"): trajectory}`` (a LangSmith dataset export). The
    first user message is the input; the calls are exact and ordered (agentevals' ``strict``
    mode; its mode is chosen when it evaluates, so each task says so); the tool results and
    the final answer are kept in ``meta.langchain``, not scored.

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
        examples = [(None, data)]
    elif isinstance(data, list):
        examples = []
        for index, item in enumerate(data):
            if isinstance(item, list):
                examples.append((None, item))
            elif isinstance(item, Mapping):
                trajectory = next((item[k] for k in ("reference_outputs", "reference_trajectory", "outputs")
                                   if isinstance(item.get(k), list)), None)
                if trajectory is None:
                    raise InputError(f"example {index}: no reference_outputs trajectory", path=source)
                examples.append((item.get("id", item.get("name")), trajectory))
            else:
                raise InputError(f"example {index}: not a trajectory", path=source)
    else:
        raise InputError("not agentevals reference trajectories (a message list, or a list of them)",
                         path=source)
    base = source.rsplit("/", 1)[-1]
    tasks, notes = [], []
    for index, (name, messages) in enumerate(examples):
        task_id = str(name) if name else f"{base}#{index}"
        users = [m for m in messages if isinstance(m, Mapping) and m.get("role", m.get("type")) in ("user", "human")]
        text = users[0].get("content") if users else None
        calls = _trajectory_calls(messages, f"{source}: {task_id}")
        obj: dict = {"task_id": task_id, "calls": calls, "ordered": True,
                     "meta": {"langchain": {"source": source}}}
        if isinstance(text, str):
            obj["input"] = text
        finals = [m.get("content") for m in messages if isinstance(m, Mapping)
                  and m.get("role", m.get("type")) in ("assistant", "ai") and not m.get("tool_calls")
                  and isinstance(m.get("content"), str) and m.get("content")]
        if finals:
            obj["meta"]["langchain"]["final_answer"] = finals[-1]
        tools = sum(1 for m in messages if isinstance(m, Mapping) and m.get("role", m.get("type")) == "tool")
        notes.append(f"{task_id}: imported as agentevals' strict match (ordered, exact arguments); "
                     f"{tools} tool result(s) and the final answer are kept in meta.langchain, not scored")
        tasks.append(task_from_dict(obj, path=source))
    return tasks, notes


def export_langchain(tasks: list) -> tuple:
    """``(examples, notes)``: one reference trajectory per task (``{"id", "reference_outputs":
    [user message, one assistant message per call]}``), with exact arguments.

    Example:
        >>> examples, _ = export_langchain([TaskSpec("t", input="hi", ordered=True, gold=[("f", {"x": AnyOf((1,))})])])
        >>> examples[0]["reference_outputs"][1]["tool_calls"]
        [{'function': {'name': 'f', 'arguments': '{"x": 1}'}}]
    """
    examples, notes = [], []
    for task in tasks:
        if not task.ordered:
            notes.append(f"{task.task_id}: unordered calls: evaluate with trajectory_match_mode='unordered'")
        if len(task.alternatives) > 1:
            notes.append(f"{task.task_id}: only the first of {len(task.alternatives)} alternatives is written")
        if task.optional:
            notes.append(f"{task.task_id}: a reference trajectory has no optional calls; "
                         f"{len(task.optional)} written as expected")
        text = task.input if isinstance(task.input, str) else (
            " / ".join(task.input) if isinstance(task.input, list) else "")
        messages: list = [{"role": "user", "content": text}]
        for index, (tool, args) in enumerate(task.gold):
            written = _exact_args(args, f"{task.task_id}: calls[{index}].{tool}", notes)
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": tool, "arguments": json.dumps(written, ensure_ascii=False)}}]})
        examples.append({"id": task.task_id, "reference_outputs": messages})
    return examples, notes


#: Format name -> (importer, exporter or None). An importer takes parsed JSON and a source
#: name; an exporter takes tasks. agentevals reads ADK eval sets, so both export alike.
FORMATS: dict = {"adk": (import_adk, export_adk), "agentevals": (import_agentevals, export_adk),
                 "deepeval": (import_deepeval, export_deepeval),
                 "langchain": (import_langchain, export_langchain)}


def import_file(fmt: str, path: str) -> tuple:
    """``(tasks, notes)`` of a file of another tool's format.

    Raises:
        InputError: an unknown format, a file that cannot be read or is not that format.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            if path.lower().endswith(".csv"):
                import csv

                data = list(csv.DictReader(f))
            elif path.lower().endswith(".jsonl"):
                data = [json.loads(line) for line in f if line.strip()]
            else:
                data = json.load(f)
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not JSON: {exc}", path=path) from None
    importer: Callable = FORMATS[fmt][0]
    return importer(data, source=path)


def export_tasks(fmt: str, tasks: list) -> tuple:
    """``(data, notes)``: tasks in another tool's format (parsed JSON, to be written).

    Raises:
        InputError: an unknown format, or one that cannot hold expected calls.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    exporter = FORMATS[fmt][1]
    if exporter is None:
        raise InputError(f"{fmt} files cannot hold expected calls: no export")
    return exporter(tasks)
