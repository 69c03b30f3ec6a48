"""``ek-otel bfcl`` and ``ek-otel gold from-bfcl`` on a small BFCL-shaped data set."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.gold.native import load_tasks

DOC = {"name": "get_weather", "description": "Weather of a city.",
       "parameters": {"type": "dict", "required": ["city"],
                      "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def data_dir(tmp_path):
    data = tmp_path / "data"
    (data / "possible_answer").mkdir(parents=True)
    questions, answers = [], []
    for i in range(3):
        questions.append({"id": f"simple_python_{i}", "function": [DOC],
                          "question": [[{"role": "user", "content": f"weather {i}"}]]})
        answers.append({"id": f"simple_python_{i}",
                        "ground_truth": [{"get_weather": {"city": ["Paris"], "days": ["", 3]}}]})
    _write_jsonl(data / "BFCL_v4_simple_python.json", questions)
    _write_jsonl(data / "possible_answer" / "BFCL_v4_simple_python.json", answers)
    _write_jsonl(data / "BFCL_v4_irrelevance.json",
                 [{"id": "irrelevance_0", "function": [DOC], "question": [[]]}])
    return data


@pytest.fixture
def result_dir(tmp_path):
    model = tmp_path / "result" / "my-model" / "non_live"
    model.mkdir(parents=True)
    _write_jsonl(model / "BFCL_v4_simple_python_result.json", [
        {"id": "simple_python_2", "result": "[get_weather(city='paris', days=4)]"},
        {"id": "simple_python_0", "result": "[get_weather(city='Paris')]"},
        {"id": "simple_python_1", "result": "[get_weather(city='Paris', days=3)]"},
    ])
    _write_jsonl(model / "BFCL_v4_irrelevance_result.json",
                 [{"id": "irrelevance_0", "result": "I cannot help with that."}])
    return tmp_path / "result"


def test_bfcl_scores_a_result_directory(data_dir, result_dir, tmp_path):
    out = tmp_path / "verdicts.json"
    scores = tmp_path / "score"
    run = CliRunner().invoke(cli, ["bfcl", str(result_dir), "--data", str(data_dir),
                                   "--json", str(out), "--score-dir", str(scores)])
    assert run.exit_code == 0, run.output
    assert "simple_python" in run.output and "2/3" in run.output
    report = json.loads(out.read_text())
    assert report["categories"]["simple_python"] == {
        "accuracy": 2 / 3, "correct_count": 2, "total_count": 3}
    assert report["categories"]["irrelevance"]["correct_count"] == 1
    failed = [e for e in report["entries"] if not e["valid"]]
    assert failed == [{"id": "simple_python_2", "category": "simple_python", "valid": False,
                       "error_type": "value_error:others"}]
    lines = (scores / "my-model" / "non_live" / "BFCL_v4_simple_python_score.json").read_text().splitlines()
    assert json.loads(lines[0])["correct_count"] == 2
    assert list(json.loads(lines[1])) == ["id", "model_name", "test_category", "valid", "error",
                                          "error_type", "prompt", "model_result_raw",
                                          "model_result_decoded", "possible_answer"]


@pytest.mark.parametrize("columns", ["80", "30"])
def test_the_tables_are_what_rich_prints_without_rich(data_dir, result_dir, monkeypatch, columns):
    """The plain tables (no rich import) print what rich prints, and rich prints when they
    cannot (COLUMNS=30: the table does not fit)."""
    from ek_otel.cli import bfcl as bfcl_module

    monkeypatch.setenv("COLUMNS", columns)
    args = ["bfcl", str(result_dir), "--data", str(data_dir)]
    plain = CliRunner().invoke(cli, args)
    monkeypatch.setattr(bfcl_module, "plain_text", lambda tables, stream: None)
    with_rich = CliRunner().invoke(cli, args)
    assert plain.exit_code == with_rich.exit_code == 0
    assert plain.output == with_rich.output
    assert "BFCL v4: my-model" in plain.output and "2/3" in plain.output
    assert ("correct/total" in plain.output) == (columns == "80")  # 30: rich folds the header


def test_a_plain_run_imports_neither_rich_nor_tree_sitter(data_dir, result_dir):
    """Piped output, function-calling results: no rich (plain tables), no tree-sitter (no
    Java/JavaScript text to parse)."""
    import subprocess
    import sys

    code = ("import sys\nfrom ek_otel.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'tree_sitter')),"
            " file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, "bfcl", str(result_dir), "--data",
                           str(data_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "BFCL v4: my-model" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_missing_data_is_one_line_and_exit_2(result_dir, tmp_path):
    run = CliRunner().invoke(cli, ["bfcl", str(result_dir), "--data", str(tmp_path / "none")])
    assert run.exit_code == 2
    assert run.output.count("\n") == 1 and "pip install --no-deps bfcl-eval" in run.output


def test_result_ids_absent_from_the_data_are_an_error(data_dir, tmp_path):
    result = tmp_path / "BFCL_v4_simple_python_result.json"
    _write_jsonl(result, [{"id": "simple_python_99", "result": []}])
    run = CliRunner().invoke(cli, ["bfcl", str(result), "--data", str(data_dir)])
    assert run.exit_code == 2 and "simple_python_99" in run.output


def test_gold_from_bfcl_writes_loadable_tasks(data_dir, tmp_path):
    out = tmp_path / "gold.jsonl"
    run = CliRunner().invoke(cli, ["gold", "from-bfcl", "--data", str(data_dir), "--category",
                                   "simple_python", "--category", "irrelevance", "--out", str(out)])
    assert run.exit_code == 0, run.output
    tasks = load_tasks(out)
    assert [t.task_id for t in tasks] == ["simple_python_0", "simple_python_1", "simple_python_2",
                                          "irrelevance_0"]
    assert tasks[0].tools[0].schema["type"] == "dict"
    assert tasks[0].meta["bfcl_category"] == "simple_python" and tasks[3].gold == ()


@pytest.mark.parametrize("style_option, error_0, error_1", [
    ([], None, "ast_decoder:decoder_failed"),  # a call list makes the model function-calling
    (["--style", "fc"], None, "ast_decoder:decoder_failed"),
    (["--style", "prompting"], "ast_decoder:decoder_failed", None),
])
def test_a_text_result_of_a_function_calling_model_is_not_parsed_as_calls(
        data_dir, tmp_path, style_option, error_0, error_1):
    # The official runner decodes with the model's handler: a function-calling model's
    # text answer never decodes, even when it reads like a Python call.
    result = tmp_path / "fc-model" / "BFCL_v4_simple_python_result.json"
    result.parent.mkdir()
    _write_jsonl(result, [{"id": "simple_python_0", "result": [{"get_weather": '{"city": "Paris"}'}]},
                          {"id": "simple_python_1", "result": "[get_weather(city='Paris')]"}])
    out = tmp_path / "v.json"
    run = CliRunner().invoke(cli, ["bfcl", str(result), "--data", str(data_dir), "--json", str(out),
                                   *style_option])
    assert run.exit_code == 0, run.output
    entries = {e["id"]: e for e in json.loads(out.read_text())["entries"]}
    assert entries["simple_python_0"]["error_type"] == error_0
    assert entries["simple_python_1"]["error_type"] == error_1


REGISTERED_DOTTED = "gpt-4.1-2025-04-14-FC"  # registered in bfcl_eval with underscore_to_dot


@pytest.mark.parametrize("model, options, error_type", [
    (REGISTERED_DOTTED, [], None),
    (REGISTERED_DOTTED, ["--no-underscore-to-dot"], "simple_function_checker:wrong_func_name"),
    ("my-model", [], "simple_function_checker:wrong_func_name"),
    ("my-model", ["--underscore-to-dot"], None),
])
def test_underscore_to_dot_follows_the_model_registry(tmp_path, model, options, error_type):
    from ek_otel.bfcl.data import BfclData
    from ek_otel.bfcl.models import lookup, model_registry

    traits = lookup(model_registry(BfclData(str(tmp_path))), REGISTERED_DOTTED)
    if traits is None or not traits.underscore_to_dot:
        pytest.skip("bfcl_eval's model registry is not installed")
    data = tmp_path / "data"
    (data / "possible_answer").mkdir(parents=True)
    doc = dict(DOC, name="weather.get")
    _write_jsonl(data / "BFCL_v4_simple_python.json",
                 [{"id": "simple_python_0", "function": [doc], "question": [[]]}])
    _write_jsonl(data / "possible_answer" / "BFCL_v4_simple_python.json",
                 [{"id": "simple_python_0", "ground_truth": [{"weather.get": {"city": ["Paris"]}}]}])
    result = tmp_path / "result" / model / "non_live" / "BFCL_v4_simple_python_result.json"
    result.parent.mkdir(parents=True)
    _write_jsonl(result, [{"id": "simple_python_0", "result": [{"weather_get": '{"city": "Paris"}'}]}])
    out = tmp_path / "v.json"
    run = CliRunner().invoke(cli, ["bfcl", str(tmp_path / "result"), "--data", str(data),
                                   "--json", str(out), *options])
    assert run.exit_code == 0, run.output
    assert json.loads(out.read_text())["entries"][0]["error_type"] == error_type


def test_no_scored_result_file_is_one_line_and_exit_2(data_dir, tmp_path):
    other = tmp_path / "result" / "m"
    other.mkdir(parents=True)
    _write_jsonl(other / "BFCL_v4_format_sensitivity_result.json", [{"id": "x_0", "result": []}])
    run = CliRunner().invoke(cli, ["bfcl", str(tmp_path / "result"), "--data", str(data_dir)])
    assert run.exit_code == 2
    assert run.output.count("\n") == 1 and "_result.json" in run.output


def _multi_turn_result(data_dir, tmp_path):
    _write_jsonl(data_dir / "BFCL_v4_multi_turn_base.json",
                 [{"id": "multi_turn_base_0", "question": [[{"role": "user", "content": "pwd"}]],
                   "function": [], "involved_classes": ["GorillaFileSystem"],
                   "initial_config": {}}])
    _write_jsonl(data_dir / "possible_answer" / "BFCL_v4_multi_turn_base.json",
                 [{"id": "multi_turn_base_0", "ground_truth": [["pwd()"]]}])
    (data_dir / "multi_turn_func_doc").mkdir()
    _write_jsonl(data_dir / "multi_turn_func_doc" / "gorilla_file_system.json",
                 [{"name": "pwd", "description": "Current directory.",
                   "parameters": {"type": "dict", "properties": {}, "required": []}}])
    result = tmp_path / "m" / "BFCL_v4_multi_turn_base_result.json"
    result.parent.mkdir()
    _write_jsonl(result, [{"id": "multi_turn_base_0", "result": [[[{"pwd": "{}"}]]]}])
    return result


def test_multi_turn_without_state_mode_is_one_line_and_exit_2(data_dir, tmp_path, monkeypatch):
    from ek_otel.bfcl import simulator

    missing = ("cannot import bfcl_eval.x (No module named 'mpmath'); install it with "
               "`pip install --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0`")
    monkeypatch.setattr(simulator, "simulator_problem", lambda: missing)
    result = _multi_turn_result(data_dir, tmp_path)
    run = CliRunner().invoke(cli, ["bfcl", str(result), "--data", str(data_dir)])
    assert run.exit_code == 2, run.output
    (line,) = [line for line in run.stderr.splitlines() if line.strip()]
    assert line.startswith("ek-otel: error: multi-turn categories (multi_turn_base) cannot be "
                           "checked in the official state mode")
    assert "mpmath" in line and "--multi-turn ast" in line
    assert run.stdout == ""  # no figure at all rather than an unofficial one unlabelled


def test_multi_turn_in_ast_mode_is_labelled_everywhere(data_dir, tmp_path, monkeypatch):
    from ek_otel.bfcl import simulator

    monkeypatch.setattr(simulator, "simulator_problem", lambda: "no bfcl_eval")
    result = _multi_turn_result(data_dir, tmp_path)
    out, scores, html = tmp_path / "v.json", tmp_path / "score", tmp_path / "p.html"
    run = CliRunner().invoke(cli, ["bfcl", str(result), "--data", str(data_dir), "--multi-turn",
                                   "ast", "--json", str(out), "--score-dir", str(scores),
                                   "--html", str(html)], env={"COLUMNS": "200"})
    assert run.exit_code == 0, run.output
    assert "multi_turn_base (ast mode, not the official figure)" in run.stdout
    assert "Overall (ast mode, not the official figure)" not in run.stdout  # not all scored
    data = json.loads(out.read_text())
    assert data["categories"]["multi_turn_base"]["note"] == "ast mode, not the official figure"
    assert data["not_official"]["figures"] == ["multi_turn_base", "Multi-Turn", "Overall"]
    (score_file,) = scores.rglob("BFCL_v4_multi_turn_base_score.json")
    header = json.loads(score_file.read_text().splitlines()[0])
    assert header == {"accuracy": 1.0, "correct_count": 1, "total_count": 1,
                      "note": "ast mode, not the official figure"}
    page = html.read_text(encoding="utf-8")
    assert "checked with the official BFCL rules" not in page
    assert "multi-turn checked in ast mode, not the official figure" in page
    assert 'data-figure="multi_turn_base" data-unofficial' in page
    assert 'data-figure="Overall" data-unofficial' in page


def test_single_turn_figures_carry_no_label(data_dir, result_dir, tmp_path):
    out = tmp_path / "v.json"
    run = CliRunner().invoke(cli, ["bfcl", str(result_dir), "--data", str(data_dir), "--json",
                                   str(out), "--multi-turn", "ast"])
    assert run.exit_code == 0, run.output
    assert "not the official" not in run.stdout
    data = json.loads(out.read_text())
    assert "not_official" not in data and all("note" not in c for c in data["categories"].values())


def test_a_file_named_twice_is_scored_once_and_two_files_for_one_category_are_an_error(
        data_dir, result_dir, tmp_path):
    inner = result_dir / "my-model" / "non_live" / "BFCL_v4_simple_python_result.json"
    out = tmp_path / "v.json"
    run = CliRunner().invoke(cli, ["bfcl", str(result_dir), str(inner), "--data", str(data_dir),
                                   "--json", str(out)])
    assert run.exit_code == 0, run.output
    assert len(json.loads(out.read_text())["entries"]) == 4
    copy = tmp_path / "again" / "my-model" / inner.name
    copy.parent.mkdir(parents=True)
    copy.write_text(inner.read_text())
    clash = CliRunner().invoke(cli, ["bfcl", str(result_dir), str(tmp_path / "again"),
                                     "--data", str(data_dir)])
    assert clash.exit_code == 2 and "a second result file" in clash.output


@pytest.mark.parametrize("installed", [True, False])
def test_java_prompting_output_without_tree_sitter_is_noted(tmp_path, monkeypatch, installed):
    from ek_otel.bfcl import tree_sitter_calls

    monkeypatch.setattr(tree_sitter_calls, "available", lambda language="java": installed)
    data = tmp_path / "data"
    (data / "possible_answer").mkdir(parents=True)
    doc = {"name": "f", "parameters": {"type": "dict", "required": ["a"],
                                       "properties": {"a": {"type": "any"}}}}
    _write_jsonl(data / "BFCL_v4_simple_java.json",
                 [{"id": "simple_java_0", "function": [doc], "question": [[]]}])
    _write_jsonl(data / "possible_answer" / "BFCL_v4_simple_java.json",
                 [{"id": "simple_java_0", "ground_truth": [{"f": {"a": ["x"]}}]}])
    result = tmp_path / "m" / "BFCL_v4_simple_java_result.json"
    result.parent.mkdir()
    _write_jsonl(result, [{"id": "simple_java_0", "result": "[f(a=x)]"}])
    run = CliRunner().invoke(cli, ["bfcl", str(result), "--data", str(data)])
    assert run.exit_code == 0, run.output
    assert ("without tree-sitter" in run.output) is (not installed)


def test_an_unwritable_json_is_one_line_before_any_work(data_dir, result_dir, tmp_path):
    run = CliRunner().invoke(cli, ["bfcl", str(result_dir), "--data", str(data_dir), "--json",
                                   str(tmp_path / "no" / "dir" / "v.json")])
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith("ek-otel: error: ") and "v.json: cannot write the JSON" in run.stderr
