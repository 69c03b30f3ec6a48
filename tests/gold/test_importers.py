"""``gold import`` / ``gold export`` on real files of the other tools' formats
(``tests/gold/fixtures``, where each came from in ``SOURCES``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.rules import AnyValue
from ek_otel.errors import InputError
from ek_otel.gold.importers import export_adk, import_adk, import_file
from ek_otel.gold.native import task_to_dict
from ek_otel.gold.schema import task_problems

FIXTURES = Path(__file__).with_name("fixtures")
ADK = sorted((FIXTURES / "adk").glob("*.json"))
AGENTEVALS = sorted((FIXTURES / "agentevals").glob("*.json"))


def test_every_fixture_is_named_in_sources():
    sources = (FIXTURES / "SOURCES").read_text()
    for path in ADK:
        assert f"/{path.name}" in sources, path.name
    flattened = {line.split()[-1].replace("/", "_") for line in sources.splitlines()
                 if line and not line.startswith("#")}
    for path in AGENTEVALS:
        assert path.name in flattened, path.name
    assert len(ADK) >= 2 and len(AGENTEVALS) >= 2


@pytest.mark.parametrize("path", ADK, ids=lambda p: p.name)
def test_adk_files_import_into_valid_tasks_that_their_own_trajectory_passes(path):
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


def test_a_multi_invocation_conversation_becomes_turns():
    tasks, _ = import_file("adk", str(FIXTURES / "adk" / "simple_multi_turn_conversation.test.json"))
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
    with pytest.raises(InputError, match="no such file"):
        import_file("adk", "/no/such.evalset.json")


def test_export_round_trips_what_adk_can_hold_and_names_the_rest(tmp_path):
    path = FIXTURES / "adk" / "dependent_tool_calls.test.json"
    tasks, _ = import_file("adk", str(path))
    data, notes = export_adk(tasks)
    back, _ = import_adk(data, source="back")
    assert [t.gold for t in back] == [t.gold for t in tasks] and notes == []
    _, notes = export_adk([TaskSpec("r", input="refund", gold=[("refund", {"id": AnyValue()})],
                                    optional=[0])])
    assert notes == ["r: ADK compares tool trajectories in order; the task's calls are unordered",
                     "r: ADK has no optional calls; 1 are written as required",
                     "r: calls[0].refund.id: the rule 'any value' has no ADK form; its value is left out"]


def test_cli_import_and_export(tmp_path):
    out = tmp_path / "gold.jsonl"
    runner = CliRunner()
    result = runner.invoke(cli, ["gold", "import", "adk", str(FIXTURES / "adk" / "trip_inquiry.test.json"),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 task(s) from" in result.stderr and result.stderr.count("compared by similarity") == 2
    again = runner.invoke(cli, ["gold", "import", "adk", str(FIXTURES / "adk" / "trip_inquiry.test.json"),
                                "--out", str(out)])
    assert again.exit_code == 2 and "exists" in again.stderr
    evalset = tmp_path / "x.evalset.json"
    exported = runner.invoke(cli, ["gold", "export", "adk", str(out), "--out", str(evalset)])
    assert exported.exit_code == 0, exported.output
    assert len(json.loads(evalset.read_text())["eval_cases"]) == 2


@pytest.mark.parametrize("path", AGENTEVALS, ids=lambda p: p.name)
def test_agentevals_files_import_into_valid_tasks(path):
    tasks, notes = import_file("agentevals", str(path))
    data = json.loads(path.read_text())
    assert [t.task_id for t in tasks] == [c.get("eval_id", c.get("case_id")) for c in data["eval_cases"]]
    for task in tasks:
        assert task_problems(task_to_dict(task)) == []
    assert notes  # the final responses, at least, are named


def test_agentevals_function_call_parts_become_turns():
    tasks, _ = import_file("agentevals", str(FIXTURES / "agentevals" / "examples_dice_agent_eval_set.json"))
    greeting, roll = tasks
    assert greeting.gold == () and greeting.input == "Hi! Can you help me?"
    assert [[t for t, _ in turn] for turn in roll.turns] == [[], ["roll_die"], ["check_prime"]]
    run = Episode("roll", Trajectory([Step("roll_die", {"sides": 20}), Step("check_prime", {"nums": []})]))
    assert score_episode(run, roll).exact
    assert not score_episode(Episode("roll", Trajectory([Step("roll_die", {"sides": 6})])), roll).exact


def test_agentevals_names_what_it_cannot_score():
    _, notes = import_file("agentevals", str(FIXTURES / "agentevals" / "samples_eval_set_helm.json"))
    assert any("expected tool response(s) are not scored" in n for n in notes)
    assert any("empty args is taken as a call with no arguments" in n for n in notes)
    with pytest.raises(InputError, match="not an agentevals eval set"):
        import_file("agentevals", str(FIXTURES / "adk" / "trip_inquiry.test.json"))


DEEPEVAL = sorted((FIXTURES / "deepeval").glob("goldens.*"))


@pytest.mark.parametrize("path", DEEPEVAL, ids=lambda p: p.name)
def test_deepeval_goldens_import_with_their_expected_tools(path):
    assert f"/{path.name}" in (FIXTURES / "SOURCES").read_text()
    tasks, notes = import_file("deepeval", str(path))
    assert tasks and all(task_problems(task_to_dict(t)) == [] and not t.ordered for t in tasks)
    for task in tasks:  # the golden's own expected calls pass, in any order
        run = Episode(task.task_id, Trajectory([Step(tool, {a: v.values[0] for a, v in args.items()})
                                                for tool, args in reversed(task.gold)]))
        assert score_episode(run, task).exact
    assert sum("judged by DeepEval's LLM metrics" in n for n in notes) == len(tasks)


def test_deepeval_json_goldens_name_the_one_without_tools():
    tasks, notes = import_file("deepeval", str(FIXTURES / "deepeval" / "goldens.json"))
    assert len(tasks) == 3 and "goldens.json#3: skipped: no expected_tools (nothing for a tool-call score)" in notes
    assert [t for t, _ in tasks[2].gold] == ["search_biology_database", "search_ecology_database"]


def test_deepeval_csv_goldens_are_named_by_their_name():
    tasks, _ = import_file("deepeval", str(FIXTURES / "deepeval" / "goldens.csv"))
    assert tasks[6].task_id == "Name 7"
    assert task_to_dict(tasks[6])["calls"] == [{"translator": {"query": ["Hello"], "target_language": ["Spanish"]}}]


def test_deepeval_export_round_trips_names_inputs_and_tools(tmp_path):
    tasks, _ = import_file("deepeval", str(FIXTURES / "deepeval" / "goldens.csv"))
    out = tmp_path / "goldens.json"
    gold = tmp_path / "gold.jsonl"
    runner = CliRunner()
    assert runner.invoke(cli, ["gold", "import", "deepeval", str(FIXTURES / "deepeval" / "goldens.csv"),
                               "--out", str(gold)]).exit_code == 0
    result = runner.invoke(cli, ["gold", "export", "deepeval", str(gold), "--out", str(out)])
    assert result.exit_code == 0, result.output
    back, _ = import_file("deepeval", str(out))
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]


# ---------------------------------------------------------------------------
# LangChain agentevals: the reference trajectories of its own README
# ---------------------------------------------------------------------------

def _readme_trajectories() -> list:
    """Each ``reference_outputs = [...]`` of the README's Python examples, as JSON data (the
    ``json.dumps({...})`` of the arguments evaluated; nothing else is run)."""
    import ast
    import re

    text = (FIXTURES / "langchain" / "README.md").read_text()
    found = []

    def value(node):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "dumps":
            return json.dumps(value(node.args[0]))
        if isinstance(node, ast.List):
            return [value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        return ast.literal_eval(node)

    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        try:
            tree = ast.parse(block)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.List) and any(
                    getattr(t, "id", "") == "reference_outputs" for t in node.targets):
                try:
                    found.append(value(node.value))
                except ValueError:
                    continue  # a trajectory built from variables: not a literal
    return found


def test_langchain_readme_trajectories_import_and_their_outputs_are_scored(tmp_path):
    trajectories = [t for t in _readme_trajectories() if t and all("role" in m for m in t)]
    assert len(trajectories) >= 2
    path = tmp_path / "references.json"
    path.write_text(json.dumps(trajectories))
    tasks, notes = import_file("langchain", str(path))
    assert len(tasks) == len(trajectories) and len(notes) == len(tasks)
    for task, messages in zip(tasks, trajectories):
        assert task_problems(task_to_dict(task)) == [] and task.ordered
        assert task.input == next(m["content"] for m in messages if m["role"] == "user")
        calls = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
                 for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
        run = Episode(task.task_id, Trajectory([Step(name, args) for name, args in calls]))
        assert score_episode(run, task).exact
    weather = tasks[0]
    assert [t for t, _ in weather.gold] == ["get_weather"]
    assert not score_episode(Episode("x", Trajectory([Step("get_weather", {"city": "NYC"})])), weather).exact


def test_langchain_export_imports_back(tmp_path):
    path = tmp_path / "references.json"
    path.write_text(json.dumps([t for t in _readme_trajectories() if t and all("role" in m for m in t)]))
    tasks, _ = import_file("langchain", str(path))
    from ek_otel.gold.importers import export_langchain, import_langchain

    examples, notes = export_langchain(tasks)
    back, _ = import_langchain(examples, source="back")
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]
    with pytest.raises(InputError, match="not agentevals reference trajectories"):
        import_langchain({"messages": []}, source="x.json")


def test_the_cli_lists_every_format():
    from ek_otel.cli.gold_formats import FORMAT_NAMES
    from ek_otel.gold.importers import FORMATS

    assert FORMAT_NAMES == sorted(FORMATS)
