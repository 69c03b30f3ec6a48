"""LangChain agentevals reference trajectories: its own README's in, and trajectories out."""

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

FIXTURES = Path(__file__).with_name("fixtures")


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
    examples, notes = export_langchain(tasks)
    back, _ = import_langchain(examples, source="back")
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]
    with pytest.raises(InputError, match="not agentevals reference trajectories"):
        import_langchain({"messages": []}, source="x.json")
