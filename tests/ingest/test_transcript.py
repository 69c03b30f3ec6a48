"""Transcripts read from real framework spans (tests/ingest/corpus), and their promises:
every entry's span is in the trace, times in order, long values cut, strings kept as given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.episodes import build_episode
from ek_otel.ingest.records import SpanRecord
from ek_otel.ingest.transcript import VALUE_CAP, cap_value
from ek_otel.pipeline import read_episodes

CORPUS = Path(__file__).parent / "corpus"


def _episode(name: str):
    episodes = list(read_episodes([str(CORPUS / name / "traces.jsonl")], report=BadInputReport(),
                                  transcripts=True))
    assert episodes, name
    return episodes[0]


def _span_ids(name: str) -> set:
    ids = set()
    for line in (CORPUS / name / "traces.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    ids.update(s["spanId"] for s in ss.get("spans", []))
    return ids


@pytest.mark.parametrize("name", ["langchain-openinference-0.1.80", "agents-traceloop-alone",
                                  "langchain-traceloop-0.62.4"])
def test_a_real_agent_run_reads_as_user_model_tools_answer(name):
    episode = _episode(name)
    transcript = episode.meta["transcript"]
    kinds = [e["kind"] for e in transcript]
    assert kinds[0] == "user" and kinds[-1] == "answer", kinds
    assert transcript[0]["text"].startswith("Weather and time in Paris")
    tools = [e for e in transcript if e["kind"] == "tool"]
    assert [t["name"] for t in tools] == [s.tool for s in episode.trajectory]
    assert all("output" in t for t in tools)  # every tool execution with what it returned
    assert any(e.get("calls") for e in transcript if e["kind"] == "model")  # requested calls
    assert transcript[-1]["text"] == episode.output
    ids = _span_ids(name)
    assert all(e["span_id"] in ids for e in transcript)
    starts = [e["start_ms"] for e in transcript]
    assert starts == sorted(starts) and starts[0] >= 0


def test_tool_results_sent_back_as_user_messages_are_not_user_input():
    # Anthropic sends tool results in user-role messages: not the user's words.
    transcript = _episode("anthropic-traceloop-0.44.3").meta["transcript"]
    users = [e for e in transcript if e["kind"] == "user"]
    assert len(users) == 1 and "tool_result" not in users[0]["text"]


def test_no_transcript_unless_asked():
    episodes = list(read_episodes([str(CORPUS / "agents-traceloop-alone" / "traces.jsonl")],
                                  report=BadInputReport()))
    assert "transcript" not in episodes[0].meta


def _spans(result):
    T = "ab" * 16
    return [SpanRecord(T, "0" * 15 + "1", name="chat m", start_ns=10_000_000, end_ns=20_000_000, attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps([{"role": "user", "content": "</script><b>hi"}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "tool_call", "id": "c1", "name": "t", "arguments": {"q": "<!--"}}]}])}),
            SpanRecord(T, "0" * 15 + "2", name="execute_tool t", start_ns=30_000_000, end_ns=45_000_000,
                       status_code=2, attributes={"gen_ai.operation.name": "execute_tool",
                                                  "gen_ai.tool.name": "t", "gen_ai.tool.call.id": "c1",
                                                  "gen_ai.tool.call.result": result})]


def test_strings_are_kept_as_given_and_long_ones_cut():
    transcript = build_episode(_spans("x" * (VALUE_CAP + 5)), transcript=True).meta["transcript"]
    user, model, tool = transcript[:3]
    assert user["text"] == "</script><b>hi"
    assert model["calls"] == [{"name": "t", "args": {"q": "<!--"}, "id": "c1"}]
    assert tool["output"] == "x" * VALUE_CAP + "… [5 more characters]"
    assert tool["error"]  # the failed execution says so
    assert (tool["start_ms"], tool["duration_ms"]) == (20.0, 15.0)


def test_cap_value_walks_nested_values():
    assert cap_value({"a": [b"xyz", 1, None]}, cap=2) == {"a": ["xy… [1 more characters]", 1, None]}
