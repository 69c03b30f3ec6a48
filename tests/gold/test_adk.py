"""Google ADK and agentevals eval sets: real files in (other projects' files, read from
``../shared/foreign/gold``: never copied into the tree), and ADK eval sets out."""

from __future__ import annotations

import json

import pytest

from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.rules import AnyValue
from ek_otel.errors import InputError
from ek_otel.gold.adk import export_adk, import_adk
from ek_otel.gold.importers import import_file
from ek_otel.gold.native import task_to_dict
from ek_otel.gold.schema import task_problems

#: The eval sets of ../shared/foreign/gold/adk and gold/agentevals (see its README).
ADK = ("dependent_tool_calls.test.json", "simple_multi_turn_conversation.test.json",
       "trip_inquiry.test.json")
AGENTEVALS = ("examples_dice_agent_eval_set.json", "examples_langchain_agent_eval_set.json",
              "examples_strands_agent_eval_set.json", "samples_eval_set_helm.json",
              "samples_evalset_k8s_2026-02-20.json")


@pytest.fixture
def gold(foreign):
    """The foreign gold folder (``adk/``, ``agentevals/``, ``deepeval/``)."""
    return foreign / "gold"


def test_the_foreign_folder_holds_exactly_these_eval_sets(gold):
    assert sorted(p.name for p in (gold / "adk").glob("*.json")) == sorted(ADK)
    assert sorted(p.name for p in (gold / "agentevals").glob("*.json")) == sorted(AGENTEVALS)


@pytest.mark.parametrize("name", ADK)
def test_adk_files_import_into_valid_tasks_that_their_own_trajectory_passes(name, gold):
    path = gold / "adk" / name
    tasks, notes = import_file("adk", str(path))
    data = json.loads(path.read_text())
    cases = data["eval_cases"] if isinstance(data, dict) else data
    assert len(tasks) == len(cases)
    for task, case in zip(tasks, cases):
        assert task_problems(task_to_dict(task)) == []
        assert task.ordered
        if isinstance(data, dict):
            uses = [u for inv in case["conversation"] for u in inv["intermediate_data"]["tool_uses"]]
            run = Episode(task.task_id, Trajectory([Step(u["name"], u["args"]) for u in uses]))
        else:
            uses = case.get("expected_tool_use") or []
            run = Episode(task.task_id, Trajectory([Step(u["tool_name"], u["tool_input"]) for u in uses]))
        assert score_episode(run, task).exact
        assert [t for t, _ in task.gold] == [u.get("name", u.get("tool_name")) for u in uses]
    # what ADK scores and the gold format does not (final responses by similarity): named
    assert len(notes) >= len(tasks) and all(": " in n for n in notes)


def test_a_multi_invocation_conversation_becomes_turns(gold):
    tasks, _ = import_file("adk", str(gold / "adk" / "simple_multi_turn_conversation.test.json"))
    (task,) = tasks
    assert task.input == ["Turn off device_2 in the Bedroom.", "Turn on device_2 in the Bedroom."]
    assert [[t for t, _ in turn] for turn in task.turns] == [["set_device_info"], ["set_device_info"]]
    wrong = Episode(task.task_id, Trajectory([Step("set_device_info", {"location": "Bedroom", "device_id": "device_2",
                                                                       "status": "ON"})] * 2))
    assert not score_episode(wrong, task).exact


def test_a_conversation_scenario_is_named_and_skipped():
    tasks, notes = import_adk({"eval_cases": [{"eval_id": "sim", "conversation_scenario": {
        "starting_prompt": "hi", "conversation_plan": "chat"}}]})
    assert tasks == [] and notes == [
        "sim: skipped: a conversation_scenario (a simulated user) has no expected calls to score"]


def test_bad_files_are_named():
    with pytest.raises(InputError, match="not an ADK eval set"):
        import_adk({"cases": []}, source="x.json")


def test_export_round_trips_what_adk_can_hold_and_names_the_rest(gold):
    path = gold / "adk" / "dependent_tool_calls.test.json"
    tasks, _ = import_file("adk", str(path))
    data, notes = export_adk(tasks)
    back, _ = import_adk(data, source="back")
    assert [t.gold for t in back] == [t.gold for t in tasks] and notes == []
    _, notes = export_adk([TaskSpec("r", input="refund", gold=[("refund", {"id": AnyValue()})],
                                    optional=[0])])
    assert notes == ["r: ADK compares tool trajectories in order; the task's calls are unordered",
                     "r: ADK has no optional calls; 1 are written as required",
                     "r: calls[0].refund.id: the rule 'any value' has no ADK form; its value is left out"]


@pytest.mark.parametrize("name", AGENTEVALS)
def test_agentevals_files_import_into_valid_tasks(name, gold):
    path = gold / "agentevals" / name
    tasks, notes = import_file("agentevals", str(path))
    data = json.loads(path.read_text())
    assert [t.task_id for t in tasks] == [c.get("eval_id", c.get("case_id")) for c in data["eval_cases"]]
    for task in tasks:
        assert task_problems(task_to_dict(task)) == []
    assert notes  # the final responses, at least, are named


def test_agentevals_function_call_parts_become_turns(gold):
    tasks, _ = import_file("agentevals", str(gold / "agentevals" / "examples_dice_agent_eval_set.json"))
    greeting, roll = tasks
    assert greeting.gold == () and greeting.input == "Hi! Can you help me?"
    assert [[t for t, _ in turn] for turn in roll.turns] == [[], ["roll_die"], ["check_prime"]]
    run = Episode("roll", Trajectory([Step("roll_die", {"sides": 20}), Step("check_prime", {"nums": []})]))
    assert score_episode(run, roll).exact
    assert not score_episode(Episode("roll", Trajectory([Step("roll_die", {"sides": 6})])), roll).exact


def test_agentevals_names_what_it_cannot_score(gold):
    _, notes = import_file("agentevals", str(gold / "agentevals" / "samples_eval_set_helm.json"))
    assert any("expected tool response(s) are not scored" in n for n in notes)
    assert any("empty args is taken as a call with no arguments" in n for n in notes)
    with pytest.raises(InputError, match="not an agentevals eval set"):
        import_file("agentevals", str(gold / "adk" / "trip_inquiry.test.json"))
