"""Episode building from hand-written spans: one test per rule and pitfall."""

from __future__ import annotations

from dataclasses import replace

import gc
import json
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek_otel.ingest.bad_input import MALFORMED_RECORD, BadInputReport
from ek_otel.ingest.episodes import build_episode, build_episodes
from ek_otel.ingest.records import STATUS_ERROR, LogRecord, SpanEvent, SpanRecord

TRACE = "1f" * 16


def sid(n: int) -> str:
    return f"{n:016x}"


def make(name, span_id, parent=0, start=0, end=None, trace=TRACE, resource=None,
         status=0, events=(), **attributes) -> SpanRecord:
    return SpanRecord(trace, sid(span_id), sid(parent) if parent else "", name,
                      start_ns=start, end_ns=end if end is not None else start + 1,
                      status_code=status, attributes=attributes, events=tuple(events),
                      resource=resource or {"service.name": "svc", "service.version": "2.0"},
                      scope_name="test.scope")


def chat(span_id, parent=0, start=0, end=None, calls=(), text=None, usage=None,
         response_id=None, **extra) -> SpanRecord:
    """An OTel GenAI chat span with optional tool calls (name, args, id) and usage."""
    parts = [{"type": "tool_call", "name": n, "arguments": a, **({"id": i} if i else {})}
             for n, a, i in calls]
    if text:
        parts.append({"type": "text", "content": text})
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                  **extra}
    if parts:
        attributes["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": parts}])
    if usage:
        attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"] = usage
    if response_id:
        attributes["gen_ai.response.id"] = response_id
    return make("chat gpt-4o", span_id, parent, start, end, **attributes)


def tool(span_id, name, parent=0, start=0, end=None, args=None, status=0, events=(),
         **extra) -> SpanRecord:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, **extra}
    if args is not None:
        attributes["gen_ai.tool.call.arguments"] = args
    return make(f"execute_tool {name}", span_id, parent, start, end, status=status,
                events=events, **attributes)


def agent(span_id, name, parent=0, start=0, end=100, **extra) -> SpanRecord:
    return make(f"invoke_agent {name}", span_id, parent, start, end,
                **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **extra})


def cost_tuple(episode):
    c = episode.cost
    return (c.input_tokens, c.output_tokens, c.cached_input_tokens, c.reasoning_tokens)


# --- steps -----------------------------------------------------------------


def test_requested_then_executed_call_is_one_step_joined_by_id():
    spans = [agent(1, "A"),
             chat(2, 1, 10, 20, calls=[("search", {"q": "cats"}, "c1")]),
             tool(3, "search", 1, 21, 30, args='{"q": "cats"}', **{"gen_ai.tool.call.id": "c1",
                  "gen_ai.tool.call.result": '{"hits": 3}'})]
    episode = build_episode(spans)
    assert episode.calls == (("search", {"q": "cats"}),)
    step = episode.trajectory[0]
    assert (step.call_id, step.span_id, step.observation) == ("c1", sid(3), {"hits": 3})


def _hosted_chat(span_id, parent, start, end, call_id):
    parts = [{"type": "tool_call", "id": call_id, "name": "mcp.ask", "arguments": {"q": "x"}},
             {"type": "tool_call_response", "id": call_id, "response": {"a": "y"}}]
    return make("chat gpt-4", span_id, parent, start, end, **{
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])})


def test_a_tool_span_with_a_hosted_calls_own_id_is_that_hosted_step():
    """AI SDK 7 records a provider-executed call as an execute_tool span too (type extension)."""
    spans = [agent(1, "A"), _hosted_chat(2, 1, 10, 40, "h1"),
             tool(3, "mcp.ask", 2, 20, 30, args='{"q": "x"}', status=STATUS_ERROR,
                  **{"gen_ai.tool.call.id": "h1", "gen_ai.tool.type": "extension"})]
    (step,) = build_episode(spans).trajectory
    assert (step.tool, step.hosted, step.call_id, step.observation, step.error is not None) == (
        "mcp.ask", True, "h1", {"a": "y"}, True)


def test_an_application_tool_of_a_hosted_calls_name_is_not_joined_to_it():
    spans = [agent(1, "A"), _hosted_chat(2, 1, 10, 40, "h1"),
             tool(3, "mcp.ask", 1, 50, 60, args='{"q": "z"}', **{"gen_ai.tool.call.id": "c9"})]
    steps = build_episode(spans).trajectory
    assert [(s.hosted, s.call_id) for s in steps] == [(True, "h1"), (False, "c9")]


def test_join_by_name_and_order_when_tool_spans_have_no_call_id():
    spans = [agent(1, "A"),
             chat(2, 1, 10, 20, calls=[("weather", {"city": "Paris"}, "c1"),
                                       ("weather", {"city": "Rome"}, "c2"),
                                       ("time", {"tz": "UTC"}, "c3")]),
             tool(3, "weather", 1, 21), tool(4, "time", 1, 22), tool(5, "weather", 1, 23)]
    episode = build_episode(spans)
    assert episode.calls == (("weather", {"city": "Paris"}), ("weather", {"city": "Rome"}),
                             ("time", {"tz": "UTC"}))
    assert [s.span_id for s in episode.trajectory] == [sid(3), sid(5), sid(4)]
    assert [s.call_id for s in episode.trajectory] == ["c1", "c2", "c3"]


def test_join_without_any_ids():
    spans = [chat(2, 0, 10, 20, calls=[("f", {"a": 1}, None), ("f", {"a": 2}, None)]),
             tool(3, "f", 0, 21, args='{"a": 1}'), tool(4, "f", 0, 22, args='{"a": 2}')]
    episode = build_episode(spans)
    assert episode.calls == (("f", {"a": 1}), ("f", {"a": 2}))
    assert [s.span_id for s in episode.trajectory] == [sid(3), sid(4)]


def test_parallel_calls_are_separate_steps_and_steps_follow_time():
    spans = [chat(2, 0, 10, 20, calls=[("a", {}, "1"), ("b", {}, "2")]),
             chat(3, 0, 40, 50, calls=[("c", {"x": 1}, "3")]),
             chat(4, 0, 60, 70, text="done")]
    episode = build_episode(list(reversed(spans)))  # input order does not matter
    assert episode.trajectory.tools == ("a", "b", "c")
    assert episode.output == "done"


def test_unrequested_execution_and_unexecuted_request_are_both_steps():
    spans = [chat(2, 0, 10, 20, calls=[("planned", {"k": 1}, "c1")]),
             tool(3, "spontaneous", 0, 5, args="{}")]
    episode = build_episode(spans)
    assert episode.trajectory.tools == ("spontaneous", "planned")
    assert episode.trajectory[1].span_id == sid(2)  # the model span that requested it


def test_arguments_from_the_execution_when_the_request_has_none():
    spans = [chat(2, 0, 10, 20, calls=[("f", None, "c1")]),
             tool(3, "f", 0, 21, args='{"a": 1}', **{"gen_ai.tool.call.id": "c1"})]
    episode = build_episode(spans)
    assert episode.calls == (("f", {"a": 1}),)
    assert episode.trajectory[0].args_captured is True


def test_no_arguments_anywhere_keeps_tool_names_and_says_so():
    spans = [tool(3, "f", 0, 1), tool(4, "g", 0, 2)]
    episode = build_episode(spans)
    assert episode.trajectory.tools == ("f", "g")
    assert [s.args for s in episode.trajectory] == [{}, {}]
    assert [s.args_captured for s in episode.trajectory] == [False, False]
    assert episode.provenance.args_captured is False


def test_model_asked_for_tools_but_content_was_not_captured():
    spans = [chat(2, 0, 1, 2, **{"gen_ai.response.finish_reasons": ["tool_calls"]}),
             chat(3, 0, 3, 4, **{"gen_ai.response.finish_reasons": ["stop"]})]
    episode = build_episode(spans)
    assert episode.calls == ()
    assert episode.provenance.args_captured is False
    assert episode.meta["uncaptured_tool_calls"] == 1


def test_unparseable_arguments_are_kept_raw():
    episode = build_episode([tool(3, "f", 0, 1, args="city=Paris")])
    assert episode.calls == (("f", {"_raw": "city=Paris"}),)


def test_failed_tool_span_sets_step_error():
    exc = SpanEvent("exception", attributes={"exception.type": "TimeoutError"})
    spans = [tool(3, "f", 0, 1, args="{}", status=STATUS_ERROR, events=(exc,)),
             tool(4, "g", 0, 2, args="{}", **{"error.type": "ValueError"}),
             tool(5, "h", 0, 3, args="{}")]
    episode = build_episode(spans)
    assert [s.error for s in episode.trajectory] == ["TimeoutError", "ValueError", None]


def test_steps_record_their_agent_for_multi_agent_traces():
    spans = [agent(1, "Triage", 0, 0, 100),
             agent(2, "Billing", 1, 10, 90),
             chat(3, 1, 1, 5, calls=[("route", {"to": "billing"}, "r1")]),
             tool(4, "route", 1, 6),
             chat(5, 2, 11, 20, calls=[("refund", {"amount": 5}, "f1")]),
             tool(6, "refund", 2, 21)]
    episode = build_episode(spans)
    assert [(s.tool, s.agent, s.agent_span_id) for s in episode.trajectory] == [
        ("route", "Triage", sid(1)), ("refund", "Billing", sid(2))]
    assert episode.provenance.agent_name == "Triage"
    assert episode.run.scaffold == "Triage"


# --- tokens ----------------------------------------------------------------


def test_agent_and_client_instrumentors_do_not_double_count():
    # the agent's model span repeats the nested client span's usage
    spans = [agent(1, "A", 0, 0, 100, **{"gen_ai.usage.input_tokens": 30,
                                         "gen_ai.usage.output_tokens": 6}),
             chat(2, 1, 1, 20, usage=(10, 2), response_id="r1"),
             chat(3, 2, 2, 19, usage=(10, 2), response_id="r1"),
             chat(4, 1, 30, 50, usage=(20, 4)),
             chat(5, 4, 31, 49, usage=(20, 4))]
    episode = build_episode(spans)
    assert cost_tuple(episode) == (30, 6, 0, 0)


def test_usage_deduplicated_by_response_id_between_sibling_spans():
    spans = [chat(2, 0, 1, 2, usage=(10, 2), response_id="r1"),
             chat(3, 0, 1, 2, usage=(10, 2), response_id="r1"),
             chat(4, 0, 3, 4, usage=(5, 1), response_id="r2")]
    assert cost_tuple(build_episode(spans)) == (15, 3, 0, 0)


def test_logfire_three_times_usage_is_counted_once():
    task = make("Agent run: 'A'", 1, 0, 0, 100, usage=json.dumps(
        {"requests": 2, "input_tokens": 30, "output_tokens": 6}))
    turn1 = make("Responses API with 'gpt-4o'", 2, 1, 1, 10, **{
        "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2,
        "gen_ai.usage.raw": '{"input_tokens": 10, "output_tokens": 2, '
                            '"output_tokens_details": {"reasoning_tokens": 1}}'})
    turn2 = make("Responses API with 'gpt-4o'", 3, 1, 11, 20, **{
        "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 4})
    assert cost_tuple(build_episode([task, turn1, turn2])) == (30, 6, 0, 1)


def test_aggregate_usage_used_only_when_no_model_span_has_it():
    outer = agent(1, "A", 0, 0, 100, **{"gen_ai.usage.input_tokens": 50,
                                       "gen_ai.usage.output_tokens": 9})
    inner = agent(2, "B", 1, 10, 90, **{"gen_ai.usage.input_tokens": 20,
                                       "gen_ai.usage.output_tokens": 3})
    no_usage_chat = chat(3, 2, 11, 20)
    assert cost_tuple(build_episode([outer, inner, no_usage_chat])) == (50, 9, 0, 0)


def test_cluster_falls_back_to_the_agent_model_span_when_the_client_span_has_no_usage():
    spans = [chat(2, 0, 1, 20, usage=(10, 2)), chat(3, 2, 2, 19)]
    assert cost_tuple(build_episode(spans)) == (10, 2, 0, 0)


def test_failed_model_call_then_retry_counts_one_retry():
    spans = [chat(2, 0, 1, 2, status=STATUS_ERROR, **{"error.type": "RateLimitError"}),
             chat(3, 0, 3, 4, usage=(10, 2), calls=[("f", {}, "c")])]
    episode = build_episode(spans)
    assert episode.cost.retries == 1
    assert cost_tuple(episode) == (10, 2, 0, 0)


def test_a_final_failure_is_not_a_retry():
    spans = [chat(2, 0, 1, 2, usage=(10, 2)), chat(3, 0, 3, 4, status=STATUS_ERROR)]
    assert build_episode(spans).cost.retries == 0


# --- other formats inside an episode ---------------------------------------


def test_openai_v2_old_gen_ai_choice_log_events_give_the_calls():
    span = chat(2, 0, 1, 2, usage=(10, 2))
    logs = [LogRecord(TRACE, sid(2), 5, "gen_ai.user.message", {"content": "hi"}),
            LogRecord(TRACE, sid(2), 6, "gen_ai.choice", {
                "index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "tool_calls": [
                        {"id": "c1", "type": "function",
                         "function": {"name": "f", "arguments": '{"a": 1}'}},
                        {"id": "c2", "type": "function",
                         "function": {"name": "g", "arguments": '{"b": 2}'}}]}})]
    episode = build_episode([span], logs)
    assert episode.calls == (("f", {"a": 1}), ("g", {"b": 2}))


def test_inference_operation_details_event_with_structured_messages():
    span = chat(2, 0, 1, 2)
    log = LogRecord(TRACE, sid(2), 5, "gen_ai.client.inference.operation.details",
                    attributes={"gen_ai.output.messages": [
                        {"role": "assistant", "parts": [
                            {"type": "tool_call", "id": "c1", "name": "f",
                             "arguments": {"a": 1}}]}]})
    assert build_episode([span], [log]).calls == (("f", {"a": 1}),)


def test_assistant_message_history_events_add_only_unseen_call_ids():
    spans = [chat(2, 0, 1, 2, calls=[("f", {"a": 1}, "c1")])]
    logs = [LogRecord(TRACE, sid(2), 5, "gen_ai.assistant.message", {"tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
                {"id": "c0", "type": "function", "function": {"name": "g", "arguments": "{}"}}]})]
    episode = build_episode(spans, logs)
    assert sorted(episode.trajectory.tools) == ["f", "g"]


def test_legacy_gen_ai_content_completion_span_event():
    event = SpanEvent("gen_ai.content.completion", attributes={"gen_ai.completion": json.dumps(
        [{"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}])})
    span = make("chat m", 2, 0, 1, 2, events=(event,), **{"gen_ai.operation.name": "chat"})
    assert build_episode([span]).calls == (("f", {}),)


def test_langfuse_generation_output_and_missing_parent_is_a_root():
    # Langfuse points parentSpanId at a span that is not exported
    gen = make("OpenAI-generation", 2, parent=99, start=5, end=9, **{
        "langfuse.observation.type": "generation",
        "langfuse.observation.output": json.dumps({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]}),
        "langfuse.observation.usage_details": '{"input": 12, "output": 3}'})
    early = make("trace-root", 3, parent=98, start=1, end=20, **{"ek.task.id": "lf-1"})
    episode = build_episode([gen, early])
    assert episode.provenance.root_span_id == sid(3)
    assert episode.task_id == "lf-1"
    assert episode.calls == (("f", {"x": 1}),)
    assert cost_tuple(episode) == (12, 3, 0, 0)


def test_spans_whose_parent_is_missing_are_roots_and_reported():
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.ingest.episodes import MISSING_PARENT
    from ek_otel.ingest.records import Origin

    orphan = replace(make("trace-root", 3, parent=98, start=1, end=20, **{"ek.task.id": "t"}),
                     origin=Origin("dump.jsonl", 7))
    child = make("execute_tool f", 4, parent=3, start=2, end=3, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f"})
    report = BadInputReport()
    episode = build_episode([orphan, child], report=report)
    assert episode.provenance.root_span_id == sid(3) and episode.task_id == "t"
    assert episode.calls == (("f", {}),)
    assert report.counts == {MISSING_PARENT: 1}  # the child's parent is there: not reported
    assert str(report.cases[0]).startswith("dump.jsonl:7: missing parent: span " + sid(3))
    clean = BadInputReport()
    build_episode([make("root", 1), make("kid", 2, parent=1)], report=clean)
    assert clean.ok
    siblings = BadInputReport()  # one case per missing parent, not one per span
    build_episode([make("gen", 5, parent=99, start=2), make("gen", 6, parent=99, start=1)],
                  report=siblings)
    assert siblings.total == 1
    assert "2 spans (first " + sid(6) in str(siblings.cases[0])


def test_a_token_count_that_is_not_a_number_is_reported_not_silently_zero():
    from ek_otel.ingest.bad_input import BAD_ATTRIBUTE, BadInputReport

    report = BadInputReport()
    episode = build_episode([chat(1, usage=None, **{"gen_ai.usage.input_tokens": "lots",
                                                    "gen_ai.usage.output_tokens": 4})],
                            report=report)
    assert episode.cost.output_tokens == 4
    assert report.counts == {BAD_ATTRIBUTE: 1}
    assert "'gen_ai.usage.input_tokens' is not a token count ('lots')" in str(report.cases[0])


def test_openinference_tool_span_and_llm_span():
    llm = make("ChatCompletion", 2, 0, 1, 2, **{
        "openinference.span.kind": "LLM",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "f",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"a": 1}',
        "llm.token_count.prompt": 5, "llm.token_count.completion": 1})
    tool_span = make("f", 3, 0, 3, 4, **{"openinference.span.kind": "TOOL", "tool.name": "f",
                                         "input.value": '{"a": 1}', "output.value": "42"})
    episode = build_episode([llm, tool_span])
    assert episode.calls == (("f", {"a": 1}),)
    assert episode.trajectory[0].observation == "42"  # non-JSON-object text stays text
    assert episode.trajectory[0].span_id == sid(3)


# --- episode fields --------------------------------------------------------


def test_task_id_from_root_then_resource_then_custom_keys():
    root = make("root", 1, 0, 0, 10, resource={"ek.task.id": "from-resource"})
    assert build_episode([root]).task_id == "from-resource"
    root = make("root", 1, 0, 0, 10, resource={"ek.task.id": "r"}, **{"ek.task.id": "s"})
    assert build_episode([root]).task_id == "s"
    root = make("root", 1, 0, 0, 10, **{"my.task": "mine", "ek.task.id": "default"})
    assert build_episode([root], task_id_keys=("my.task",)).task_id == "mine"
    assert build_episode([make("root", 1)]).task_id == ""


def test_task_id_is_read_from_the_root_not_a_child():
    spans = [make("root", 1, 0, 0, 10), make("child", 2, 1, 1, 2, **{"ek.task.id": "x"})]
    assert build_episode(spans).task_id == ""


def test_root_is_the_earliest_parentless_span_and_latency_its_duration():
    spans = [make("late-root", 5, 0, 2_000_000_000, 3_000_000_000),
             make("root", 1, 0, 1_000_000_000, 4_500_000_000),
             make("child", 2, 1, 1_100_000_000, 1_200_000_000)]
    episode = build_episode(spans)
    assert episode.provenance.root_span_id == sid(1)
    assert episode.cost.latency_s == pytest.approx(3.5)


def test_run_provenance_and_provenance():
    spans = [agent(1, "Helper", 0, 0, 100, **{"gen_ai.conversation.id": "conv-9"}),
             chat(2, 1, 1, 2, usage=(1, 1), **{"gen_ai.response.model": "gpt-4o-2024-08-06",
                                              "gen_ai.request.temperature": 0.3,
                                              "gen_ai.request.seed": 42})]
    episode = build_episode(spans, source="dump.jsonl")
    assert (episode.run.model, episode.run.temperature, episode.run.seed, episode.run.scaffold) == (
        "gpt-4o-2024-08-06", 0.3, 42, "Helper")
    p = episode.provenance
    assert (p.trace_id, p.root_span_id, p.conversation_id, p.service_name, p.service_version,
            p.agent_name, p.instrumentation, p.span_count, p.source) == (
        TRACE, sid(1), "conv-9", "svc", "2.0", "Helper", ("test.scope",), 2, "dump.jsonl")


def test_scaffold_is_the_service_name_without_an_agent():
    episode = build_episode([chat(2, 0, 1, 2)])
    assert episode.run.scaffold == "svc"
    assert episode.run.model == "gpt-4o"  # request model when no response model


# --- bad input -------------------------------------------------------------


def test_bad_spans_are_counted_reported_and_skipped():
    good = chat(2, 0, 1, 2, calls=[("f", {}, "c")])
    no_id = SpanRecord(TRACE, "", name="broken")
    bad_attributes = SpanRecord(TRACE, sid(7), attributes=None)  # type: ignore[arg-type]
    bad_time = SpanRecord(TRACE, sid(8), start_ns="soon")  # type: ignore[arg-type]
    report = BadInputReport()
    episode = build_episode([good, no_id, bad_attributes, bad_time, "not a span"],
                            report=report)
    assert episode.calls == (("f", {}),)
    assert episode.meta["bad_spans"] == 4
    assert report.counts == {MALFORMED_RECORD: 4}


def test_attribute_values_of_unexpected_types_do_not_crash():
    weird = make("chat m", 2, 0, 1, 2, **{
        "gen_ai.operation.name": "chat", "gen_ai.output.messages": 12,
        "gen_ai.usage.input_tokens": {"x": 1}, "gen_ai.response.finish_reasons": 5,
        "gen_ai.request.temperature": "hot", "gen_ai.agent.name": ["a"]})
    weird_tool = make("execute_tool", 3, 0, 3, 4, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": {"n": 1},
        "gen_ai.tool.call.arguments": b"\xff\xfe"})
    episode = build_episode([weird, weird_tool])
    assert episode.meta["bad_spans"] == 0
    assert len(episode.trajectory) == 1


def test_parent_cycles_do_not_hang():
    a = make("a", 1, parent=2, start=1)
    b = make("b", 2, parent=1, start=2)
    episode = build_episode([a, b, tool(3, "f", 1, 3, args="{}")])
    assert episode.trajectory.tools == ("f",)


def test_an_episode_leaves_no_cyclic_garbage():
    # the span tree (parents and children point at each other) is unlinked once read, so
    # a trace's nodes are freed by reference counting, never left to the cyclic collector
    spans = [make("invoke_agent a", 1, start=1, **{"gen_ai.operation.name": "invoke_agent",
                                                  "gen_ai.agent.name": "a"}),
             chat(2, 1, 2, calls=[("f", {"x": 1}, "c1")], usage=(3, 1)),
             tool(3, "f", 1, 3, args='{"x": 1}', **{"gen_ai.tool.call.id": "c1"}),
             chat(4, 1, 4, text="done", usage=(5, 2))]
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        episode = build_episode(spans)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    assert episode.trajectory.tools == ("f",) and episode.trajectory[0].agent == "a"


def test_empty_input_gives_an_empty_episode():
    episode = build_episode([])
    assert (episode.task_id, episode.calls, episode.cost.input_tokens) == ("", (), 0)


# --- grouping --------------------------------------------------------------


def _group(trace, spans, logs=()):
    return SimpleNamespace(trace_id=trace, spans=spans, logs=list(logs), late=False)


def test_group_by_conversation_and_session():
    t1, t2, t3 = "a1" * 16, "b2" * 16, "c3" * 16
    g1 = _group(t1, [make("r", 1, trace=t1, start=1, **{"gen_ai.conversation.id": "conv",
                                                        "session.id": "s"}),
                     tool(2, "f", 1, 2, args="{}", trace=t1)])
    g2 = _group(t2, [make("r", 3, trace=t2, start=5, **{"gen_ai.conversation.id": "conv",
                                                        "session.id": "s"}),
                     tool(4, "g", 3, 6, args="{}", trace=t2)])
    g3 = _group(t3, [make("r", 5, trace=t3, start=9,
                          **{"traceloop.association.properties.session_id": "s"})])
    by_trace = list(build_episodes([g1, g2, g3]))
    assert len(by_trace) == 3
    by_conversation = list(build_episodes([g1, g2, g3], group_by="conversation"))
    assert [e.meta["trace_ids"] for e in by_conversation] == [[t3], [t1, t2]]
    assert by_conversation[1].trajectory.tools == ("f", "g")
    by_session = list(build_episodes([g1, g2, g3], group_by="session"))
    assert [e.meta["trace_ids"] for e in by_session] == [[t1, t2, t3]]


def test_unknown_group_by_is_refused():
    with pytest.raises(ValueError):
        list(build_episodes([], group_by="user"))


def test_groups_of_unrelated_logs_without_spans_give_no_episode():
    noise = _group("", [], [LogRecord(event_name="app.started", body="hello")])
    answer = _group("", [], [LogRecord(trace_id=TRACE, event_name="gen_ai.choice", body={
        "message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}})])
    episodes = list(build_episodes([noise, answer]))
    assert [e.calls for e in episodes] == [(("f", {}),)]
    assert episodes[0].provenance.trace_id == TRACE


# --- conventions of other frameworks (acceptance uses packages not in the corpus) -----


def test_vercel_ai_sdk_spans():
    gen = make("ai.generateText.doGenerate", 2, 1, 1, 5, **{
        "ai.response.toolCalls": json.dumps([{"toolCallType": "function", "toolCallId": "v1",
                                              "toolName": "search", "args": '{"q": "x"}'}]),
        "ai.usage.promptTokens": 11, "ai.usage.completionTokens": 4})
    outer = make("ai.generateText", 1, 0, 0, 20, **{"ai.usage.promptTokens": 11,
                                                   "ai.usage.completionTokens": 4})
    call = make("ai.toolCall", 3, 1, 6, 7, **{"ai.toolCall.name": "search",
                                             "ai.toolCall.id": "v1", "ai.toolCall.args": '{"q": "x"}',
                                             "ai.toolCall.result": '{"n": 1}'})
    episode = build_episode([outer, gen, call])
    assert episode.calls == (("search", {"q": "x"}),)
    assert (episode.trajectory[0].span_id, episode.trajectory[0].observation) == (sid(3), {"n": 1})
    assert cost_tuple(episode) == (11, 4, 0, 0)


def test_google_adk_spans():
    llm = make("call_llm", 2, 1, 1, 5, **{"gcp.vertex.agent.llm_response": json.dumps({
        "content": {"role": "model", "parts": [
            {"function_call": {"id": "g1", "name": "lookup", "args": {"id": 7}}}]}})})
    run = make("execute_tool lookup", 3, 1, 6, 7, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "g1", "gcp.vertex.agent.tool_call_args": '{"id": 7}'})
    agent_span = make("invoke_agent helper", 1, 0, 0, 10, **{"gen_ai.operation.name": "invoke_agent"})
    episode = build_episode([agent_span, llm, run])
    assert episode.calls == (("lookup", {"id": 7}),)
    assert episode.trajectory[0].agent == "helper"


def test_pydantic_ai_running_tool_span_and_events_attribute():
    chat_span = make("chat gpt-4o", 2, 1, 1, 5, **{
        "gen_ai.operation.name": "chat",
        "events": json.dumps([{"event.name": "gen_ai.user.message", "content": "hi"},
                              {"event.name": "gen_ai.choice", "index": 0, "message": {
                                  "role": "assistant", "tool_calls": [
                                      {"id": "p1", "type": "function", "function": {
                                          "name": "roll", "arguments": '{"sides": 6}'}}]}}])})
    tool_span = make("running tool", 3, 1, 6, 7, **{"gen_ai.tool.name": "roll",
                                                   "gen_ai.tool.call.id": "p1",
                                                   "tool_arguments": '{"sides": 6}',
                                                   "tool_response": "4"})
    agent_span = make("agent run", 1, 0, 0, 10, agent_name="dice")
    episode = build_episode([agent_span, chat_span, tool_span])
    assert episode.calls == (("roll", {"sides": 6}),)
    assert (episode.trajectory[0].agent, episode.trajectory[0].observation) == ("dice", "4")


def test_strands_gen_ai_choice_span_event_with_bedrock_content_blocks():
    event = SpanEvent("gen_ai.choice", attributes={
        "message": json.dumps([{"toolUse": {"toolUseId": "b1", "name": "calc",
                                            "input": {"x": 2}}}]),
        "finish_reason": "tool_use"})
    span = make("chat", 2, 0, 1, 2, events=(event,), **{"gen_ai.operation.name": "chat"})
    assert build_episode([span]).calls == (("calc", {"x": 2}),)


def test_gemini_function_call_parts():
    span = make("generate_content gemini", 2, 0, 1, 2, **{
        "gen_ai.operation.name": "generate_content",
        "gen_ai.output.messages": json.dumps([{"role": "model", "content": [
            {"functionCall": {"name": "find", "args": {"q": "a"}}},
            {"functionCall": {"name": "find", "args": {"q": "b"}}}]}])})
    assert build_episode([span]).calls == (("find", {"q": "a"}), ("find", {"q": "b"}))


def test_smolagents_style_recorded_python_call_is_unwrapped():
    span = make("get_weather", 3, 0, 1, 2, **{
        "openinference.span.kind": "TOOL", "tool.name": "get_weather",
        "input.value": '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Oslo"}}'})
    assert build_episode([span]).calls == (("get_weather", {"city": "Oslo"}),)


def test_arguments_named_args_are_not_mistaken_for_a_recorded_call():
    span = tool(3, "f", 0, 1, args='{"args": [1], "verbose": true}')
    assert build_episode([span]).calls == (("f", {"args": [1], "verbose": True}),)


def test_join_by_name_prefers_the_tools_own_agent():
    # two agents run concurrently and both ask for "search"; tool spans carry no call id
    spans = [agent(1, "A", 0, 0, 100), agent(2, "B", 0, 0, 100),
             chat(3, 1, 1, 5, calls=[("search", {"q": "a"}, "ca")]),
             chat(4, 2, 2, 6, calls=[("search", {"q": "b"}, "cb")]),
             tool(5, "search", 2, 7), tool(6, "search", 1, 8)]
    episode = build_episode(spans)
    by_span = {s.span_id: (s.agent, s.args) for s in episode.trajectory}
    assert by_span == {sid(5): ("B", {"q": "b"}), sid(6): ("A", {"q": "a"})}


# --- robustness: attribute values of any type never crash a build -------------------

_KEYS = [
    "gen_ai.operation.name", "openinference.span.kind", "traceloop.span.kind",
    "langfuse.observation.type", "gen_ai.output.messages", "llm.output_messages.0.message.role",
    "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
    "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
    "gen_ai.completion.0.tool_calls.0.name", "gen_ai.completion.0.tool_calls.x.arguments",
    "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.raw", "usage",
    "langfuse.observation.usage_details", "gen_ai.tool.name", "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments", "input.value", "output.value", "traceloop.entity.input",
    "gen_ai.response.id", "gen_ai.response.finish_reasons", "gen_ai.request.temperature",
    "gen_ai.request.seed", "llm.invocation_parameters", "error.type", "gen_ai.agent.name",
    "ek.task.id", "gen_ai.conversation.id", "session.id", "events", "response", "output",
    "langfuse.observation.output", "ai.response.toolCalls", "logfire.tags", "name",
]
_JSONISH = st.sampled_from([
    '{"a": 1}', "[1, 2]", '"x"', "{", "null", '[{"role": "assistant", "parts": 5}]',
    '[{"role": "assistant", "tool_calls": [{"function": {"name": 3}}]}]',
    '{"choices": [{"message": {"tool_calls": "no"}}]}', '{"output": [{"type": "function_call"}]}',
    "[{'type': 'function_call'", "ResponseFunctionToolCall(name=", '{"kwargs": 5}',
    '[{"event.name": "gen_ai.choice", "message": 7}]', '{"prompt_tokens_details": 3}',
])
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.floats(),
              st.text(max_size=20), st.binary(max_size=8), _JSONISH),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def _spans(draw):
    count = draw(st.integers(1, 6))
    spans = []
    for n in range(1, count + 1):
        attributes = draw(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=6))
        parent = draw(st.integers(0, count + 1))
        start = draw(st.integers(0, 50))
        spans.append(SpanRecord(
            TRACE, sid(n), sid(parent) if parent else "",
            draw(st.sampled_from(["chat m", "execute_tool f", "Function: g", "invoke_agent A",
                                  "Agent run: x", "ai.toolCall", "call_llm", "x"])),
            start_ns=start, end_ns=start + draw(st.integers(0, 50)),
            status_code=draw(st.integers(0, 2)), attributes=attributes,
            events=tuple(SpanEvent(draw(st.sampled_from(["exception", "gen_ai.choice",
                                                         "gen_ai.content.completion"])),
                                   attributes=draw(st.dictionaries(
                                       st.sampled_from(["message", "gen_ai.completion",
                                                        "exception.type", "tool_calls"]),
                                       _VALUES, max_size=2)))
                         for _ in range(draw(st.integers(0, 2))))))
    return spans


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_spans())
def test_any_attribute_values_build_an_episode_without_bad_spans(spans):
    episode = build_episode(spans)
    assert episode.meta["bad_spans"] == 0
    assert episode.provenance.span_count == len(spans)
    for step in episode.trajectory:
        assert isinstance(step.tool, str) and isinstance(dict(step.args), dict)
    assert episode.cost.input_tokens >= 0


def test_google_genai_synthetic_call_ids_do_not_merge_calls_of_different_turns():
    """opentelemetry-instrumentation-google-genai (1.3b0) invents call ids ``{name}_{part
    index}`` (the Gemini API gives none): the same tool called first in two turns gets the
    same id twice. Those are two calls, not one reported twice."""
    root = make("task", 1, start=0, end=100)
    first = chat(2, parent=1, start=1, end=2, calls=[("get_weather", {"city": "Paris"},
                                                      "get_weather_0")])
    second = chat(3, parent=1, start=3, end=4, calls=[("get_weather", {"city": "Lyon"},
                                                       "get_weather_0")])
    episode = build_episode([root, first, second])
    assert episode.calls == (("get_weather", {"city": "Paris"}),
                             ("get_weather", {"city": "Lyon"}))
    assert [s.call_id for s in episode.trajectory] == [None, None]


def test_a_non_decimal_digit_index_is_not_a_list_index():
    """'¹'.isdigit() is True but int('¹') fails: such a flattened key is a plain key."""
    span = make("call_llm", 1, **{"openinference.span.kind": "LLM",
                                   "llm.output_messages.¹.message.role": "assistant"})
    assert build_episode([span]).meta["bad_spans"] == 0


def test_litellm_request_span_calls_in_completion_function_call_keys():
    """litellm 1.110.2 (its own litellm_request span per call) writes ``"parts": []`` in
    gen_ai.output.messages for a tool-call answer, and the calls as legacy
    ``gen_ai.completion.N.function_call.*`` keys: the calls are read from there."""
    span = make("litellm_request", 1, **{
        "gen_ai.operation.name": "chat", "gen_ai.response.id": "r1",
        "gen_ai.response.finish_reasons": '["tool_calls"]',
        "gen_ai.usage.input_tokens": "120", "gen_ai.usage.output_tokens": "40",
        "gen_ai.output.messages": '[{"role": "assistant", "parts": [], '
                                  '"finish_reason": "tool_calls"}]',
        "gen_ai.completion.0.function_call.name": "get_weather",
        "gen_ai.completion.0.function_call.arguments": '{"city": "Paris"}',
        "gen_ai.completion.1.function_call.name": "get_time",
        "gen_ai.completion.1.function_call.arguments": '{"timezone": "UTC"}'})
    episode = build_episode([span])
    assert episode.calls == (("get_weather", {"city": "Paris"}),
                             ("get_time", {"timezone": "UTC"}))
    assert episode.cost.input_tokens == 120 and episode.provenance.args_captured


def test_an_empty_answer_that_says_it_called_tools_is_uncaptured():
    span = make("chat", 1, **{
        "gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.output.messages": '[{"role": "assistant", "parts": []}]'})
    episode = build_episode([span])
    assert episode.calls == () and episode.provenance.args_captured is False
    assert episode.meta["uncaptured_tool_calls"] == 1
