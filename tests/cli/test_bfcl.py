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
        {"id": "simple_python_0", "result": [{"get_weather": '{"city": "Paris"}'}]},
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
