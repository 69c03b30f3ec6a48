"""LangChain agentevals reference trajectories: trajectory files written here in, and
trajectories out.

``fixtures/langchain/`` holds ek-otel's own files in the format's shapes:
``trajectories.json``, a list of OpenAI-style message lists (one call, parallel calls then
one more, nested and empty arguments, none); ``examples.json``, LangSmith examples
(``reference_outputs`` with LangChain's ``{"type": "human" | "ai" | "tool"}`` messages and
``{"name", "args"}`` calls, ``reference_trajectory`` with OpenAI's).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel.core.episode import Episode, Step, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.errors import InputError
from ek_otel.gold.importers import import_file
from ek_otel.gold.langchain import export_langchain, import_langchain
from ek_otel.gold.native import task_to_dict
from ek_otel.gold.schema import task_problems

FIXTURES = Path(__file__).with_name("fixtures") / "langchain"


def _calls(messages: list) -> list:
    """``(name, arguments)`` of a trajectory's assistant calls, in order, in either shape."""
    found = []
    for message in messages:
        if message.get("role", message.get("type")) not in ("assistant", "ai"):
            continue
        for call in message.get("tool_calls") or ():
            if "function" in call:
                found.append((call["function"]["name"], json.loads(call["function"]["arguments"])))
            else:
                found.append((call["name"], call["args"]))
    return found


@pytest.mark.parametrize("name", ["trajectories.json", "examples.json"])
def test_langchain_trajectories_import_and_their_own_calls_pass(name):
    path = FIXTURES / name
    data = json.loads(path.read_text())
    trajectories = [t if isinstance(t, list) else t.get("reference_outputs")
                    or t["reference_trajectory"] for t in data]
    tasks, notes = import_file("langchain", str(path))
    assert len(tasks) == len(trajectories) == len(notes)
    for task, messages in zip(tasks, trajectories):
        assert task_problems(task_to_dict(task)) == [] and task.ordered
        assert task.input == next(m["content"] for m in messages
                                  if m.get("role", m.get("type")) in ("user", "human"))
        calls = _calls(messages)
        assert [t for t, _ in task.gold] == [n for n, _ in calls]
        run = Episode(task.task_id, Trajectory([Step(n, args) for n, args in calls]))
        assert score_episode(run, task).exact
        if len(calls) > 1:  # strict: the same calls in another order do not pass
            swapped = Episode(task.task_id, Trajectory([Step(n, a) for n, a in reversed(calls)]))
            assert not score_episode(swapped, task).exact
        final = [m["content"] for m in messages if m.get("role", m.get("type")) in ("assistant", "ai")
                 and not m.get("tool_calls")]
        assert task.meta["langchain"].get("final_answer") == (final[-1] if final else None)


def test_the_task_ids_the_notes_and_a_wrong_argument():
    tasks, notes = import_file("langchain", str(FIXTURES / "trajectories.json"))
    assert [t.task_id for t in tasks] == [f"trajectories.json#{i}" for i in range(4)]
    assert notes[1] == ("trajectories.json#1: imported as agentevals' strict match (ordered, "
                        "exact arguments); 3 tool result(s) and the final answer are kept in "
                        "meta.langchain, not scored")
    weather = tasks[0]
    assert not score_episode(Episode("x", Trajectory([Step("get_weather", {"city": "Porto"})])),
                             weather).exact
    assert tasks[3].gold == () and score_episode(Episode("x", Trajectory([])), tasks[3]).exact
    examples, _ = import_file("langchain", str(FIXTURES / "examples.json"))
    assert [t.task_id for t in examples] == ["refund-small", "arguments-as-text"]


def test_langchain_export_imports_back(tmp_path):
    tasks, _ = import_file("langchain", str(FIXTURES / "trajectories.json"))
    tasks += import_file("langchain", str(FIXTURES / "examples.json"))[0]
    examples, notes = export_langchain(tasks)
    back, _ = import_langchain(examples, source="back")
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]
    with pytest.raises(InputError, match="not agentevals reference trajectories"):
        import_langchain({"messages": []}, source="x.json")
