"""`ek-otel episodes`: JSON lines, --table, --group-by, --task-id-key, bad input on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "corpus"
SCENARIO = CORPUS / "openinference-openai-0.1.66"


def run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin)


def span_line(trace: str, span: str, attributes: dict, parent: str = "") -> str:
    attrs = [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]
    record = {"traceId": trace, "spanId": span, "name": "s", "attributes": attrs,
              "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
    if parent:
        record["parentSpanId"] = parent
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [record]}]}]})


def test_one_json_object_per_episode_with_the_documented_keys():
    result = run("episodes", str(SCENARIO / "traces.pb"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    episode = json.loads(lines[0])
    assert {"trace_id", "task_id", "steps", "cost", "provenance"} <= set(episode)
    expected = json.loads((SCENARIO / "expected.json").read_text())
    assert [(s["tool"], s["args"], s["error"]) for s in episode["steps"]] == [
        (c["tool"], c["args"], None) for c in expected["calls"]]
    assert {k: episode["cost"][k] for k in expected["usage"]} == expected["usage"]
    assert episode["task_id"] == expected["task_id"]
    assert episode["provenance"]["trace_id"] == episode["trace_id"]
    assert len(episode["trace_id"]) == 32
    assert result.stderr == ""


def test_table_shows_tools_and_tokens():
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["episodes", str(SCENARIO / "traces.jsonl"), "--table"])
    assert result.exit_code == 0, result.output
    assert "get_weather, get_time, convert_temperature" in result.stdout
    assert "590" in result.stdout and "weather-paris" in result.stdout
    assert not result.stdout.lstrip().startswith("{")


def test_several_files_and_a_directory_of_dumps(tmp_path):
    dump = tmp_path / "dumps"
    dump.mkdir()
    for name in ("traceloop-0.62.4", "traceloop-0.52.6"):
        (dump / f"{name}.pb").write_bytes((CORPUS / name / "traces.pb").read_bytes())
    result = run("episodes", str(dump))
    assert result.exit_code == 0, result.output
    assert len(result.stdout.strip().splitlines()) == 2


def test_task_id_key_option_and_group_by_conversation(tmp_path):
    t1, t2 = "a1" * 16, "b2" * 16
    lines = [span_line(t1, "1" * 16, {"my.task": "T-1", "gen_ai.conversation.id": "c"}),
             span_line(t2, "2" * 16, {"my.task": "T-2", "gen_ai.conversation.id": "c"})]
    path = tmp_path / "dump.jsonl"
    path.write_text("\n".join(lines) + "\n")
    by_trace = run("episodes", str(path), "--task-id-key", "my.task")
    assert sorted(json.loads(l)["task_id"] for l in by_trace.stdout.splitlines()) == ["T-1", "T-2"]
    without_key = run("episodes", str(path))
    assert [json.loads(l)["task_id"] for l in without_key.stdout.splitlines()] == ["", ""]
    merged = run("episodes", str(path), "--group-by", "conversation")
    (episode,) = [json.loads(l) for l in merged.stdout.splitlines()]
    assert sorted(episode["meta"]["trace_ids"]) == [t1, t2]


def test_bad_input_is_summarized_on_stderr_and_the_rest_is_read(tmp_path):
    first, *rest = (SCENARIO / "traces.jsonl").read_text().splitlines()
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([first, "this is not json", *rest]) + "\n")
    result = run("episodes", str(path))
    assert result.exit_code == 0
    assert len(result.stdout.strip().splitlines()) == 1
    assert "invalid JSON" in result.stderr
    assert f"{path}:2" in result.stderr


def test_stdin_dash_through_a_real_pipe():
    result = subprocess.run([sys.executable, "-m", "ek_otel", "episodes", "-"],
                            input=(SCENARIO / "traces.jsonl").read_bytes(),
                            capture_output=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["task_id"] == "weather-paris"


def test_missing_file_is_one_error_line_and_exit_2(tmp_path):
    result = run("episodes", str(tmp_path / "nope.pb"))
    assert result.exit_code == 2
    assert result.stderr.startswith("ek-otel: error:")
    assert "Traceback" not in result.output


EXAMPLE_TRACES = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
EXAMPLE_GOLD = Path(__file__).resolve().parents[2] / "examples" / "tasks.jsonl"


def test_our_own_scores_in_a_dump_are_not_episodes(tmp_path):
    scores = tmp_path / "scores.jsonl"
    scored = run("score", str(EXAMPLE_TRACES), "--gold", str(EXAMPLE_GOLD),
                 "--emit-file", str(scores))
    assert scored.exit_code == 0, scored.output
    alone = run("episodes", str(scores))
    assert alone.exit_code == 0 and alone.stdout == ""
    # 9 scores, each an evaluation span and an evaluation event: read, and said to be skipped
    assert "18 record(s) of scores written back by ek-otel were read and skipped" in alone.stderr
    plain = run("episodes", str(EXAMPLE_TRACES)).stdout.splitlines()
    mixed = run("episodes", str(EXAMPLE_TRACES), str(scores)).stdout.splitlines()
    assert len(plain) == len(mixed) == 10
    for a, b in zip(plain, mixed):
        a, b = json.loads(a), json.loads(b)
        assert a["provenance"]["span_count"] == b["provenance"]["span_count"]
        assert a["provenance"]["instrumentation"] == b["provenance"]["instrumentation"]
        assert a["steps"] == b["steps"]


def test_nothing_readable_exits_2_with_one_line_after_the_summary(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01not OTLP at all")
    result = run("episodes", str(junk))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines()[-1].startswith("ek-otel: error: no trace could be read")
    assert "Traceback" not in result.stderr


def test_an_empty_dump_is_not_an_error(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = run("episodes", str(empty))
    assert result.exit_code == 0 and result.stdout == ""
