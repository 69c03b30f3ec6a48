"""The other tools' formats keep their match modes: ADK's eval config, agentevals' settings."""

from __future__ import annotations

import json

import pytest

from ek_otel.errors import InputError
from ek_otel.gold.adk import adk_config, export_adk, import_adk
from ek_otel.gold.importers import import_file
from ek_otel.gold.langchain import export_langchain, import_langchain
from ek_otel.gold.native import task_from_dict

ENTRY = {"query": "q", "expected_tool_use": [{"tool_name": "f", "tool_input": {"x": 1}}]}


@pytest.mark.parametrize("match_type, ignore_args, keys", [
    ("EXACT", False, (True, "exact", "exact")),
    ("IN_ORDER", False, (True, "superset", "exact")),
    ("ANY_ORDER", True, (False, "superset", "ignore")),
])
def test_adk_criterion_in_and_out(match_type, ignore_args, keys):
    config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": match_type,
                                                         "ignore_args": ignore_args}}}
    (task,), _ = import_adk([ENTRY], config=config)
    assert (task.ordered, task.match, task.args) == keys
    criterion = adk_config([task], [])["criteria"]["tool_trajectory_avg_score"]
    assert criterion["match_type"] == match_type and criterion.get("ignore_args", False) == ignore_args


def test_adk_config_beside_the_file_and_a_bad_match_type(tmp_path):
    data, _ = export_adk([task_from_dict({"task_id": "t", "calls": [{"f": {"x": [1]}}], "ordered": True})])
    (tmp_path / "t.test.json").write_text(json.dumps(data))
    assert import_file("adk", str(tmp_path / "t.test.json"))[0][0].match == "exact"
    (tmp_path / "test_config.json").write_text(json.dumps(
        {"criteria": {"tool_trajectory_avg_score": {"match_type": "ANY_ORDER"}}}))
    tasks, notes = import_file("adk", str(tmp_path / "t.test.json"))
    assert tasks[0].match == "superset" and not tasks[0].ordered and "test_config.json" in notes[0]
    (tmp_path / "bad.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"match_type": "SOME"}}}))
    with pytest.raises(InputError, match="match_type must be one of EXACT, IN_ORDER, ANY_ORDER"):
        import_file("adk", str(tmp_path / "t.test.json"), config=str(tmp_path / "bad.json"))
    with pytest.raises(InputError, match="--config is read by adk and agentevals only"):
        import_file("langchain", str(tmp_path / "t.test.json"), config=str(tmp_path / "bad.json"))


@pytest.mark.parametrize("mode, keys", [("strict", (True, "exact")), ("unordered", (False, "exact")),
                                        ("subset", (False, "subset")), ("superset", (False, "superset"))])
@pytest.mark.parametrize("args", ["exact", "ignore", "subset", "superset"])
def test_langchain_modes_round_trip(mode, keys, args):
    trajectory = [{"role": "user", "content": "hi"},
                  {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}]
    example = {"id": "e", "reference_outputs": trajectory,
               "metadata": {"trajectory_match_mode": mode, "tool_args_match_mode": args,
                            "tool_args_match_overrides": {"g": "ignore"}}}
    (task,), _ = import_langchain([example])
    ours = {"subset": "superset", "superset": "subset"}.get(args, args) if mode == "subset" else args
    assert (task.ordered, task.match, task.args, task.args_by_tool) == (*keys, ours, {"g": "ignore"})
    (back,), _ = export_langchain([task])
    want = dict(example["metadata"])
    if args == "exact":
        del want["tool_args_match_mode"]
    assert back["metadata"] == want
    assert import_langchain([back])[0][0] == task


def test_langchain_bad_mode_is_one_line():
    example = {"id": "e", "reference_outputs": [{"role": "user", "content": "x"}],
               "trajectory_match_mode": "loose"}
    with pytest.raises(InputError, match="example 0: trajectory_match_mode must be one of strict"):
        import_langchain([example])
