"""``ek-otel doctor``: per-trace and total text, JSON as the same data, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "corpus"
NO_CONTENT = str(CORPUS / "openai-v2-2.4b0-no_content" / "traces.jsonl")
HIDDEN = str(CORPUS / "anthropic-openinference-3.1.0-hidden" / "traces.pb")
FULL = str(CORPUS / "langgraph-agent-openinference-0.1.80" / "traces.pb")
ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return CliRunner().invoke(cli, ["doctor", *args], catch_exceptions=False)


def test_text_names_the_instrumentation_the_gap_and_its_fix():
    result = run(NO_CONTENT)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "opentelemetry.util.genai.handler 1.1b0: 3 spans" in out
    assert "framework: OpenAI client" in out
    assert "model calls: 3 (0 without a token count)" in out
    assert "tokens: input 590, output 83, cached 0, reasoning 0" in out
    assert "arguments: 2 model answers with tool calls not recorded" in out
    assert "fix: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" in out
    assert out.count("trace ") >= 1 and "total: 1 trace" in out


def test_several_dumps_give_each_trace_and_the_total():
    result = run(NO_CONTENT, HIDDEN, FULL)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "total: 3 traces" in out
    assert "OPENINFERENCE_HIDE_INPUTS" in out
    assert "read as nothing: 6 spans (model x3, tools x3)" in out
    assert out.count("    arguments in 1 trace\n") == 2  # one line per fix


def test_total_only():
    out = run(NO_CONTENT, FULL, "--total").stdout
    assert out.startswith("total: 2 traces") and "\ntrace " not in out


def test_json_is_the_same_data_as_the_library_gives():
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.pipeline import diagnose_dumps

    result = run(NO_CONTENT, FULL, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # --json alone: stdout holds the JSON only
    expected = diagnose_dumps([NO_CONTENT, FULL], report=BadInputReport()).to_dict()
    assert {k: v for k, v in data.items() if k != "bad_input"} == expected
    (first, second) = data["traces"]
    assert first["gaps"][1]["item"] == "arguments" and first["gaps"][1]["certain"] is True
    assert second["read"]["tool_calls"] == 3 and second["gaps"] == []


def test_json_to_a_file_keeps_the_text_on_stdout(tmp_path):
    out = tmp_path / "d.json"
    result = run(HIDDEN, "--json", str(out), "--total")
    assert "total: 1 trace" in result.stdout
    data = json.loads(out.read_text())
    assert "traces" not in data and data["total"]["traces"] == 1


def test_a_missing_file_is_one_line_naming_it(tmp_path):
    result = run(str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"ek-otel: error: {tmp_path / 'nope.jsonl'}: no such file or directory"]


def test_a_file_that_is_no_dump_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"garbage\x00\x01")
    result = run(str(bad))
    assert result.exit_code == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ek-otel: error: no trace could be read") and str(bad) in last


def test_untrusted_span_names_are_printed_as_they_are(tmp_path):
    """A span name with rich markup is text, never markup."""
    line = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "x"}, "spans": [
        {"traceId": "a" * 32, "spanId": "1" * 16, "name": "root",  # a run: it has a task id
         "attributes": [{"key": "ek.task.id", "value": {"stringValue": "t1"}}]},
        {"traceId": "a" * 32, "spanId": "2" * 16, "parentSpanId": "1" * 16,
         "name": "[bold red]boom[/]"}]}]}]}
    dump = tmp_path / "d.jsonl"
    dump.write_text(json.dumps(line) + "\n")
    out = run(str(dump)).stdout
    assert "read as nothing: 1 span ([bold red]boom[/])" in out
    assert "x: 2 spans; not a known instrumentation" in out


def test_doctor_runs_as_a_process_from_stdin():
    data = Path(NO_CONTENT).read_bytes()
    proc = subprocess.run([sys.executable, "-m", "ek_otel", "doctor", "-", "--total"], input=data,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in proc.stdout


def test_group_by_conversation_diagnoses_one_episode_per_conversation(tmp_path):
    """Two traces of one gen_ai.conversation.id: one diagnosis holding both traces' spans."""
    def trace(t, conv):
        return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "pydantic-ai", "version": "2.0"},
            "spans": [{"traceId": t * 32, "spanId": t * 16, "name": "chat m", "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                {"key": "gen_ai.conversation.id", "value": {"stringValue": conv}},
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": 5}}]}]}]}]}
    dump = tmp_path / "d.jsonl"
    dump.write_text("".join(json.dumps(trace(t, "c1")) + "\n" for t in "ab"))
    by_trace = json.loads(run(str(dump), "--json").stdout)
    by_conversation = json.loads(run(str(dump), "--json", "--group-by", "conversation").stdout)
    assert by_trace["total"]["traces"] == 2
    assert by_conversation["total"]["traces"] == 1
    (only,) = by_conversation["traces"]
    assert (only["spans"], only["read"]["model_calls"], only["read"]["input_tokens"]) == (2, 2, 10)
    assert only["framework"] == "pydantic-ai"


def test_the_guide_shows_what_doctor_prints():
    readme = (CORPUS.parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
    shown = readme.split("```text\ntrace ", 1)[1].split("```", 1)[0]
    printed = run(str(CORPUS / "openai-v2-2.4b0-no_content" / "traces.pb")).stdout
    assert "trace " + shown == printed.split("\n\n", 1)[0] + "\n"


def test_json_never_overwrites_an_input_dump(tmp_path):
    dump = tmp_path / "d.jsonl"
    dump.write_bytes(Path(NO_CONTENT).read_bytes())
    before = dump.read_bytes()
    result = run(str(dump), "--json", str(dump))
    assert result.exit_code == 2 and "would overwrite an input dump" in result.stderr
    assert dump.read_bytes() == before


def test_a_run_without_task_id_is_a_gap_with_the_fixes_score_names(tmp_path):
    from ek_otel.ingest.instrumentations import TASK_ID_FIX

    dump = tmp_path / "untagged.jsonl"
    dump.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "a" * 32, "spanId": "1" * 16, "name": "agent run",
        "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]}) + "\n")
    result = run(str(dump))
    assert result.exit_code == 0, result.output
    assert "    task_id: no task id" in result.output
    assert f"      fix: {TASK_ID_FIX}" in result.output
    for fix in ("--task", "--task-id-key", "ek.task.id"):
        assert fix in TASK_ID_FIX
    data = json.loads(run(str(dump), "--json").output)
    assert [g["item"] for g in data["traces"][0]["gaps"]][-1] == "task_id"


def test_an_example_run_with_a_task_id_has_no_task_id_gap():
    data = json.loads(run(str(ROOT / "examples" / "traces.jsonl"), "--json").output)
    assert all(g["item"] != "task_id" for t in data["traces"] for g in t["gaps"])


def test_an_empty_dump_is_one_line_naming_it(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = run(str(empty))
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("empty.jsonl: no span of an agent run in the input "
                                          "(an empty dump, or only scores written by ek-otel)")
