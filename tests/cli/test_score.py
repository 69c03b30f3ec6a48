"""``ek-otel score``: tables, the JSON report, write-back, task linking and exit codes."""

from __future__ import annotations

import json
import socket
from collections import Counter
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from ek_otel.cli import cli
from ek_otel.emit.attributes import score_value
from ek_otel.gold.native import load_tasks
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.otlp import decode
from ek_otel.ingest.records import LogRecord, SpanRecord
from ek_otel.pipeline import score_dump
from ek_otel.scoring import ScoreSettings, file_sha256

ROOT = Path(__file__).resolve().parents[2]
GOLD = str(ROOT / "examples" / "tasks.jsonl")
TRACES = str(ROOT / "examples" / "traces.jsonl")


def run(*args):
    return CliRunner().invoke(cli, ["score", *args], catch_exceptions=False)


def _expected_run(**settings):
    tasks = {t.task_id: t for t in load_tasks(GOLD)}
    return score_dump([TRACES], tasks, ScoreSettings(**settings), report=BadInputReport())


def test_example_prints_tables_and_unmatched_and_exits_0_even_with_low_scores():
    result = run(TRACES, "--gold", GOLD)
    assert result.exit_code == 0, result.output
    expected = _expected_run()
    assert expected.report.f1 < 1.0
    for task_id in expected.report.per_task:
        assert task_id in result.stdout
    assert "total" in result.stdout
    assert f"{expected.report.f1:.3f}" in result.stdout
    assert f"pass^{expected.report.k}" in result.stdout
    assert "weather-tokyo" in result.stdout and "task id not in" in result.stdout


def test_json_report(tmp_path):
    out = tmp_path / "report.json"
    result = run(TRACES, "--gold", GOLD, "--json", str(out), "--level", "arg")
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    expected = _expected_run(level="arg")
    agg = data["aggregate"]
    assert set(agg) >= {"precision", "recall", "f1", "exact_match", "episodes", "unmatched"}
    assert agg["f1"] == pytest.approx(expected.report.f1)
    assert agg["episodes"] == len(expected.envelopes) and agg["unmatched"] == 1
    assert len(data["episodes"]) == agg["episodes"]
    first = data["episodes"][0]
    assert set(first) >= {"task_id", "trace_id", "tp", "fp", "fn", "f1", "exact", "cost", "dollars"}
    assert set(first["cost"]) >= {"input_tokens", "output_tokens"}
    assert data["k"] == expected.report.k and set(data["pass_hat_k"]) == set(expected.report.per_task)
    assert set(data["per_slice"]) == set(expected.report.per_slice)
    assert data["per_task"]["weather-paris"]["episodes"] == 3
    assert data["unmatched"][0]["task_id"] == "weather-tokyo"
    assert data["provenance"]["matcher"]["level"] == "arg"
    assert data["provenance"]["gold_sha256"] == file_sha256(GOLD)
    assert data["bad_input"]["total"] == 0


def test_json_to_stdout_keeps_stdout_pure_json():
    result = run(TRACES, "--gold", GOLD, "--json", "-")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["aggregate"]["episodes"] == len(_expected_run().envelopes)
    assert "total" in result.stderr


def test_pricing_gives_dollars(tmp_path):
    out = tmp_path / "report.json"
    result = run(TRACES, "--gold", GOLD, "--json", str(out), "--pricing",
                 str(ROOT / "examples" / "pricing.yaml"))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["aggregate"]["dollars"] > 0
    assert all(e["dollars"] > 0 for e in data["episodes"])


def test_emit_file_writes_spans_and_events_readable_by_our_reader(tmp_path):
    emitted = tmp_path / "scores.jsonl"
    result = run(TRACES, "--gold", GOLD, "--emit-file", str(emitted), "--phoenix")
    assert result.exit_code == 0, result.output
    assert "wrote 9 scores back" in result.stderr
    records = list(read_dump([str(emitted)], report=BadInputReport()))
    spans = [r for r in records if isinstance(r, SpanRecord)]
    events = [r for r in records if isinstance(r, LogRecord)]
    assert len(events) == 9
    assert Counter(s.attributes.get("openinference.span.kind", "semconv") for s in spans) == {
        "semconv": 9, "EVALUATOR": 9}
    assert {e.attributes["ek.gold.sha256"] for e in events} == {file_sha256(GOLD)}


# ---------------------------------------------------------------------------
# Task linking
# ---------------------------------------------------------------------------


def _untagged_trace_line(trace: str, tool_args: dict, task_id: str = "") -> str:
    root_attrs = [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}]
    if task_id:
        root_attrs.append({"key": "ek.task.id", "value": {"stringValue": task_id}})
    spans = [
        {"traceId": trace, "spanId": "1" * 16, "name": "invoke_agent a", "attributes": root_attrs},
        {"traceId": trace, "spanId": "2" * 16, "parentSpanId": "1" * 16, "name": "execute_tool get_weather",
         "attributes": [
             {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
             {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
             {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(tool_args)}}]},
    ]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


@pytest.fixture
def untagged(tmp_path):
    dump = tmp_path / "untagged.jsonl"
    dump.write_text("\n".join([
        _untagged_trace_line("a" * 32, {"city": "Paris"}),
        _untagged_trace_line("b" * 32, {"city": "Rome"}),
        _untagged_trace_line("c" * 32, {"city": "Paris"}, task_id="joke-no-tool"),
    ]) + "\n")
    return dump


def test_one_task_gold_scores_episodes_without_task_id(tmp_path, untagged):
    gold = tmp_path / "one.jsonl"
    gold.write_text(Path(GOLD).read_text().splitlines()[2] + "\n")  # weather-paris only
    assert [t.task_id for t in load_tasks(gold)] == ["weather-paris"]
    out = tmp_path / "r.json"
    result = run(str(untagged), "--gold", str(gold), "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert [(e["trace_id"][0], e["task_id"], e["exact"]) for e in data["episodes"]] == [
        ("a", "weather-paris", True), ("b", "weather-paris", False)]
    assert [(u["trace_id"][0], u["task_id"]) for u in data["unmatched"]] == [("c", "joke-no-tool")]


def test_task_option_scores_untagged_episodes_and_keeps_others_as_they_are(tmp_path, untagged):
    out = tmp_path / "r.json"
    result = run(str(untagged), "--gold", GOLD, "--task", "weather-paris", "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert sorted((e["trace_id"][0], e["task_id"]) for e in data["episodes"]) == [
        ("a", "weather-paris"), ("b", "weather-paris"), ("c", "joke-no-tool")]
    assert data["unmatched"] == []


def test_without_a_default_task_untagged_episodes_are_listed(tmp_path, untagged):
    out = tmp_path / "r.json"
    result = run(str(untagged), "--gold", GOLD, "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert sorted(u["reason"] for u in data["unmatched"]) == ["no task id", "no task id"]


def test_some_unlinked_runs_are_a_warning_with_their_count(tmp_path, untagged):
    result = run(str(untagged), "--gold", GOLD)
    assert result.exit_code == 0, result.output
    warning = [line for line in result.stderr.splitlines() if "could not be linked" in line]
    assert len(warning) == 1 and warning[0].startswith("ek-otel: warning: 2 of 3 runs"), result.stderr
    for fix in ("--task", "--task-id-key", "ek.task.id"):
        assert fix in warning[0]


def test_no_run_linked_to_a_task_exits_2_naming_the_three_fixes(tmp_path):
    dump = tmp_path / "untagged.jsonl"
    dump.write_text(_untagged_trace_line("a" * 32, {"city": "Paris"}) + "\n"
                    + _untagged_trace_line("b" * 32, {"city": "Rome"}) + "\n")
    out = tmp_path / "r.json"
    result = run(str(dump), "--gold", GOLD, "--json", str(out))
    _one_error_line(result, "none of the 2 runs could be linked", "2 carry no task id",
                    "--task", "--task-id-key", "ek.task.id", "root span")
    assert not out.exists() or not out.read_text()  # no report of zeros


def test_no_run_with_a_known_task_id_exits_2(tmp_path):
    dump = tmp_path / "other.jsonl"
    dump.write_text(_untagged_trace_line("a" * 32, {"city": "Paris"}, task_id="elsewhere") + "\n")
    _one_error_line(run(str(dump), "--gold", GOLD), "none of the 1 runs", "'elsewhere'")


def test_an_empty_dump_exits_2_naming_it(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    _one_error_line(run(str(empty), "--gold", GOLD), "empty.jsonl", "no span")
    spaces = tmp_path / "blank.jsonl"
    spaces.write_text("\n\n")
    _one_error_line(run(str(spaces), "--gold", GOLD), "blank.jsonl", "no span")


def test_task_id_key_option(tmp_path):
    dump = tmp_path / "d.jsonl"
    line = _untagged_trace_line("d" * 32, {"city": "Paris"})
    data = json.loads(line)
    data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
        {"key": "my.task", "value": {"stringValue": "weather-paris"}})
    dump.write_text(json.dumps(data) + "\n")
    out = tmp_path / "r.json"
    assert run(str(dump), "--gold", GOLD, "--task-id-key", "my.task", "--json", str(out)).exit_code == 0
    assert json.loads(out.read_text())["episodes"][0]["task_id"] == "weather-paris"


# ---------------------------------------------------------------------------
# Exit codes
# ---------------------------------------------------------------------------


def _one_error_line(result, *needles):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ek-otel: error:")
    for needle in needles:
        assert needle in lines[0]


def test_missing_input_exits_2(tmp_path):
    _one_error_line(run(str(tmp_path / "nope.jsonl"), "--gold", GOLD), "nope.jsonl")


def test_unreadable_input_exits_2(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("this is not OTLP\n{also not\n")
    _one_error_line(run(str(junk), "--gold", GOLD), "no trace could be read", "junk.jsonl")


def test_broken_gold_exits_2_naming_file_and_line(tmp_path):
    gold = tmp_path / "bad.jsonl"
    gold.write_text('{"task_id": "a", "calls": []}\n{"task_id": "b", "cals": []}\n')
    _one_error_line(run(TRACES, "--gold", str(gold)), "bad.jsonl:2")


def test_missing_gold_and_unknown_task_exit_2(tmp_path):
    _one_error_line(run(TRACES, "--gold", str(tmp_path / "none.jsonl")), "none.jsonl")
    _one_error_line(run(TRACES, "--gold", GOLD, "--task", "no-such-task"), "no-such-task")


def test_unusable_emit_settings_exit_2(tmp_path):
    _one_error_line(run(TRACES, "--gold", GOLD, "--emit-file", str(tmp_path / "no" / "dir.jsonl")),
                    "dir.jsonl")
    _one_error_line(run(TRACES, "--gold", GOLD, "--emit-endpoint", "localhost:4317"), "localhost:4317")
    _one_error_line(run(TRACES, "--gold", GOLD, "--emit-signals", "spans,traces"), "'traces'")
    _one_error_line(run(TRACES, "--gold", GOLD, "--phoenix-url", "localhost:6006"), "localhost:6006")
    _one_error_line(run(TRACES, "--gold", GOLD, "--mlflow-tracking-uri", "databricks"), "databricks")
    _one_error_line(run(TRACES, "--gold", GOLD, "--phoenix-url", "http://127.0.0.1:6006",
                        "--phoenix-api-key-env", "EK_OTEL_TEST_UNSET_KEY"), "EK_OTEL_TEST_UNSET_KEY")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_exits_1_after_the_report(tmp_path):
    out = tmp_path / "r.json"
    result = run(TRACES, "--gold", GOLD, "--json", str(out), "--emit-timeout", "0.5",
                 "--emit-endpoint", f"http://127.0.0.1:{_free_port()}")
    assert result.exit_code == 1
    assert "could not be written" in result.stderr
    emitted = json.loads(out.read_text())["emitted"]
    assert emitted["failed"] == 9
    assert emitted["spans"] == emitted["logs"] == {"sent": 0, "failed": 9, "unsupported": 0}
    assert "cannot reach" in result.stderr  # what went wrong, not only that it did
    assert "total" in result.stdout


# ---------------------------------------------------------------------------
# A real OTLP/gRPC endpoint
# ---------------------------------------------------------------------------


def test_emit_endpoint_grpc_delivers_the_scores():
    traces, logs = [], []

    class Traces(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request, context):
            traces.append(request.SerializeToString())
            return trace_service_pb2.ExportTraceServiceResponse()

    class Logs(logs_service_pb2_grpc.LogsServiceServicer):
        def Export(self, request, context):
            logs.append(request)
            return logs_service_pb2.ExportLogsServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        result = run(TRACES, "--gold", GOLD, "--emit-endpoint", f"http://127.0.0.1:{port}",
                     "--emit-protocol", "grpc", "--emit-header", "Authorization=Bearer t0k")
    finally:
        server.stop(None)
    assert result.exit_code == 0, result.output
    spans = [s for body in traces for s in decode(body, "protobuf", signal="traces")]
    expected = _expected_run()
    assert sorted((s.trace_id, s.attributes["gen_ai.evaluation.score.value"]) for s in spans) == sorted(
        (e.trace_id, score_value(e.score)) for e in expected.envelopes)
    assert sum(len(sl.log_records) for req in logs for rl in req.resource_logs for sl in rl.scope_logs) == 9


def test_a_grpc_backend_without_logs_is_one_warning_and_exit_0(tmp_path):
    """Jaeger/Tempo/Phoenix: a trace service only. The events are 'unsupported', not failed."""
    received = []

    class Traces(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request, context):
            received.append(request)
            return trace_service_pb2.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    out = tmp_path / "r.json"
    try:
        result = run(TRACES, "--gold", GOLD, "--json", str(out), "--emit-protocol", "grpc",
                     "--emit-endpoint", f"http://127.0.0.1:{port}")
    finally:
        server.stop(None)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "warning" in line
                and "could not be linked" not in line]  # the example's weather-tokyo
    assert len(warnings) == 1 and "logs" in warnings[0] and f"127.0.0.1:{port}" in warnings[0]
    emitted = json.loads(out.read_text())["emitted"]
    assert emitted["spans"] == {"sent": 9, "failed": 0, "unsupported": 0}
    assert emitted["logs"] == {"sent": 0, "failed": 0, "unsupported": 9}
    assert received


def test_matcher_bfcl_needs_bfcl_gold():
    _one_error_line(run(TRACES, "--gold", GOLD, "--matcher", "bfcl"), "bfcl_category")


def _bfcl_gold(tmp_path) -> Path:
    """A BFCL simple_python task (as `ek-otel gold from-bfcl` writes it): get_weather(city)."""
    from ek_otel.core.episode import AnyOf, TaskSpec, ToolSpec
    from ek_otel.gold.native import dump_tasks

    gold = tmp_path / "bfcl.jsonl"
    dump_tasks([TaskSpec("simple_python_0", gold=[("get_weather", {"city": AnyOf(("Paris",))})],
                         tools=[ToolSpec("get_weather", schema={
                             "type": "dict", "required": ["city"],
                             "properties": {"city": {"type": "string"}}})],
                         meta={"bfcl_category": "simple_python"})], str(gold))
    return gold


def test_matcher_bfcl_scores_traces_against_bfcl_gold(tmp_path):
    gold = _bfcl_gold(tmp_path)
    dump = tmp_path / "d.jsonl"
    dump.write_text("\n".join([
        _untagged_trace_line("a" * 32, {"city": "Paris"}, task_id="simple_python_0"),
        _untagged_trace_line("b" * 32, {"city": 7}, task_id="simple_python_0"),
    ]) + "\n")
    out = tmp_path / "r.json"
    result = run(str(dump), "--gold", str(gold), "--matcher", "bfcl", "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert [(e["trace_id"][0], e["success"]) for e in data["episodes"]] == [("a", True), ("b", False)]
    assert "type_error" in data["episodes"][1]["explanation"]
    assert data["provenance"]["matcher"]["matcher"] == "bfcl"


def test_runs_of_different_models_are_also_shown_apart(tmp_path):
    dump = tmp_path / "two-models.jsonl"
    lines = []
    for trace, model in (("a" * 32, "model-a"), ("b" * 32, "model-b")):
        data = json.loads(_untagged_trace_line(trace, {"city": "Paris"}, task_id="weather-paris"))
        data["resourceSpans"][0]["scopeSpans"][0]["spans"].append(
            {"traceId": trace, "spanId": "3" * 16, "parentSpanId": "1" * 16, "name": f"chat {model}",
             "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                            {"key": "gen_ai.response.model", "value": {"stringValue": model}}]})
        lines.append(json.dumps(data))
    dump.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    result = run(str(dump), "--gold", GOLD, "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "model-a" in result.stdout and "model-b" in result.stdout
    groups = json.loads(out.read_text())["groups"]
    assert sorted(g["key"][0] for g in groups) == ["model-a", "model-b"]
    assert all(g["aggregate"]["episodes"] == 1 for g in groups)


def test_the_runs_table_shows_each_runs_pass_hat_k_with_its_own_k():
    from types import SimpleNamespace

    from rich.console import Console

    from ek_otel.cli._tables import groups_table
    from ek_otel.core.episode import TaskSpec
    from ek_otel.core.scores import EpisodeScore
    from ek_otel.scoring.run import aggregate

    ok, fail = EpisodeScore("t", success=True), EpisodeScore("t", success=False)
    scored = [(ok, ("a",)), (fail, ("a",)), (ok, ("b",)), (ok, ("b",)), (ok, ("b",))]
    console = Console(width=200, record=True)
    console.print(groups_table(SimpleNamespace(report=aggregate(scored, {"t": TaskSpec("t")}))))
    text = console.export_text()
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in text.splitlines() if line.startswith("│")]
    assert "pass^k" in text
    assert [(row[0], row[-1]) for row in rows] == [("a", "0.000 (k=2)"), ("b", "1.000 (k=3)")]


def test_unwritable_json_report_fails_before_anything_is_scored_or_emitted(tmp_path):
    scores = tmp_path / "scores.jsonl"
    result = run(TRACES, "--gold", GOLD, "--emit-file", str(scores),
                 "--json", str(tmp_path / "no" / "report.json"))
    _one_error_line(result, "report.json", "cannot write the JSON report")
    assert not scores.exists()  # nothing was written back for a run that failed


def test_stdin_dash_through_a_real_pipe_scores_like_the_file():
    import gzip
    import subprocess
    import sys

    expected = _expected_run().to_dict()["aggregate"]
    result = subprocess.run([sys.executable, "-m", "ek_otel", "score", "-", "--gold", GOLD,
                             "--json", "-"],
                            input=gzip.compress(Path(TRACES).read_bytes()),
                            capture_output=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    aggregate = json.loads(result.stdout)["aggregate"]
    for key in ("precision", "recall", "f1", "exact_match", "episodes", "unmatched"):
        assert aggregate[key] == expected[key], key


def test_a_model_the_pricing_file_does_not_price_is_a_warning_not_a_silent_dash(tmp_path):
    prices = tmp_path / "p.yaml"
    prices.write_text("models:\n  claude-x: {input: 3, output: 15}\n")
    out = tmp_path / "r.json"
    result = run(TRACES, "--gold", GOLD, "--pricing", str(prices), "--json", str(out))
    assert result.exit_code == 0
    report = json.loads(out.read_text())["aggregate"]
    assert report["dollars"] is None and report["n_unpriced"] == report["episodes"] == 9
    assert "ek-otel: warning: 9 of 9 scored episodes have no dollars: " in result.stderr
    priced = run(TRACES, "--gold", GOLD, "--pricing", str(ROOT / "examples" / "pricing.yaml"))
    assert "have no dollars" not in priced.stderr


# -- --ignore-tool / gold ignore_tools ---------------------------------------------------------

AGENTS = str(ROOT / "tests" / "ingest" / "corpus" / "agents-otel-v2-alone" / "traces.jsonl")


def _agents_gold(tmp_path, **extra):
    """The Agents SDK run (real spans) calls get_weather, get_time and convert_temperature; this
    gold expects the first two only, so convert_temperature stands for a framework tool."""
    gold = tmp_path / "agents.jsonl"
    task = {"task_id": "weather-paris", "calls": [{"get_weather": {"city": ["Paris"], "unit": ["celsius"]}},
                                                 {"get_time": {"timezone": ["Europe/Paris"]}}]}
    gold.write_text(json.dumps({**task, **extra}) + "\n")
    return str(gold)


def _json_report(*args):
    result = run(*args, "--json", "-")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_ignore_tool_removes_the_calls_from_matching_and_records_itself(tmp_path):
    gold = _agents_gold(tmp_path)
    plain = _json_report(AGENTS, "--gold", gold)
    (episode,) = plain["episodes"]
    assert (episode["fp"], episode["success"]) == (1.0, False)
    ignored = _json_report(AGENTS, "--gold", gold, "--ignore-tool", "convert_*",
                           "--ignore-tool", "think")
    (episode,) = ignored["episodes"]
    assert (episode["tp"], episode["fp"], episode["fn"], episode["success"]) == (2.0, 0.0, 0.0, True)
    assert episode["spurious_calls"] == [] and "ignored: convert_temperature" in episode["explanation"]
    assert ignored["provenance"]["matcher"]["ignore_tools"] == ["convert_*", "think"]
    assert "1 call(s) to framework-internal tools were ignored" in run(
        AGENTS, "--gold", gold, "--ignore-tool", "convert_*").stderr


def test_without_ignore_tool_the_json_report_has_no_trace_of_it(tmp_path):
    """The default report keeps the shape it had before --ignore-tool existed (byte-identical
    output for the same input): the key comes only with the option."""
    data = _json_report(AGENTS, "--gold", _agents_gold(tmp_path))
    assert list(data["provenance"]["matcher"]) == ["matcher", "level", "strategy", "canonicalizer"]
    assert "ignore" not in json.dumps(data)


def test_gold_ignore_tools_scores_as_the_option_does(tmp_path):
    data = _json_report(AGENTS, "--gold", _agents_gold(tmp_path, ignore_tools=["convert_temperature"]))
    (episode,) = data["episodes"]
    assert (episode["fp"], episode["success"]) == (0.0, True)
    assert "ignore_tools" not in data["provenance"]["matcher"]  # the gold's hash covers it


def test_ignore_tool_matching_a_gold_call_is_one_line(tmp_path):
    _one_error_line(run(AGENTS, "--gold", _agents_gold(tmp_path), "--ignore-tool", "get_*"),
                    "agents.jsonl", "'weather-paris'", "--ignore-tool 'get_*'")


@pytest.mark.parametrize("pattern, message", [("*", "would ignore every call"),
                                              ("", "non-empty")])
def test_bad_ignore_tool_is_one_line(tmp_path, pattern, message):
    result = run(AGENTS, "--gold", _agents_gold(tmp_path), "--ignore-tool", pattern)
    assert result.exit_code == 2 and "--ignore-tool" in result.stderr and message in result.stderr


def test_ignore_tool_also_applies_to_the_bfcl_matcher(tmp_path):
    gold = _bfcl_gold(tmp_path)
    line = json.loads(_untagged_trace_line("a" * 32, {"city": "Paris"}, task_id="simple_python_0"))
    spans = line["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans.append({**spans[1], "spanId": "3" * 16, "name": "execute_tool final_answer", "attributes": [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": "final_answer"}}]})
    dump = tmp_path / "d.jsonl"
    dump.write_text(json.dumps(line) + "\n")
    before = _json_report(str(dump), "--gold", str(gold), "--matcher", "bfcl")
    after = _json_report(str(dump), "--gold", str(gold), "--matcher", "bfcl",
                         "--ignore-tool", "final_answer")
    assert before["episodes"][0]["success"] is False
    assert after["episodes"][0]["success"] is True
