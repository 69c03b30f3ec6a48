"""Attribute names and accessors: every convention and pitfall of reference/semconv.md."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

import pytest

from ek_otel.ingest import semconv as sc
from ek_otel.ingest.messages import (
    calls_from_repr,
    flattened_output,
    output_of_messages,
    parse_arguments,
)
from ek_otel.ingest.records import STATUS_ERROR, SpanEvent, SpanRecord

T, S = "ab" * 16, "cd" * 8


def span(span_name: str = "s", **attributes) -> SpanRecord:
    return SpanRecord(T, S, name=span_name, attributes=attributes)


@pytest.mark.parametrize(
    "record, role",
    [
        (span("chat gpt-4o", **{"gen_ai.operation.name": "chat"}), sc.MODEL),
        (span("x", **{"gen_ai.operation.name": "text_completion"}), sc.MODEL),
        (span("x", **{"gen_ai.operation.name": "generate_content"}), sc.MODEL),
        (span("execute_tool f", **{"gen_ai.operation.name": "execute_tool"}), sc.TOOL),
        (span("invoke_agent A", **{"gen_ai.operation.name": "invoke_agent"}), sc.AGENT),
        (span("x", **{"gen_ai.operation.name": "embeddings"}), sc.OTHER),
        (span("ChatCompletion", **{"openinference.span.kind": "LLM"}), sc.MODEL),
        (span("f", **{"openinference.span.kind": "TOOL"}), sc.TOOL),
        (span("A", **{"openinference.span.kind": "AGENT"}), sc.AGENT),
        (span("turn", **{"openinference.span.kind": "CHAIN"}), sc.OTHER),
        (span("openai.chat", **{"llm.request.type": "chat"}), sc.MODEL),  # Traceloop 0.5x
        (span("openai.response"), sc.MODEL),  # Traceloop 0.62 Responses span name
        (span("f.tool", **{"traceloop.span.kind": "tool"}), sc.TOOL),
        (span("a.agent", **{"traceloop.span.kind": "agent"}), sc.AGENT),
        (span("w", **{"traceloop.span.kind": "workflow"}), sc.OTHER),
        (span("gen", **{"langfuse.observation.type": "generation"}), sc.MODEL),
        (span("t", **{"langfuse.observation.type": "tool"}), sc.TOOL),
        (span("a", **{"langfuse.observation.type": "agent"}), sc.AGENT),
        (span("Chat Completion with 'gpt-4o'"), sc.MODEL),  # Logfire template
        (span("Responses API with 'gpt-4o'"), sc.MODEL),
        (span("Function: get_weather"), sc.TOOL),
        (span("Agent run: 'Triage'"), sc.AGENT),
        (span("unknown", **{"gen_ai.operation.name": "unknown"}), sc.OTHER),
    ],
)
def test_span_role_of_each_convention(record, role):
    assert sc.span_role(record) == role


@pytest.mark.parametrize(
    "attributes, expected",
    [
        # OTel GenAI current names
        ({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
          "gen_ai.usage.cache_read.input_tokens": 40,
          "gen_ai.usage.reasoning.output_tokens": 5}, (100, 20, 40, 5)),
        # deprecated OTel names
        ({"gen_ai.usage.prompt_tokens": 11, "gen_ai.usage.completion_tokens": 3}, (11, 3, 0, 0)),
        # OpenInference
        ({"llm.token_count.prompt": 50, "llm.token_count.completion": 7,
          "llm.token_count.prompt_details.cache_read": 20,
          "llm.token_count.completion_details.reasoning": 4, "llm.token_count.total": 57},
         (50, 7, 20, 4)),
        # Traceloop 0.62: dot cache form, gen_ai.usage.reasoning_tokens
        ({"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 40,
          "gen_ai.usage.cache_read.input_tokens": 32, "gen_ai.usage.reasoning_tokens": 16},
         (120, 40, 32, 16)),
        # Traceloop 0.5x: underscore cache form, llm.usage.reasoning_tokens
        ({"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 40,
          "gen_ai.usage.cache_read_input_tokens": 32, "llm.usage.reasoning_tokens": 16,
          "llm.usage.total_tokens": 160}, (120, 40, 32, 16)),
        # Logfire: reasoning only inside gen_ai.usage.raw
        ({"gen_ai.usage.input_tokens": 9, "gen_ai.usage.output_tokens": 4,
          "gen_ai.usage.raw": '{"prompt_tokens": 9, "completion_tokens": 4, '
                              '"completion_tokens_details": {"reasoning_tokens": 2}, '
                              '"prompt_tokens_details": {"cached_tokens": 3}}'}, (9, 4, 3, 2)),
        # Langfuse usage_details with raw OpenAI keys
        ({"langfuse.observation.usage_details":
          '{"prompt_tokens": 30, "completion_tokens": 6, '
          '"prompt_tokens_details": {"cached_tokens": 10}}'}, (30, 6, 10, 0)),
        # Langfuse normalized keys
        ({"langfuse.observation.usage_details": '{"input": 8, "output": 2}'}, (8, 2, 0, 0)),
        # Agents-SDK usage object (Logfire agent spans), as a dict value
        ({"usage": {"requests": 2, "input_tokens": 70, "output_tokens": 12,
                    "input_tokens_details": {"cached_tokens": 6},
                    "output_tokens_details": {"reasoning_tokens": 1}}}, (70, 12, 6, 1)),
        # numeric strings (JSON int64 as string) are read
        ({"gen_ai.usage.input_tokens": "15", "gen_ai.usage.output_tokens": "5"}, (15, 5, 0, 0)),
    ],
)
def test_usage_of_each_convention(attributes, expected):
    usage = sc.usage_of(attributes)
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens,
            usage.reasoning_tokens) == expected


def test_usage_absent_or_unreadable_is_none():
    assert sc.usage_of({"gen_ai.request.model": "m"}) is None
    assert sc.usage_of({"gen_ai.usage.input_tokens": ["x"], "gen_ai.usage.output_tokens": {}}) is None
    assert sc.usage_of({"gen_ai.usage.raw": "not json"}) is None
    assert sc.usage_of(None) is None  # type: ignore[arg-type]


def test_explicit_attributes_win_over_raw_json():
    usage = sc.usage_of({"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 1,
                         "gen_ai.usage.raw": '{"prompt_tokens": 999, "completion_tokens": 999}'})
    assert (usage.input_tokens, usage.output_tokens) == (10, 1)


def test_tool_names_from_each_convention():
    assert sc.tool_name_of(span("execute_tool x", **{"gen_ai.tool.name": "get_weather"})) == "get_weather"
    assert sc.tool_name_of(span("execute_tool get_time")) == "get_time"
    assert sc.tool_name_of(span("ignored", **{"tool.name": "search"})) == "search"
    assert sc.tool_name_of(span("Function: lookup")) == "lookup"
    assert sc.tool_name_of(span("Function: lookup", name="lookup2")) == "lookup2"
    assert sc.tool_name_of(span("add.tool")) == "add"


def test_tool_arguments_of_each_convention():
    assert sc.tool_args_of({"gen_ai.tool.call.arguments": '{"a": 1}'}) == (True, '{"a": 1}')
    assert sc.tool_args_of({"input.value": '{"a": 1}'}) == (True, '{"a": 1}')
    assert sc.tool_args_of({"input": {"a": 1}}) == (True, {"a": 1})
    assert sc.tool_args_of({"traceloop.entity.input": '{"args": [], "kwargs": {"a": 1}}'}) == (
        True, {"a": 1})
    assert sc.tool_args_of({"traceloop.entity.input": '{"args": [2], "kwargs": {"a": 1}}'}) == (
        True, {"_args": [2], "a": 1})
    assert sc.tool_args_of({"gen_ai.tool.name": "f"}) == (False, None)


def test_error_of_each_convention():
    assert sc.error_of(SpanRecord(T, S, status_code=STATUS_ERROR, status_message="bad")) == "bad"
    assert sc.error_of(SpanRecord(T, S, status_code=STATUS_ERROR)) == "error"
    assert sc.error_of(SpanRecord(T, S, attributes={"error.type": "BadRequestError"})) == "BadRequestError"
    # openai-v2 2.4b0 bug: the class repr
    assert sc.error_of({"error.type": "<class 'openai.BadRequestError'>"}) == "openai.BadRequestError"
    # OpenInference: status ERROR + exception event, no error.type
    exc = SpanEvent("exception", attributes={"exception.type": "ValueError",
                                              "exception.message": "no"})
    assert sc.error_of(SpanRecord(T, S, status_code=STATUS_ERROR, events=(exc,))) == "ValueError"
    assert sc.error_of({"langfuse.observation.level": "ERROR",
                        "langfuse.observation.status_message": "timeout"}) == "timeout"
    assert sc.error_of(SpanRecord(T, S, attributes={"langfuse.observation.level": "DEFAULT"})) is None


def test_model_and_provenance_accessors():
    oi = {"llm.model_name": "gpt-4o-2024", "llm.invocation_parameters":
          '{"model": "gpt-4o", "temperature": 0.3, "seed": 11}'}
    assert sc.response_model_of(oi) == "gpt-4o-2024"
    assert sc.request_model_of(oi) == "gpt-4o"
    assert sc.temperature_of(oi) == 0.3
    assert sc.seed_of(oi) == 11
    assert sc.seed_of({"gen_ai.request.seed": 7}) == 7
    assert sc.seed_of({"gen_ai.openai.request.seed": "8"}) == 8  # deprecated name
    assert sc.temperature_of({"gen_ai.request.temperature": 0.2}) == 0.2


def test_session_and_conversation_ids():
    assert sc.conversation_id_of({"gen_ai.conversation.id": "c1"}) == "c1"
    assert sc.session_id_of({"traceloop.association.properties.session_id": "s2"}) == "s2"
    # Logfire scrubs values containing "session"
    assert sc.session_id_of({"session.id": "[Scrubbed due to 'session']"}) is None


def test_agent_names():
    assert sc.agent_name_of(span("invoke_agent Planner")) == "Planner"
    assert sc.agent_name_of(span("x", **{"gen_ai.agent.name": "Triage"})) == "Triage"
    assert sc.agent_name_of(span("Agent run: 'Support'")) == "Support"
    assert sc.agent_name_of(span("WeatherAgent", **{"agent.name": "WeatherAgent",
                                                    "openinference.span.kind": "AGENT"})) == "WeatherAgent"


def test_task_id_from_openinference_metadata_json():
    assert sc.first_value({"metadata": '{"task_id": "t7"}'}, sc.DEFAULT_TASK_ID_KEYS) == "t7"
    assert sc.DEFAULT_TASK_ID_KEYS[0] == "ek.task.id"


# --- message formats -------------------------------------------------------


def test_parse_arguments_rules():
    assert parse_arguments('{"a": 1}') == ({"a": 1}, True)
    assert parse_arguments({"a": 1}) == ({"a": 1}, True)
    assert parse_arguments('"{\\"a\\": 1}"') == ({"a": 1}, True)  # double-encoded
    assert parse_arguments("a=1") == ({"_raw": "a=1"}, True)
    assert parse_arguments("[1]") == ({"_value": [1]}, True)
    assert parse_arguments(None) == ({}, False)


def test_semconv_json_messages_with_parallel_calls_and_text():
    out = output_of_messages(
        '[{"role":"assistant","parts":[{"type":"text","content":"Let me check."},'
        '{"type":"tool_call","id":"a","name":"f","arguments":{"x":1}},'
        '{"type":"tool_call","id":"b","name":"g","arguments":"{\\"y\\": 2}"}],'
        '"finish_reason":"tool_call"}]')
    assert [(c.call_id, c.name, c.args, c.index) for c in out.calls] == [
        ("a", "f", {"x": 1}, 0), ("b", "g", {"y": 2}, 1)]
    assert out.text == "Let me check."


def test_tool_call_without_arguments_is_not_captured():
    out = output_of_messages([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "a", "name": "f"}]}])
    assert out.calls[0].args_captured is False and out.calls[0].args == {}


def test_user_and_tool_messages_are_not_answers():
    out = output_of_messages([{"role": "user", "content": "hi"},
                              {"role": "tool", "content": "42", "tool_call_id": "a"}])
    assert out.calls == () and out.text is None


def test_openinference_flattened_output():
    attrs = {
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "f",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"a": 1}',
        "llm.output_messages.0.message.tool_calls.1.tool_call.id": "c2",
        "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": "g",
        "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments": "{}",
    }
    out = flattened_output(attrs, "llm.output_messages")
    assert [(c.call_id, c.name, c.args) for c in out.calls] == [("c1", "f", {"a": 1}),
                                                               ("c2", "g", {})]


def test_openinference_multimodal_contents_text():
    attrs = {"llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.contents.0.message_content.type": "text",
             "llm.output_messages.0.message.contents.0.message_content.text": "Done."}
    assert flattened_output(attrs, "llm.output_messages").text == "Done."


def test_traceloop_legacy_flattened_output_many_indices_in_order():
    attrs = {"gen_ai.completion.0.role": "assistant"}
    for m in range(12):  # index 10 must come after 9, not after 1
        attrs[f"gen_ai.completion.0.tool_calls.{m}.name"] = f"t{m}"
        attrs[f"gen_ai.completion.0.tool_calls.{m}.arguments"] = "{}"
    out = flattened_output(attrs, "gen_ai.completion")
    assert [c.name for c in out.calls] == [f"t{m}" for m in range(12)]


def test_responses_api_output_items_are_separate_calls():
    out = output_of_messages({"output": [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}'},
        {"type": "function_call", "call_id": "c2", "name": "f", "arguments": '{"a": 2}'},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "ok"}]}]})
    assert [(c.call_id, c.args) for c in out.calls] == [("c1", {"a": 1}), ("c2", {"a": 2})]
    assert out.text == "ok"


def test_otel_agents_v2_python_repr_best_effort():
    text = ("ResponseFunctionToolCall(arguments='{\"city\": \"Paris\"}', call_id='call_1', "
            "name='get_weather', type='function_call', id='fc_1', status='completed')")
    assert [(c.call_id, c.name, c.args) for c in calls_from_repr(text)] == [
        ("call_1", "get_weather", {"city": "Paris"})]
    as_dict = "{'arguments': '{}', 'call_id': 'c9', 'name': 'ping', 'type': 'function_call'}"
    assert [(c.call_id, c.name) for c in calls_from_repr(as_dict)] == [("c9", "ping")]
    assert calls_from_repr("The weather is nice.") == []


# ---------------------------------------------------------------------------
# The promise of ek_otel.ingest.semconv: the episode builder names no attribute itself
# ---------------------------------------------------------------------------

_BUILDER_MODULES = ("episodes", "span_tree", "model_calls", "steps", "model_output", "transcript",
                    "requested_calls")
#: What an attribute or event name looks like: gen_ai.choice, llm.output_messages, ...
_DOTTED_NAME = re.compile(r"^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)+$")


def _code_strings(source: str) -> list:
    """Every string constant in Python source code (docstrings left out)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


@pytest.mark.parametrize("module_name", _BUILDER_MODULES)
def test_the_episode_builder_names_no_attribute_or_event(module_name):
    source = inspect.getsource(importlib.import_module(f"ek_otel.ingest.{module_name}"))
    names = [s for s in _code_strings(source) if _DOTTED_NAME.match(s)]
    assert names == [], f"ek_otel/ingest/{module_name}.py names {names}: define them in ek_otel.ingest.semconv"


def test_the_name_check_finds_a_hard_coded_name():
    source = '"""Doc naming gen_ai.choice."""\nx = attributes.get("gen_ai.output.messages", "plain")\n'
    assert [s for s in _code_strings(source) if _DOTTED_NAME.match(s)] == ["gen_ai.output.messages"]
