"""Traces that are not agent runs (an MCP session's ``initialize``, ``ping``, ``tools/list``
outside any run, recorded from the real ``mcp`` packages in tests/ingest/corpus): counted and
listed as "not an agent run" by ``episodes``, ``score``, ``doctor`` and the HTML report, and
never scored against a task, even with a one-task gold file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.episode import TaskSpec
from ek_otel.gold.native import task_to_dict
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.episodes import NOT_A_RUN, build_episode, is_agent_run
from ek_otel.ingest.records import SpanRecord
from ek_otel.ingest.semconv import NOT_AN_AGENT_RUN, mcp_method_of, not_a_run_kind
from ek_otel.pipeline import diagnose_dumps, score_dump
from ek_otel.report.html import render_run
from ek_otel.report.model import report_from_dict
from ek_otel.scoring import ScoreSettings

from .test_real_packages import all_episodes_of, expected

CORPUS = Path(__file__).resolve().parent / "corpus"
SESSIONS = sorted(p.name for p in CORPUS.iterdir()
                  if (p / "expected.json").is_file()
                  and json.loads((p / "expected.json").read_text())["records"].get("not_runs"))
T = "ab" * 16


def files(scenario: str) -> list:
    return sorted(str(p) for p in (CORPUS / scenario).glob("*.pb"))


def test_the_corpus_has_mcp_session_traces_of_both_mcp_generations():
    assert {"mcp-1.30.0-traceloop-0.62.4-session", "mcp-2.3.0-native-session"} <= set(SESSIONS)


@pytest.mark.parametrize("form", ["pb", "jsonl"])
@pytest.mark.parametrize("scenario", SESSIONS)
def test_session_traces_are_named_not_runs_and_the_run_is_one_episode(scenario, form):
    episodes = all_episodes_of(scenario, form)
    runs = [e for e in episodes if is_agent_run(e)]
    kinds = Counter(e.meta[NOT_A_RUN] for e in episodes if not is_agent_run(e))
    assert kinds == Counter(expected(scenario)["records"]["not_runs"])
    (run,) = runs
    assert run.task_id == "weather-paris"
    assert [s.tool for s in run.trajectory] == [c["tool"] for c in expected(scenario)["calls"]]


@pytest.mark.parametrize("scenario", SESSIONS)
def test_score_never_scores_a_non_run_even_against_a_one_task_gold_file(scenario):
    task = TaskSpec("weather-paris", gold=[(c["tool"], c["args"])
                                           for c in expected(scenario)["calls"]])
    run = score_dump(files(scenario), {"weather-paris": task},
                     ScoreSettings(default_task_id="weather-paris"), report=BadInputReport())
    assert len(run.envelopes) == 1 and run.envelopes[0].score.f1 == 1.0
    assert run.report.overall.recall == 1.0
    reasons = Counter(u.reason for u in run.unmatched)
    assert reasons == Counter(f"{NOT_AN_AGENT_RUN}: {kind}"
                              for kind in expected(scenario)["records"]["not_runs"])
    assert all(u.task_id == "" for u in run.unmatched)


def test_score_cli_lists_them_in_the_unmatched_table_and_the_json(tmp_path):
    scenario = "mcp-1.30.0-traceloop-0.62.4-session"
    gold = tmp_path / "gold.jsonl"
    task = TaskSpec("weather-paris", gold=[(c["tool"], c["args"])
                                           for c in expected(scenario)["calls"]])
    gold.write_text(json.dumps(task_to_dict(task)) + "\n")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["score", *files(scenario), "--gold", str(gold),
                                      "--json", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "4 unmatched episodes (4 are not an agent run)" in result.output
    data = json.loads(out.read_text())
    assert data["aggregate"]["episodes"] == 1
    assert sorted(u["reason"] for u in data["unmatched"]) == sorted(
        f"not an agent run: {k}" for k in expected(scenario)["records"]["not_runs"])
    page = render_run(report_from_dict(data, str(out)))
    assert 'data-count="not-runs">4 of them are not an agent run' in page


def test_episodes_cli_marks_and_counts_them():
    scenario = "mcp-2.3.0-native-session"
    result = CliRunner().invoke(cli, ["episodes", *files(scenario)],
                                                catch_exceptions=False)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(d["meta"].get(NOT_A_RUN, "") for d in lines) == sorted(
        ["", *expected(scenario)["records"]["not_runs"]])
    assert "3 traces are not agent runs (MCP server/discover, MCP tools/list x2)" in result.stderr
    table = CliRunner().invoke(cli, ["episodes", *files(scenario), "--table"],
                               env={"COLUMNS": "250"}).output
    assert table.count("not an agent") == 3


@pytest.mark.parametrize("scenario", SESSIONS)
def test_doctor_lists_them_apart_and_diagnoses_only_the_run(scenario):
    diagnosis = diagnose_dumps(files(scenario), report=BadInputReport())
    (trace,) = diagnosis.traces
    assert trace.task_id == "weather-paris" and trace.gaps == ()
    assert Counter(n.what for n in diagnosis.not_runs) == Counter(
        expected(scenario)["records"]["not_runs"])
    assert diagnosis.total.traces == 1
    assert sum(n for _, n in diagnosis.total.not_runs) == len(diagnosis.not_runs)
    text = CliRunner().invoke(cli, ["doctor", *files(scenario)]).output
    assert f"{len(diagnosis.not_runs)} traces not an agent run" in text
    assert "not agent runs:" in text


def span(name="x", **attributes):
    return SpanRecord(T, "0" * 15 + "1", name=name, start_ns=1, end_ns=2, attributes=attributes)


@pytest.mark.parametrize("record, run", [
    (span("chat m", **{"gen_ai.operation.name": "chat"}), True),       # a model call
    (span("execute_tool f", **{"gen_ai.operation.name": "execute_tool"}), True),  # a tool
    (span("invoke_agent a", **{"gen_ai.operation.name": "invoke_agent"}), True),  # an agent
    (span("weather task", **{"ek.task.id": "t1"}), True),                # a task id
    (span("GET /health"), False),
    (span("MCP send ping", **{"mcp.method.name": "ping"}), False),
])
def test_the_rule_needs_a_model_call_a_tool_call_an_agent_or_a_task_id(record, run):
    assert is_agent_run(build_episode([record])) is run


def test_mcp_methods_are_read_from_every_place_packages_put_them():
    assert mcp_method_of(span("initialize.mcp", **{
        "traceloop.entity.input": '{"method": "initialize", "params": {}}'})) == "initialize"
    assert mcp_method_of(span("MCP request: tools/list")) == "tools/list"
    assert mcp_method_of(span("tools/call get_time", **{"mcp.method.name": "tools/call"})) == (
        "tools/call")
    # a client's tools/call whose server side is not traced (no tool span): named as such
    assert not_a_run_kind([span("MCP send tools/call f", **{"mcp.method.name": "tools/call"})],
                          model_calls=0, tool_calls=0, agents=0, task_id="") == "MCP tools/call"
    assert not_a_run_kind([span("ResponseStreamWriter", **{"mcp.request.id": "3"})],
                          model_calls=0, tool_calls=0, agents=0, task_id="") == (
                              "MCP protocol message")
