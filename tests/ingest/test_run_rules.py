"""The reading rules as rules, not cases (traces nobody here made): a trace with any model,
tool or agent signal is a run; an episode never contradicts itself; arguments, call ids and
answers are read wherever a known convention puts them; doctor names a value it needs that
sits where it does not read.

Each case below is the shape an instrumentation is documented (or was seen) to write; the
real packages that can run here run in the corpus (``strands-0.1.9``) and in
``test_live_packages.py``.
"""

from __future__ import annotations

import json

from ek_otel.ingest.diagnose import diagnose_episode
from ek_otel.ingest.episodes import build_episode
from ek_otel.ingest.records import SpanEvent, SpanRecord

T = "ab" * 16


def span(n: int, parent: int, name: str, start: int = 0, **attributes) -> SpanRecord:
    return SpanRecord(T, f"{n:016x}", f"{parent:016x}" if parent else "", name,
                      start_ns=1_000 + start, end_ns=2_000 + start, attributes=attributes,
                      scope_name="opentelemetry.instrumentation.strands")


def test_strands_first_attribute_set_is_a_run_with_its_model_calls():
    """No gen_ai.operation.name anywhere: ``invoke_agent Strands Agents`` > ``Model invoke``
    (prompt/completion tokens, the answer as gen_ai.completion.0.text) and a tool span."""
    spans = [
        span(1, 0, "invoke_agent Strands Agents", 0, **{
            "gen_ai.agent.name": "Strands Agents", "gen_ai.system": "strands-agents",
            "gen_ai.usage.prompt_tokens": 30, "gen_ai.usage.completion_tokens": 9}),
        span(2, 1, "Model invoke", 1, **{
            "gen_ai.system": "strands-agents", "gen_ai.request.model": "m",
            "gen_ai.usage.prompt_tokens": 10, "gen_ai.usage.completion_tokens": 4}),
        span(3, 1, "execute_tool get_weather", 2, **{
            "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "t1",
            "gen_ai.tool.call.arguments": '{"city": "Paris"}'}),
        span(4, 1, "Model invoke", 3, **{
            "gen_ai.system": "strands-agents", "gen_ai.request.model": "m",
            "gen_ai.usage.prompt_tokens": 20, "gen_ai.usage.completion_tokens": 5,
            "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.text": "18 C"}),
    ]
    episode = build_episode(spans)
    assert "not_an_agent_run" not in episode.meta
    assert episode.meta["model_calls"] == 2
    assert (episode.cost.input_tokens, episode.cost.output_tokens) == (30, 9)
    assert episode.calls == (("get_weather", {"city": "Paris"}),)
    assert episode.provenance.agent_name == "Strands Agents"


def test_tokens_alone_make_a_run_and_a_model_call():
    """One span of no known role that records one call's usage: the episode cannot say
    tokens were used and no model was called."""
    episode = build_episode([span(1, 0, "Model invoke", **{
        "gen_ai.usage.prompt_tokens": 7, "gen_ai.usage.completion_tokens": 2})])
    assert "not_an_agent_run" not in episode.meta
    assert episode.meta["model_calls"] == 1 and episode.cost.input_tokens == 7


def test_a_trace_of_nothing_is_still_no_run():
    episode = build_episode([span(1, 0, "GET /health", **{"http.method": "GET"})])
    assert episode.meta["not_an_agent_run"] == "no model call, tool call or agent"


def test_veadk_tool_envelopes_give_arguments_call_id_and_result():
    """VeADK writes the tool's declaration as gen_ai.tool.input and its answer, with the
    call id, as gen_ai.tool.output."""
    tool = span(2, 1, "execute_tool get_weather", 1, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.input": json.dumps({"name": "get_weather", "description": "Weather.",
                                         "parameters": {"city": "Paris"}}),
        "gen_ai.tool.output": json.dumps({"id": "call_7", "name": "get_weather",
                                          "response": {"temp_c": 18}})})
    agent = span(1, 0, "invoke_agent a", 0, **{"gen_ai.operation.name": "invoke_agent"})
    episode = build_episode([agent, tool])
    (step,) = episode.trajectory
    assert (step.tool, dict(step.args), step.call_id) == ("get_weather", {"city": "Paris"}, "call_7")
    assert step.observation == {"temp_c": 18}
    diagnosis = diagnose_episode(episode, [agent, tool])
    assert diagnosis.gap("arguments") is None and diagnosis.gap("call_ids") is None


def test_an_argument_named_like_an_envelope_is_not_unwrapped():
    tool = span(2, 1, "execute_tool greet", 1, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "greet",
        "gen_ai.tool.call.arguments": json.dumps({"name": "Bob", "input": {"x": 1}})})
    (step,) = build_episode([tool]).trajectory
    assert dict(step.args) == {"name": "Bob", "input": {"x": 1}}


def test_vercel_generate_object_answer_is_read():
    root = span(1, 0, "ai.generateObject", 0, **{"ai.response.object": '{"city": "Paris"}'})
    model = span(2, 1, "ai.generateObject.doGenerate", 1, **{
        "ai.response.object": '{"city": "Paris"}', "ai.usage.promptTokens": 5,
        "gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": 3})
    episode = build_episode([root, model])
    assert episode.output == '{"city": "Paris"}'
    assert episode.meta["unrecorded_model_outputs"] == 0


def test_a_lone_openllmetry_workflow_keeps_its_output_and_is_a_run():
    workflow = span(1, 0, "RunnableSequence.workflow", **{
        "traceloop.span.kind": "workflow", "traceloop.entity.name": "RunnableSequence",
        "traceloop.entity.output": json.dumps({"outputs": {"output": "Paris is sunny."},
                                               "kwargs": {"tags": []}})})
    episode = build_episode([workflow])
    assert episode.output == "Paris is sunny."
    assert "not_an_agent_run" not in episode.meta


def test_doctor_names_a_task_id_below_the_root():
    root = span(1, 0, "request", 0, **{"http.method": "POST"})
    child = span(2, 1, "chat m", 1, **{"gen_ai.operation.name": "chat",
                                         "gen_ai.task.id": "refund-1042"})
    episode = build_episode([root, child])
    assert episode.task_id == ""  # linking reads the root and the resource only
    gap = diagnose_episode(episode, [root, child]).gap("task_id")
    assert "gen_ai.task.id 'refund-1042' is on span 'chat m', below the root" in gap.what


def test_text_parts_apart_are_paragraphs_adjacent_ones_one_text():
    """Pydantic AI joins adjacent text parts as one text and puts a blank line between
    texts that other parts stand between."""
    messages = [{"role": "assistant", "parts": [
        {"type": "text", "content": "Paris: 18 C."}, {"type": "tool_call", "id": "c",
                                                      "name": "f", "arguments": {}},
        {"type": "text", "content": "Berlin: 12 "}, {"type": "text", "content": "C."}]}]
    model = SpanRecord(T, "0" * 15 + "1", name="chat m", attributes={
        "gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(messages)},
        events=(SpanEvent("x"),))
    assert build_episode([model]).output == "Paris: 18 C.\n\nBerlin: 12 C."
