"""Gold task files: reading the three forms, line numbers in errors, the dict round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel import AnyOf, FieldSpec, GoldFileError, TaskSpec, ToolSpec
from ek_otel.gold.native import (
    dump_tasks,
    load_tasks,
    task_from_dict,
    task_to_dict,
    tool_from_dict,
    tool_to_dict,
    validate_file,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks.jsonl"

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    },
}
GOOD = {"task_id": "w1", "calls": [{"get_weather": {"city": ["Paris"], "unit": ["c", ""]}}], "tools": [WEATHER_TOOL]}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


# ---------------------------------------------------------------------------
# Mapping to TaskSpec
# ---------------------------------------------------------------------------


def test_calls_become_gold_pairs_with_anyof_values():
    task = task_from_dict(GOOD)
    assert task.gold == (("get_weather", {"city": AnyOf(("Paris",)), "unit": AnyOf(("c", ""))}),)
    assert task.gold[0][1]["unit"].optional


def test_tools_become_toolspecs_with_fieldspecs():
    tool = task_from_dict(GOOD).tool("get_weather")
    assert tool.description == "Current weather."
    assert tool.params["city"] == FieldSpec(
        "city", "string", required=True, schema={"type": "string"}
    )
    assert tool.params["unit"].domain == ("c", "f")
    assert tool.params["unit"].required is False
    assert tool.schema == WEATHER_TOOL["parameters"]


def test_importance_and_destructive_drive_the_grammar():
    task = task_from_dict(
        {
            "task_id": "r",
            "calls": [{"refund": {"amount": [10]}}],
            "tools": [
                {
                    "name": "refund",
                    "destructive": True,
                    "parameters": {"type": "object", "properties": {"amount": {"type": "number", "importance": 20}}},
                },
                {"name": "note", "importance": 0.5},
            ],
        }
    )
    grammar = task.grammar()
    assert grammar.node_cost("refund") == 10.0
    assert grammar.field_cost("refund", "amount") == 20.0
    assert grammar.node_cost("note") == 0.5


def test_openai_nested_tool_shape_is_accepted():
    nested = {
        "type": "function",
        "function": {"name": "get_weather", "description": "Current weather.", "parameters": WEATHER_TOOL["parameters"], "strict": True},
    }
    assert tool_from_dict(nested) == tool_from_dict(WEATHER_TOOL)
    assert tool_to_dict(tool_from_dict(nested)) == WEATHER_TOOL


def test_bfcl_dict_type_parameters_are_accepted():
    tool = tool_from_dict({"name": "math.factorial", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}, "required": ["n"]}})
    assert tool.params["n"].type == "integer" and tool.params["n"].required


def test_turns_give_per_turn_gold_and_flat_gold():
    task = task_from_dict({"task_id": "m", "turns": [[{"a": {"x": [1]}}], [], [{"b": {}}]]})
    assert task.turns == ((("a", {"x": AnyOf((1,))}),), (), (("b", {}),))
    assert task.gold == (("a", {"x": AnyOf((1,))}), ("b", {}))


def test_defaults():
    task = task_from_dict({"task_id": "t"})
    assert (task.gold, task.value, task.tools, task.slice, task.ordered, task.turns, task.meta) == ((), 1.0, (), None, False, None, {})


def test_task_from_dict_names_path_and_line():
    with pytest.raises(GoldFileError) as info:
        task_from_dict({"calls": []}, path="g.jsonl", line=4)
    assert str(info.value) == "g.jsonl:4: task_id is missing"
    assert (info.value.path, info.value.line) == ("g.jsonl", 4)


def test_task_to_dict_renders_plain_gold_values_as_one_element_lists():
    assert task_to_dict(TaskSpec("t", gold=[("f", {"x": 3})]))["calls"] == [{"f": {"x": [3]}}]


def test_tool_to_dict_rebuilds_parameters_of_a_toolspec_built_in_code():
    tool = ToolSpec("f", params={"a": FieldSpec("a", "string", importance=2.0, domain=("x",), required=True)})
    assert tool_from_dict(tool_to_dict(tool)).params["a"].importance == 2.0
    assert tool_from_dict(tool_to_dict(tool)).params["a"].domain == ("x",)


# ---------------------------------------------------------------------------
# Round trip (hypothesis)
# ---------------------------------------------------------------------------

NAMES = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)), max_leaves=6)
FINITE = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))
TOLERANCE = st.one_of(st.integers(1, 10), st.floats(0.001, 10))
RULE_BODIES = st.one_of(
    st.just({"any": True}),
    st.sampled_from(["A-[0-9]+", "[0-9]{4}-[0-9]{2}-[0-9]{2}T.*", "(?i)paris", "x|y"]).map(lambda r: {"regex": r}),
    st.builds(lambda n: {"number": n}, FINITE),
    st.builds(lambda n, t: {"number": n, "abs_tol": t}, FINITE, TOLERANCE),
    st.builds(lambda n, t: {"number": n, "rel_tol": t}, FINITE, st.floats(0.001, 0.5)),
    st.builds(lambda lo, width: {"min": lo, "max": lo + width}, st.integers(-100, 100), st.integers(0, 50)),
    st.builds(lambda lo: {"min": lo}, FINITE),
    st.builds(lambda hi: {"max": hi}, FINITE),
    st.builds(lambda v: {"exact": v}, SCALARS),
    st.builds(lambda t: {"contains": t}, st.text(min_size=1, max_size=8)),
    st.builds(lambda t: {"contains": t, "case_sensitive": True}, st.text(min_size=1, max_size=8)),
)
RULES = st.builds(lambda body, optional: {**body, "optional": True} if optional else body,
                  RULE_BODIES, st.booleans())
GOLD_VALUES = st.one_of(st.lists(JSON, min_size=1, max_size=3), RULES)
CALL_ARGS = st.dictionaries(NAMES, GOLD_VALUES, max_size=3)
ARG_MODES = st.sampled_from(["ignore", "subset", "superset", "exact"])


def _call(tool, args, optional, mode, agent):
    call = {tool: args}
    if optional:
        call["optional"] = True
    if mode is not None:
        call["args"] = mode
    if agent is not None:
        call["agent"] = agent
    return call


CALL_LIST = st.lists(st.builds(_call, NAMES, CALL_ARGS, st.booleans(), st.one_of(st.none(), ARG_MODES),
                               st.one_of(st.none(), st.sampled_from(["planner", "billing"]))),
                     max_size=3)


def _tool_of(call: dict) -> tuple:
    ((name, args),) = ((k, v) for k, v in call.items() if k not in ("optional", "args", "agent"))
    return name, args


@st.composite
def canonical_tasks(draw):
    task: dict = {"task_id": draw(st.text(min_size=1, max_size=10).filter(str.strip))}
    if draw(st.booleans()):
        task["input"] = draw(JSON.filter(lambda v: v is not None))
    form = draw(st.sampled_from(["calls", "turns", "alternatives"]))
    if form == "turns":
        task["turns"] = draw(st.lists(CALL_LIST, max_size=3))
        calls = [c for turn in task["turns"] for c in turn]
    elif form == "alternatives":
        task["alternatives"] = draw(st.lists(CALL_LIST, min_size=2, max_size=3))
        calls = [c for alt in task["alternatives"] for c in alt]
    else:
        task["calls"] = calls = draw(CALL_LIST)
    if draw(st.booleans()):
        task["ordered"] = True
    if draw(st.booleans()):
        tools: dict[str, dict] = {}
        for call in calls:
            name, args = _tool_of(call)
            tool = tools.setdefault(name, {"name": name, "parameters": {"type": "object", "properties": {}}})
            for arg in args:
                prop: dict = {"type": draw(st.sampled_from(["string", "number", "array", "dict"]))}
                if draw(st.booleans()):
                    prop["importance"] = draw(st.floats(0, 100))
                tool["parameters"]["properties"][arg] = prop
        for tool in tools.values():
            if draw(st.booleans()):
                tool["destructive"] = True
            if draw(st.booleans()):
                tool["importance"] = draw(st.floats(0, 50))
            if draw(st.booleans()):
                tool["description"] = draw(st.text(min_size=1, max_size=10))
        extra = draw(NAMES)
        if extra not in tools:
            tools[extra] = {"name": extra}
        task["tools"] = list(tools.values())
    if draw(st.booleans()):
        task["slice"] = draw(st.text(max_size=6))
    if draw(st.booleans()):
        task["value"] = draw(st.floats(min_value=0.001, max_value=1e6).filter(lambda v: v != 1.0))
    if draw(st.booleans()):
        task["meta"] = draw(st.dictionaries(st.text(max_size=4), JSON, min_size=1, max_size=3))
    if draw(st.booleans()):
        called = {_tool_of(call)[0] for call in calls}
        ignored = draw(st.lists(NAMES.filter(lambda n: n not in called), min_size=1, max_size=2,
                                unique=True))
        if ignored:
            task["ignore_tools"] = ignored
    if draw(st.booleans()):
        task["answer"] = draw(GOLD_VALUES)
    if draw(st.booleans()):
        task["match"] = draw(st.sampled_from(["superset", "subset"]))
    if draw(st.booleans()):
        task["args"] = draw(st.sampled_from(["ignore", "subset", "superset"]))
    if draw(st.booleans()):
        task["args_by_tool"] = draw(st.dictionaries(NAMES, ARG_MODES, min_size=1, max_size=2))
    if draw(st.booleans()):
        called = {_tool_of(call)[0] for call in calls}
        forbid = draw(st.lists(NAMES.filter(lambda n: n not in called), min_size=1, max_size=2,
                               unique=True))
        if forbid:
            task["forbid"] = forbid
    if draw(st.booleans()):
        task["max_calls"] = {"*": len(calls) + draw(st.integers(0, 3))}
    if draw(st.booleans()):
        task["no_repeat"] = True
    return task


@settings(max_examples=100, deadline=None)
@given(canonical_tasks())
def test_round_trip_dict_task_dict(obj):
    task = task_from_dict(obj)
    assert task_to_dict(task) == obj
    assert task_from_dict(task_to_dict(task)) == task


@settings(max_examples=25, deadline=None)
@given(st.lists(canonical_tasks(), min_size=1, max_size=4, unique_by=lambda t: t["task_id"]), st.sampled_from(["g.jsonl", "g.json", "g.yaml"]))
def test_round_trip_through_files(tmp_path_factory, objs, name):
    path = tmp_path_factory.mktemp("rt") / name
    tasks = [task_from_dict(o) for o in objs]
    dump_tasks(tasks, path)
    assert load_tasks(path) == tasks


# ---------------------------------------------------------------------------
# The three file forms
# ---------------------------------------------------------------------------


def test_jsonl_skips_blank_and_comment_lines(tmp_path):
    path = write(tmp_path, "g.jsonl", "# header\n\n" + jsonl(GOOD) + "   # indented comment\n" + jsonl({"task_id": "w2"}))
    assert [t.task_id for t in load_tasks(path)] == ["w1", "w2"]


def test_json_array_and_yaml_give_the_same_tasks(tmp_path):
    objs = [GOOD, {"task_id": "w2", "calls": [], "slice": "irrelevance"}]
    from_jsonl = load_tasks(write(tmp_path, "g.jsonl", jsonl(*objs)))
    from_array = load_tasks(write(tmp_path, "g.json", json.dumps(objs, indent=2)))
    import yaml

    from_yaml = load_tasks(write(tmp_path, "g.yaml", yaml.safe_dump(objs)))
    assert from_jsonl == from_array == from_yaml
    assert len(from_jsonl) == 2


def test_examples_file_loads():
    tasks = load_tasks(EXAMPLES)
    assert len(tasks) >= 3
    assert any(not t.gold for t in tasks), "an irrelevance task"
    assert any(tool.destructive for t in tasks for tool in t.tools)


# ---------------------------------------------------------------------------
# Errors name the file and the line
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad_line", [1, 2, 5])
def test_jsonl_error_names_the_line(tmp_path, bad_line):
    lines = [json.dumps({"task_id": f"t{i}"}) for i in range(1, 6)]
    lines[bad_line - 1] = json.dumps({"task_id": f"t{bad_line}", "calls": [{"f": {"x": 1}}]})
    path = write(tmp_path, "g.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(GoldFileError) as info:
        load_tasks(path)
    assert info.value.line == bad_line
    assert str(info.value).startswith(f"{path}:{bad_line}: calls[0].f.x: the allowed values must be a list")


@pytest.mark.parametrize(
    "task, message",
    [
        ({"calls": []}, "task_id is missing"),
        ({"task_id": 7}, "task_id must be a string, got 7"),
        ({"task_id": "t", "calls": {"f": {}}}, "calls must be a list of calls"),
        ({"task_id": "t", "calls": [{"f": {"x": "a"}}]}, "calls[0].f.x: the allowed values must be a list"),
        ({"task_id": "t", "calls": [{"f": {"x": []}}]}, "calls[0].f.x: the allowed values list is empty"),
        ({"task_id": "t", "calls": [{"f": {}, "g": {}}]}, "calls[0] must have exactly one key"),
        ({"task_id": "t", "calls": [{"f": [1]}]}, "calls[0].f: the arguments must be an object"),
        ({"task_id": "t", "taskid": "x"}, "unknown key 'taskid' (did you mean 'task_id'?)"),
        ({"task_id": "t", "tools": [{"name": "f", "parameters": []}]}, "tools[0] (f): parameters must be a JSON-schema object"),
        ({"task_id": "t", "calls": [{"g": {}}], "tools": [{"name": "f"}]}, "calls[0]: tool 'g' is not among the task's tools"),
        ({"task_id": "t", "calls": [{"get_weather": {"cty": ["x"]}}], "tools": [WEATHER_TOOL]}, "argument 'cty' is not in the tool's parameters (did you mean 'city'?)"),
        ({"task_id": "t", "turns": [[{"get_wether": {}}]], "tools": [WEATHER_TOOL]}, "turns[0][0]: tool 'get_wether' is not among the task's tools (did you mean 'get_weather'?)"),
        ({"task_id": "t", "calls": [], "turns": []}, "give either calls or turns, not both"),
        ({"task_id": "t", "value": 0}, "value must be a number > 0, got 0"),
        ({"task_id": "t", "value": True}, "value must be a number > 0"),
        ({"task_id": "t", "ordered": "yes"}, 'ordered must be true or false, got "yes"'),
        ({"task_id": "t", "meta": []}, "meta must be an object"),
        ({"task_id": "t", "tools": [{"name": "f"}, {"name": "f"}]}, "tools[1]: duplicate tool name 'f' (also tools[0])"),
        ({"task_id": "t", "tools": [{"description": "x"}]}, "tools[0]: the tool has no name"),
        ({"task_id": "t", "tools": [{"name": "f", "destructive": "yes"}]}, "destructive must be true or false"),
        ({"task_id": "t", "tools": [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"importance": -1}}}}]}, "argument 'a': importance must be a number >= 0"),
        ({"task_id": "t", "tools": [{"name": "f", "parameters": {"properties": {}, "required": ["a"]}}]}, "required argument 'a' is not among the properties"),
        ("just a string", "a task must be a JSON object, got string"),
        ({"task_id": "t", "ignore_tools": "final_answer"}, 'ignore_tools must be a list of tool names, e.g. ["final_answer"], got string'),
        ({"task_id": "t", "ignore_tools": ["think", 3]}, "ignore_tools[1]: a tool name must be a non-empty string, got 3"),
        ({"task_id": "t", "ignore_tools": ["*"]}, "ignore_tools[0]: '*' would ignore every call"),
        ({"task_id": "t", "calls": [{"final_answer": {}}], "ignore_tools": ["final_*"]}, "calls[0]: the task expects a call to 'final_answer', which ignore_tools 'final_*' removes from every run"),
    ],
)
def test_each_problem_is_refused_with_file_line_and_message(tmp_path, task, message):
    path = write(tmp_path, "g.jsonl", jsonl({"task_id": "ok"}) + "# comment\n" + jsonl(task))
    with pytest.raises(GoldFileError) as info:
        load_tasks(path)
    assert str(info.value).startswith(f"{path}:3: ")
    assert message in str(info.value)


def test_invalid_json_line(tmp_path):
    path = write(tmp_path, "g.jsonl", jsonl({"task_id": "a"}) + '{"task_id": "b", }\n')
    with pytest.raises(GoldFileError, match=r"g\.jsonl:2: invalid JSON: "):
        load_tasks(path)


def test_duplicate_task_id_names_both_lines(tmp_path):
    path = write(tmp_path, "g.jsonl", jsonl({"task_id": "a"}, {"task_id": "b"}) + "\n" + jsonl({"task_id": "a"}))
    with pytest.raises(GoldFileError) as info:
        load_tasks(path)
    assert str(info.value) == f"{path}:4: duplicate task_id 'a' (first on line 1)"


def test_json_array_error_names_the_line_where_the_task_starts(tmp_path):
    text = '[\n  {"task_id": "a"},\n  {\n    "task_id": "b",\n    "value": -2\n  }\n]\n'
    with pytest.raises(GoldFileError) as info:
        load_tasks(write(tmp_path, "g.json", text))
    assert info.value.line == 3 and "value must be a number > 0" in str(info.value)


def test_json_array_syntax_error_names_its_line(tmp_path):
    text = '[\n  {"task_id": "a"},\n  {"task_id": "b"}\n  {"task_id": "c"}\n]\n'
    with pytest.raises(GoldFileError) as info:
        load_tasks(write(tmp_path, "g.json", text))
    assert info.value.line == 4 and "expected ',' or ']'" in str(info.value)


def test_yaml_error_names_the_line_where_the_task_starts(tmp_path):
    text = "- task_id: a\n  calls: []\n\n- task_id: b\n  calls:\n    - f: {x: 1}\n"
    with pytest.raises(GoldFileError) as info:
        load_tasks(write(tmp_path, "g.yaml", text))
    assert info.value.line == 4 and "calls[0].f.x: the allowed values must be a list" in str(info.value)


def test_yaml_syntax_error_names_its_line(tmp_path):
    text = "- task_id: a\n- task_id: b\n  calls: [\n"
    with pytest.raises(GoldFileError) as info:
        load_tasks(write(tmp_path, "g.yaml", text))
    assert info.value.line is not None and info.value.line >= 3
    assert "invalid YAML" in str(info.value)


def test_yaml_top_level_must_be_a_list(tmp_path):
    with pytest.raises(GoldFileError, match="must be a list of tasks"):
        load_tasks(write(tmp_path, "g.yml", "task_id: a\n"))


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "[]"])
def test_a_file_without_tasks_is_refused(tmp_path, text):
    with pytest.raises(GoldFileError, match="the file holds no tasks"):
        load_tasks(write(tmp_path, "g.jsonl", text))


def test_missing_file(tmp_path):
    with pytest.raises(GoldFileError, match="no such file"):
        load_tasks(tmp_path / "absent.jsonl")


def test_validate_collects_every_error_and_keeps_good_tasks(tmp_path):
    path = write(
        tmp_path,
        "g.jsonl",
        jsonl({"task_id": "a"}, {"task_id": "b", "cals": [], "value": -1}, {"task_id": "a"}) + "{oops\n",
    )
    result = validate_file(path)
    assert not result.ok
    assert [t.task_id for t in result.tasks] == ["a"]
    assert [(e.line, e.message.split(" ")[0]) for e in result.errors] == [(2, "unknown"), (2, "value"), (3, "duplicate"), (4, "invalid")]


@pytest.mark.parametrize(
    "name, text, line",
    [
        ("g.jsonl", '{"task_id": "a"}\n{"task_id": "b", "calls": [], "calls": [{"f": {}}]}\n', 2),
        ("g.json", '[\n {"task_id": "a"},\n {"task_id": "b",\n  "tools": [{"name": "f", "name": "g"}]}\n]\n', 3),
        ("g.yaml", "- task_id: a\n- task_id: b\n  calls: []\n  calls: []\n", 4),
    ],
)
def test_a_repeated_key_is_refused_not_silently_overwritten(tmp_path, name, text, line):
    with pytest.raises(GoldFileError) as info:
        load_tasks(write(tmp_path, name, text))
    assert info.value.line == line
    assert "duplicate key" in str(info.value)


def test_json_array_reports_every_duplicate_key_task_and_goes_on(tmp_path):
    text = '[\n {"task_id": "a", "task_id": "b"},\n {"task_id": "c", "value": 0}\n]\n'
    result = validate_file(write(tmp_path, "g.json", text))
    assert [(e.line, e.message.split(" ")[0]) for e in result.errors] == [(2, "duplicate"), (3, "value")]


def test_crlf_and_byte_order_mark_are_tolerated(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"task_id": "a"}\r\n{"task_id": "b"}\r\n')
    assert [t.task_id for t in load_tasks(path)] == ["a", "b"]


def test_yaml_plain_scalars_mean_what_they_mean_in_json(tmp_path):
    """YAML 1.1 would turn these into a date, 750, True and 83: gold no model could match."""
    path = tmp_path / "g.yaml"
    path.write_text("- task_id: flight\n"
                    "  calls:\n"
                    "    - search: {date: [2026-12-20], at: [12:30], ok: [yes], code: [0123],\n"
                    "               n: [7], x: [0.5], flag: [true], opt: ['', null]}\n")
    (task,) = load_tasks(path)
    ((_, args),) = task.gold
    assert {k: v.values for k, v in args.items()} == {
        "date": ("2026-12-20",), "at": ("12:30",), "ok": ("yes",), "code": ("0123",),
        "n": (7,), "x": (0.5,), "flag": (True,), "opt": ("", None)}
    dump_tasks([task], tmp_path / "again.yaml")  # and they survive a round trip
    assert load_tasks(tmp_path / "again.yaml") == [task]


def test_yaml_words_are_not_booleans_in_typed_keys(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("- task_id: t\n  ordered: yes\n")
    with pytest.raises(GoldFileError, match=r'g.yaml:1: ordered must be true or false, got "yes"'):
        load_tasks(path)


def test_ignore_tools_round_trip_and_reach_the_task(tmp_path):
    path = write(tmp_path, "g.yaml", "- task_id: t\n  calls: [{search: {}}]\n"
                                     "  ignore_tools: [final_answer, transfer_to_*]\n")
    (task,) = load_tasks(path)
    assert task.ignore_tools == ("final_answer", "transfer_to_*")
    assert task_to_dict(task)["ignore_tools"] == ["final_answer", "transfer_to_*"]


def test_a_bad_ignore_tools_in_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "g.yaml", "- task_id: ok\n- task_id: t\n  ignore_tools: [\"\"]\n")
    with pytest.raises(GoldFileError) as info:
        load_tasks(path)
    assert str(info.value) == f'{path}:2: ignore_tools[0]: a tool name must be a non-empty string, got ""'
