"""DeepEval goldens (``EvaluationDataset.save_as``: JSON, JSON Lines or CSV), in and out.

Each golden with ``expected_tools`` is a task, unordered (``ToolCorrectnessMetric``'s
default), the tools' ``input_parameters`` exact; ``expected_tools: []`` is a task that expects
no call (what the export writes for one); goldens without the key are named and skipped; what DeepEval judges with LLM metrics is kept in ``meta.deepeval``. The formats
and their notes are described in :mod:`ek_otel.gold.importers`.

Example:
    >>> from ek_otel.core.episode import TaskSpec
    >>> tasks, _ = import_deepeval(export_deepeval([TaskSpec("t", input="hi", gold=[("f", {"x": 1})])])[0])
    >>> tasks[0].task_id, tasks[0].gold
    ('t', (('f', {'x': AnyOf(values=(1,))}),))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .exact import exact_args, gold_args, input_text
from .native import task_from_dict

__all__ = ["import_deepeval", "export_deepeval"]


_DEEPEVAL_ARGS = ("input_parameters", "inputParameters", "input")


def _deepeval_tools(value: Any) -> list | None:
    """The expected tools of a golden; ``None`` when it names none (no key, null, an empty CSV
    cell), ``[]`` when it expects no call (a no-call task)."""
    if isinstance(value, str):  # a CSV cell holds the JSON list
        value = json.loads(value) if value.strip() else None
    return value if isinstance(value, list) else None


def import_deepeval(data: Any, *, source: str = "<deepeval>") -> tuple:
    """``(tasks, notes)`` of DeepEval goldens (``EvaluationDataset.save_as``: a JSON list, JSON
    Lines, or CSV rows): each golden with ``expected_tools`` a task (``[]``: no call expected); a tool's
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
        if expected is None:
            notes.append(f"{task_id}: skipped: no expected_tools (nothing for a tool-call score)")
            continue
        calls = []
        outputs = 0
        for tool in expected:
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                raise InputError(f"golden {index}: an expected tool without a name", path=source)
            args = next((tool[k] for k in _DEEPEVAL_ARGS if isinstance(tool.get(k), Mapping)), {})
            calls.append({tool["name"]: gold_args(args)})
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
        >>> from ek_otel.core.episode import AnyOf, TaskSpec
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
            tools.append({"name": tool, "input_parameters": exact_args(
                args, f"{task.task_id}: calls[{index}].{tool}", notes)})
        goldens.append({"name": task.task_id, "input": input_text(task), "expected_tools": tools})
    return goldens, notes
