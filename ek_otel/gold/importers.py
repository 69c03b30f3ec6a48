"""The gold files of other tools, in and out: ``ek-otel gold import`` / ``gold export``.

Each format has an importer (its file -> native tasks) and, where the format can hold
expected calls, an exporter (tasks -> its file). Both return **notes**: one line per task
for what the other format cannot express, so nothing is dropped silently.

Formats:

One module per format (:mod:`~ek_otel.gold.adk`, :mod:`~ek_otel.gold.deepeval`,
:mod:`~ek_otel.gold.langchain`; one exact value per argument: :mod:`~ek_otel.gold.exact`);
this module is their registry and reads the files.

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
  ``input_parameters`` exact; ``expected_tools: []`` a task that expects no call; goldens
  without the key are named and skipped.
- ``langchain``: LangChain agentevals reference trajectories (OpenAI-style message lists with
  ``tool_calls``; one, a list, or LangSmith examples with ``reference_outputs``): ordered,
  exact (agentevals' ``strict`` mode).

Example:
    >>> case = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c1", "conversation": [{
    ...     "user_content": {"role": "user", "parts": [{"text": "Turn off device_2"}]},
    ...     "final_response": {"role": "model", "parts": [{"text": "Done."}]},
    ...     "intermediate_data": {"tool_uses": [{"name": "set_device_info",
    ...                                          "args": {"device_id": "device_2", "status": "OFF"}}]}}]}]}
    >>> tasks, notes = FORMATS["adk"][0](case, source="s.evalset.json")
    >>> tasks[0].task_id, tasks[0].input, tasks[0].ordered, tasks[0].gold[0][0]
    ('c1', 'Turn off device_2', True, 'set_device_info')
    >>> notes
    ["c1: the final response ('Done.') is compared by similarity in ADK; kept in meta.adk.final_responses, not scored"]
"""

from __future__ import annotations

import json
import os
from typing import Callable, Optional

from ..errors import InputError
from .adk import export_adk, import_adk, import_agentevals
from .deepeval import export_deepeval, import_deepeval
from .langchain import export_langchain, import_langchain

__all__ = ["FORMATS", "import_file", "export_tasks"]


#: Format name -> (importer, exporter or None). An importer takes parsed JSON and a source
#: name; an exporter takes tasks. agentevals reads ADK eval sets, so both export alike.
FORMATS: dict = {"adk": (import_adk, export_adk), "agentevals": (import_agentevals, export_adk),
                 "deepeval": (import_deepeval, export_deepeval),
                 "langchain": (import_langchain, export_langchain)}


#: The formats that read an eval config (``test_config.json``, beside the eval set in ADK).
CONFIG_FORMATS = ("adk", "agentevals")
#: The name of ADK's eval config, looked for beside the eval set when none is given.
ADK_CONFIG_NAME = "test_config.json"


def import_file(fmt: str, path: str, *, config: Optional[str] = None) -> tuple:
    """``(tasks, notes)`` of a file of another tool's format.

    For ``adk``/``agentevals``, ``config`` is the eval config whose
    ``tool_trajectory_avg_score`` criterion sets the tasks' match modes; without it,
    ``test_config.json`` beside the file is read when there is one (ADK's own convention),
    and a note says so.

    Raises:
        InputError: an unknown format, a file that cannot be read or is not that format.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    if config is not None and fmt not in CONFIG_FORMATS:
        raise InputError(f"--config is read by {' and '.join(CONFIG_FORMATS)} only, not {fmt}")
    data = _read(path)
    importer: Callable = FORMATS[fmt][0]
    if fmt not in CONFIG_FORMATS:
        return importer(data, source=path)
    found = config
    beside = os.path.join(os.path.dirname(path), ADK_CONFIG_NAME)
    if found is None and os.path.isfile(beside):
        found = beside
    tasks, notes = importer(data, source=path, config=None if found is None else _read(found))
    if found is not None and config is None:
        notes.insert(0, f"{path}: the match modes are read from {beside}")
    return tasks, notes


def _read(path: str) -> object:
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
    return data


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
