"""The hand checks of a gold task, and the shipped JSON Schema agreeing with them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings

from ek_otel.gold.schema import (
    TASK_KEYS,
    did_you_mean,
    json_schema,
    json_type_name,
    normalize_tool,
    task_problems,
    tool_problems,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks.jsonl"
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def _load_canonical_tasks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_gold_native_tests", Path(__file__).with_name("test_native.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.canonical_tasks


canonical_tasks = _load_canonical_tasks()


def example_tasks():
    return [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(json_schema())


def test_the_schema_ships_inside_the_package():
    from importlib import resources

    assert resources.files("ek_otel.gold").joinpath("gold-task.schema.json").is_file()


def test_schema_lists_the_same_top_level_keys_as_the_hand_checks():
    assert set(json_schema()["properties"]) == set(TASK_KEYS)


def test_examples_pass_both_checks():
    for task in example_tasks():
        assert task_problems(task) == []
        assert list(VALIDATOR.iter_errors(task)) == []


@settings(max_examples=100, deadline=None)
@given(canonical_tasks())
def test_every_valid_task_passes_the_schema(task):
    assert task_problems(task) == []
    assert list(VALIDATOR.iter_errors(task)) == []


STRUCTURALLY_BAD = [
    {"calls": []},
    {"task_id": 7},
    {"task_id": " "},
    {"task_id": "t", "calls": {"f": {}}},
    {"task_id": "t", "calls": [{"f": {"x": "a"}}]},
    {"task_id": "t", "calls": [{"f": {"x": []}}]},
    {"task_id": "t", "calls": [{"f": {}, "g": {}}]},
    {"task_id": "t", "calls": [{}]},
    {"task_id": "t", "calls": [{"f": [1]}]},
    {"task_id": "t", "taskid": "x"},
    {"task_id": "t", "turns": [{"f": {}}]},
    {"task_id": "t", "calls": [], "turns": []},
    {"task_id": "t", "ordered": "yes"},
    {"task_id": "t", "value": 0},
    {"task_id": "t", "value": -3},
    {"task_id": "t", "slice": 3},
    {"task_id": "t", "meta": []},
    {"task_id": "t", "tools": {}},
    {"task_id": "t", "tools": [{"description": "no name"}]},
    {"task_id": "t", "tools": [{"name": ""}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": []}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": {"type": "string"}}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": {"properties": {"a": {"importance": -1}}}}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": {"properties": {"a": {"type": 3}}}}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": {"properties": {"a": {"enum": "x"}}}}]},
    {"task_id": "t", "tools": [{"name": "f", "parameters": {"required": "a"}}]},
    {"task_id": "t", "tools": [{"name": "f", "destructive": "yes"}]},
    {"task_id": "t", "tools": [{"name": "f", "importance": -1}]},
    {"task_id": "t", "tools": [{"name": "f", "colour": "red"}]},
    {"task_id": "t", "tools": [{"type": "tool", "name": "f"}]},
    {"task_id": "t", "tools": [{"type": "function", "function": {"name": "f", "params": {}}}]},
    {"task_id": "t", "tools": [{"type": "function", "function": []}]},
    {"task_id": "t", "ignore_tools": "final_answer"},
    {"task_id": "t", "ignore_tools": [""]},
    {"task_id": "t", "ignore_tools": [3]},
    {"task_id": "t", "ignore_tools": ["*"]},
    {"task_id": "t", "ignore_tools": [" ** "]},
    {"task_id": "t", "calls": [{"f": {"x": {"any": False}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"regex": 3}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"regex": "a", "any": True}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"number": 1, "abs_tol": -1}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"number": "1"}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"any": True, "abs_tol": 1}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"contains": ""}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"exact": [1]}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"regx": "a"}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"any": True, "optional": "yes"}}}]},
    {"task_id": "t", "calls": [{"f": {"x": {"exact": "a", "case_sensitive": True}}}]},
    {"task_id": "t", "calls": [{"f": {}, "optional": "yes"}]},
    {"task_id": "t", "calls": [{"optional": True}]},
    {"task_id": "t", "calls": [{"f": {}, "g": {}, "optional": True}]},
    {"task_id": "t", "alternatives": [[{"f": {}}]]},
    {"task_id": "t", "alternatives": [[{"f": {}}], {"g": {}}]},
    {"task_id": "t", "alternatives": [[], []], "calls": []},
    {"task_id": "t", "answer": "Paris"},
    {"task_id": "t", "match": "any_order"},
    {"task_id": "t", "match": True},
    {"task_id": "t", "args": "loose"},
    {"task_id": "t", "args_by_tool": {"f": "names"}},
    {"task_id": "t", "args_by_tool": ["f"]},
    {"task_id": "t", "forbid": "delete_*"},
    {"task_id": "t", "forbid": [""]},
    {"task_id": "t", "forbid": [3]},
    {"task_id": "t", "max_calls": {"search": -1}},
    {"task_id": "t", "max_calls": {"search": "3"}},
    {"task_id": "t", "max_calls": {"search": True}},
    {"task_id": "t", "max_calls": 3},
    {"task_id": "t", "no_repeat": "yes"},
    {"task_id": "t", "calls": [{"f": {}, "args": "loose"}]},
    {"task_id": "t", "calls": [{"f": {}, "agent": ""}]},
    {"task_id": "t", "calls": [{"args": "ignore"}]},
    {"task_id": "t", "calls": [{"f": {}, "g": {}, "args": "ignore"}]},
    {"task_id": "t", "answer": []},
    [],
    "task",
]


@pytest.mark.parametrize("task", STRUCTURALLY_BAD, ids=lambda t: json.dumps(t)[:50])
def test_both_checks_refuse_structural_problems(task):
    assert task_problems(task), "the hand checks accept it"
    assert list(VALIDATOR.iter_errors(task)), "the JSON Schema accepts it"


def test_rule_checks_only_the_hand_checks_can_make():
    """A regular expression that does not compile and a range upside down: JSON Schema
    cannot say so; the hand checks name the problem."""
    bad_regex = {"task_id": "t", "calls": [{"f": {"x": {"regex": "A-("}}}]}
    assert list(VALIDATOR.iter_errors(bad_regex)) == []
    assert task_problems(bad_regex) == [
        "calls[0].f.x: bad regular expression 'A-(': missing ), unterminated subpattern at position 2"]
    upside_down = {"task_id": "t", "answer": {"min": 5, "max": 1}}
    assert task_problems(upside_down) == ["answer: min (5) is greater than max (1)"]


def test_a_tool_named_optional_is_still_a_tool():
    task = {"task_id": "t", "calls": [{"optional": {"x": [1]}}, {"optional": {}, "optional ": {}}]}
    assert task_problems(task)[0].startswith("calls[1] must have exactly one key")
    good = {"task_id": "t", "calls": [{"optional": {"x": [1]}}]}
    assert task_problems(good) == [] and list(VALIDATOR.iter_errors(good)) == []


def test_match_keys_pass_both_checks_and_markers_are_not_tools():
    task = {"task_id": "t", "match": "superset", "ordered": True, "args": "subset",
            "args_by_tool": {"f": "ignore"}, "forbid": ["delete_*"], "max_calls": {"f": 2, "*": 5},
            "no_repeat": True,
            "calls": [{"f": {"x": [1]}, "args": "superset", "agent": "billing", "optional": True},
                      {"args": {"x": [1]}}, {"agent": {}, "args": "exact"}]}
    assert task_problems(task) == [] and list(VALIDATOR.iter_errors(task)) == []


def test_each_bad_match_key_is_one_clear_line():
    cases = {
        "match": ("any_order", 'match must be one of "exact", "superset", "subset", got "any_order"'),
        "args": ("loose", 'args must be one of "exact", "ignore", "subset", "superset", got "loose"'),
        "no_repeat": ("yes", 'no_repeat must be true or false, got "yes"'),
        "max_calls": ({"f": 1.5}, "max_calls.f must be a whole number >= 0, got 1.5"),
        "forbid": ("f", 'forbid must be a list of tool names, e.g. ["delete_*"], got "f"'),
    }
    for key, (value, line) in cases.items():
        assert task_problems({"task_id": "t", key: value}) == [line]
    assert task_problems({"task_id": "t", "calls": [{"delete_user": {}}], "forbid": ["delete_*"]}) == [
        "calls[0]: the task expects a call to 'delete_user', which forbid 'delete_*' forbids"]
    assert task_problems({"task_id": "t", "calls": [{"f": {}}, {"f": {}}], "max_calls": {"*": 1}}) == [
        "max_calls.* is 1, but the task expects 2 calls"]


def test_cross_checks_are_hand_only():
    """Calls against tools cannot be said in JSON Schema; the hand checks do them."""
    task = {"task_id": "t", "calls": [{"g": {}}], "tools": [{"name": "f"}]}
    assert list(VALIDATOR.iter_errors(task)) == []
    assert task_problems(task) == ["calls[0]: tool 'g' is not among the task's tools"]


def test_every_problem_of_a_task_is_reported():
    problems = task_problems({"taskid": "x", "value": 0, "ordered": 1})
    assert problems == [
        "unknown key 'taskid' (did you mean 'task_id'?)",
        "task_id is missing",
        "ordered must be true or false, got 1",
        "value must be a number > 0, got 0",
    ]


def test_parameters_without_properties_allow_any_argument():
    task = {"task_id": "t", "calls": [{"f": {"x": [1]}}], "tools": [{"name": "f", "parameters": {"type": "object"}}]}
    assert task_problems(task) == []


def test_parameters_with_empty_properties_allow_no_argument():
    task = {"task_id": "t", "calls": [{"f": {"x": [1]}}], "tools": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}]}
    assert task_problems(task) == ["calls[0].f: argument 'x' is not in the tool's parameters"]


def test_nested_tool_with_importance_on_both_levels_is_refused():
    tool = {"type": "function", "function": {"name": "f", "importance": 2}, "importance": 3}
    assert tool_problems(tool, "tools[0]") == ["tools[0]: importance is given twice (outside and inside 'function')"]


def test_normalize_tool_moves_outer_flags_inside():
    assert normalize_tool({"type": "function", "function": {"name": "f"}, "importance": 2}) == {"name": "f", "importance": 2}


def test_helpers():
    assert did_you_mean("slise", TASK_KEYS) == " (did you mean 'slice'?)"
    assert json_type_name(1.5) == "number"
    assert json_type_name("x") == "string"


def test_ignore_tools_is_valid_in_both_checks():
    task = {"task_id": "t", "calls": [{"search": {}}], "ignore_tools": ["final_answer", "transfer_to_*"]}
    assert task_problems(task) == []
    assert list(VALIDATOR.iter_errors(task)) == []


def test_ignore_tools_that_remove_an_expected_call_are_refused_by_the_hand_checks():
    task = {"task_id": "t", "turns": [[{"search": {}}], [{"transfer_to_billing": {}}]],
            "ignore_tools": ["transfer_to_*"]}
    assert task_problems(task) == [
        "turns[1][0]: the task expects a call to 'transfer_to_billing', which ignore_tools "
        "'transfer_to_*' removes from every run"]
