"""BFCL entries as native gold tasks, without loss (``ek-otel gold from-bfcl``).

One task per BFCL entry:

- ``task_id``: the BFCL id; ``input``: the first user message; ``slice``: the category;
- ``tools``: the BFCL function docs, raw (``"type": "dict"``, ``"float"``, ``"tuple"``,
  ``"any"`` are kept); for multi-turn, the held-out docs of ``miss_func`` are included
  and listed in ``meta.bfcl_missed_function``; doc keys the native format has no place
  for (multi-turn ``response`` schemas) go to ``meta.bfcl_tool_extras``;
- ``calls``: the possible answer itself (BFCL's shape is the native shape); ``[]`` for
  relevance categories (whose rule is in the category) and agentic ones (whose answers
  are texts, kept in ``meta.bfcl_ground_truth``);
- ``turns`` (multi-turn, ``ordered``): each answer call string decoded into
  ``{name: {param: [value]}}`` (positional arguments named by the doc's parameter
  order); the strings themselves stay in ``meta.bfcl_turns``;
- ``meta``: ``bfcl_category``, ``bfcl_id``, ``question`` (all turns), ``bfcl_extra``
  (every other field of the entry, e.g. ``initial_config``).

A few BFCL labels name an argument the function doc lacks, or allow no value at all
(data bugs). The native format rejects such a call, so the label is written with those
arguments left out and kept whole in ``meta.bfcl_ground_truth``, which the BFCL matcher
(:func:`ek_otel.bfcl.matcher.bfcl_verdict_for_calls`) uses instead of ``calls``.

Example:
    >>> from ek_otel.bfcl.data import BfclEntry
    >>> doc = {"name": "f", "description": "d", "parameters": {"type": "dict",
    ...        "properties": {"x": {"type": "float"}}, "required": ["x"]}}
    >>> entry = BfclEntry("simple_python_0", "simple_python",
    ...     {"id": "simple_python_0", "question": [[{"role": "user", "content": "hi"}]],
    ...      "function": [doc]}, {"id": "simple_python_0", "ground_truth": [{"f": {"x": [1.0]}}]})
    >>> d = task_dict_from_entry(entry)
    >>> d["calls"], d["tools"][0]["parameters"]["type"], d["meta"]["bfcl_category"]
    ([{'f': {'x': [1.0]}}], 'dict', 'simple_python')
"""

from __future__ import annotations

import copy
from typing import Any

from .categories import is_agentic, is_multi_turn, is_relevance
from .data import BfclData, BfclEntry
from .decode import DecodeError, parse_call
from ..core.episode import TaskSpec
from ..errors import BfclDataError
from ..gold.native import task_from_dict

__all__ = ["task_dict_from_entry", "task_from_entry", "bfcl_tasks", "TOOL_KEYS_KEPT"]

#: Function-doc keys the native tool format holds; others go to ``meta.bfcl_tool_extras``.
TOOL_KEYS_KEPT = ("name", "description", "parameters")

_ENTRY_KEYS_USED = ("id", "question", "function", "missed_function")


def _first_user_message(question: Any) -> Any:
    for turn in question or ():
        for message in turn or ():
            if isinstance(message, dict) and message.get("role") == "user":
                return message.get("content")
    return None


def _split_tools(docs: list) -> tuple:
    tools, extras = [], {}
    for doc in docs:
        tools.append({k: copy.deepcopy(v) for k, v in doc.items() if k in TOOL_KEYS_KEPT})
        rest = {k: copy.deepcopy(v) for k, v in doc.items() if k not in TOOL_KEYS_KEPT}
        if rest:
            extras[doc["name"]] = rest
    return tools, extras


def _properties(tools: list) -> dict:
    return {t["name"]: (t.get("parameters") or {}).get("properties", {}) for t in tools}


def _native_calls(ground_truth: list, properties: dict) -> tuple:
    """The label with arguments the native format rejects left out; and whether any were."""
    calls, patched = [], False
    for call in ground_truth:
        native = {}
        for name, args in call.items():
            known = properties.get(name)
            kept = {}
            for arg, allowed in args.items():
                if (known is not None and arg not in known) or allowed == []:
                    patched = True
                    continue
                kept[arg] = copy.deepcopy(allowed)
            native[name] = kept
        calls.append(native)
    return calls, patched


def _turn_calls(strings: list, properties: dict) -> list:
    calls = []
    for text in strings:
        try:
            name, kwargs, positional = parse_call(text)
        except DecodeError as exc:
            raise BfclDataError(f"cannot read the answer call {text!r}: {exc}") from None
        args = {}
        order = list(properties.get(name, {}))
        for index, value in enumerate(positional):
            if index >= len(order):
                raise BfclDataError(f"answer call {text!r}: too many positional arguments")
            args[order[index]] = [value]
        for key, value in kwargs.items():
            args[key] = [value]
        calls.append({name: args})
    return calls


def task_dict_from_entry(entry: BfclEntry) -> dict:
    """The native gold object of one BFCL entry (see the module docs for the mapping).

    Example:
        >>> from ek_otel.bfcl.data import BfclEntry
        >>> e = BfclEntry("irrelevance_3", "irrelevance", {"id": "irrelevance_3",
        ...               "question": [[{"role": "user", "content": "hello"}]], "function": []})
        >>> task_dict_from_entry(e)["calls"], task_dict_from_entry(e)["input"]
        ([], 'hello')
    """
    question = entry.question
    docs = list(question.get("function", []))
    missed = question.get("missed_function") or {}
    missed_docs = [doc for turn in missed.values() for doc in turn]
    tools, tool_extras = _split_tools(docs + missed_docs)
    meta: dict = {
        "bfcl_category": entry.category,
        "bfcl_id": entry.id,
        "question": copy.deepcopy(question.get("question")),
    }
    extra = {k: copy.deepcopy(v) for k, v in question.items() if k not in _ENTRY_KEYS_USED}
    if extra:
        meta["bfcl_extra"] = extra
    if tool_extras:
        meta["bfcl_tool_extras"] = tool_extras
    if missed:
        meta["bfcl_missed_function"] = {
            turn: [doc["name"] for doc in turn_docs] for turn, turn_docs in missed.items()}
    task: dict = {"task_id": entry.id, "input": _first_user_message(question.get("question")),
                  "slice": entry.category}
    ground_truth = entry.ground_truth
    if is_multi_turn(entry.category):
        task["turns"] = [_turn_calls(turn, _properties(tools)) for turn in ground_truth]
        task["ordered"] = True
        meta["bfcl_turns"] = copy.deepcopy(ground_truth)
    elif is_agentic(entry.category):
        task["calls"] = []
        meta["bfcl_ground_truth"] = copy.deepcopy(ground_truth)
    elif is_relevance(entry.category) or ground_truth is None:
        task["calls"] = []
    else:
        calls, patched = _native_calls(ground_truth, _properties(tools))
        task["calls"] = calls
        if patched:
            meta["bfcl_ground_truth"] = copy.deepcopy(ground_truth)
    if tools:
        task["tools"] = tools
    task["meta"] = meta
    return task


def task_from_entry(entry: BfclEntry) -> TaskSpec:
    """The :class:`~ek_otel.core.episode.TaskSpec` of one BFCL entry (checked as a gold task).

    Example:
        >>> from ek_otel.bfcl.data import BfclEntry
        >>> e = BfclEntry("live_relevance_0-0-0", "live_relevance", {"question": [], "function": []})
        >>> task_from_entry(e).meta["bfcl_category"]
        'live_relevance'
    """
    return task_from_dict(task_dict_from_entry(entry), path=f"BFCL {entry.category}")


def bfcl_tasks(data: BfclData, category: str) -> list:
    """Every entry of ``category`` as a native gold task.

    Example:
        >>> bfcl_tasks(BfclData("/nowhere"), "parallel")
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: directory /nowhere: BFCL_v4_parallel.json is missing
    """
    return [task_from_entry(entry) for entry in data.entries(category)]
