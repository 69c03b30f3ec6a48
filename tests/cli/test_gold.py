"""`ek-otel gold validate` and `ek-otel gold show`: summaries, FILE:LINE errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks.jsonl"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_examples_prints_a_summary_and_exits_0():
    result = run("gold", "validate", str(EXAMPLES))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    line = result.stdout.strip()
    assert line.startswith(f"{EXAMPLES}: ok: 4 tasks, 5 gold calls, 5 tools, 1 with no call expected, 1 multi-turn")
    assert "payments (1)" in line


def test_validate_counts_what_the_file_holds(tmp_path):
    path = write(tmp_path, "g.jsonl", json.dumps({"task_id": "a", "calls": [{"f": {}}, {"g": {}}], "slice": "s"}) + "\n")
    result = run("gold", "validate", str(path))
    assert result.stdout.strip() == f"{path}: ok: 1 task, 2 gold calls, 2 tools, slices: s (1)"


def test_validate_prints_every_error_as_file_line_message_and_exits_2(tmp_path):
    bad = write(
        tmp_path,
        "bad.jsonl",
        '{"task_id": "a"}\n# comment\n{"task_id": "b", "calls": [{"f": {"x": 1}}]}\n{"task_id": "a"}\n',
    )
    result = run("gold", "validate", str(bad))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{bad}:3: calls[0].f.x: the allowed values must be a list, e.g. [1], or a rule such as {{\"any\": true}}, got 1",
        f"{bad}:4: duplicate task_id 'a' (first on line 1)",
    ]
    assert "Traceback" not in result.stderr


def test_validate_checks_every_file_even_after_a_bad_one(tmp_path):
    missing = tmp_path / "missing.jsonl"
    good = write(tmp_path, "good.yaml", "- task_id: a\n  calls: []\n")
    result = run("gold", "validate", str(missing), str(good))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"{missing}: no such file"]
    assert result.stdout.startswith(f"{good}: ok: 1 task")


def test_validate_needs_a_file():
    assert run("gold", "validate").exit_code == 2


def test_show_prints_a_table_of_tasks():
    result = CliRunner().invoke(cli, ["gold", "show", str(EXAMPLES)], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.stderr
    for task_id in ("weather-paris", "refund-order-1042", "joke-no-tool", "flight-booking"):
        assert task_id in result.stdout
    assert "(no call expected)" in result.stdout


def test_show_refuses_a_bad_file_with_one_line(tmp_path):
    bad = write(tmp_path, "bad.jsonl", '{"task_id": "a", "value": "high"}\n')
    result = run("gold", "show", str(bad))
    assert result.exit_code == 2
    assert result.stderr == f'ek-otel: error: {bad}:1: value must be a number > 0, got "high"\n'
    assert result.stdout == ""


def test_show_lists_the_ignored_tools_of_a_task(tmp_path):
    gold = write(tmp_path, "g.jsonl", '{"task_id": "a", "calls": [{"search": {}}], '
                                      '"ignore_tools": ["final_answer", "transfer_to_*"]}\n')
    result = CliRunner().invoke(cli, ["gold", "show", str(gold)], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.stderr
    assert "ignored: final_answer, transfer_to_*" in result.stdout


def test_validate_names_the_line_of_a_bad_ignore_tools(tmp_path):
    gold = write(tmp_path, "g.jsonl", '{"task_id": "a"}\n{"task_id": "b", "ignore_tools": ["*"]}\n')
    result = run("gold", "validate", str(gold))
    assert result.exit_code == 2
    assert f"{gold}:2: ignore_tools[0]: '*' would ignore every call" in result.stderr


def test_show_and_validate_name_alternatives_optional_calls_rules_and_answers(tmp_path):
    path = tmp_path / "alt.jsonl"
    path.write_text('{"task_id": "r", "alternatives": [[{"lookup": {"id": {"any": true}}, "optional": true}, '
                    '{"pay": {"amount": {"number": 10, "abs_tol": 0.5}}}], [{"escalate": {}}]], '
                    '"answer": {"contains": "paid"}}\n')
    shown = CliRunner().invoke(cli, ["gold", "show", str(path)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "alternative 1: lookup(id=<any value>) (optional); pay(amount=<10 ± 0.5>)" in shown.output
    assert "alternative 2: escalate()" in shown.output and "answer: <contains 'paid'>" in shown.output
    checked = CliRunner().invoke(cli, ["gold", "validate", str(path)])
    assert "1 with alternatives" in checked.output and "1 with an expected answer" in checked.output
