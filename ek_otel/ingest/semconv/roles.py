"""Span roles: is a span a model call, a tool execution, an agent, or something else?

Example:
    >>> span_role({"gen_ai.operation.name": "execute_tool"}), span_role({"openinference.span.kind": "LLM"})
    ('tool', 'model')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


__all__ = ["MODEL", "TOOL", "AGENT", "OTHER", "GROUPING_TOOL_NAMES", "MLFLOW_SPAN_TYPE",
           "span_role"]


MODEL = "model"
TOOL = "tool"
AGENT = "agent"
OTHER = "other"

OPERATION = "gen_ai.operation.name"
OPENINFERENCE_KIND = "openinference.span.kind"
TRACELOOP_KIND = "traceloop.span.kind"
TRACELOOP_REQUEST_TYPE = "llm.request.type"
LANGFUSE_TYPE = "langfuse.observation.type"
LOGFIRE_SPAN_TYPE = "logfire.span_type"
TOOL_NAME = "gen_ai.tool.name"
#: Tool names of spans that group other tool executions, not calls of their own: Google
#: ADK's ``execute_tool (merged)`` over the tools of one answer run in parallel.
GROUPING_TOOL_NAMES = frozenset({"(merged tools)"})
#: MLflow's span type, JSON-encoded as every ``mlflow.*`` value: ``'"CHAT_MODEL"'``.
MLFLOW_SPAN_TYPE = "mlflow.spanType"

#: The one dispatch on attribute keys: ``(key, normalize, value -> role)``, asked in
#: order; the first key whose value names a role decides. The span-name rules of
#: :func:`span_role` come after.
_ROLE_BY_ATTRIBUTE: tuple = (
    (OPERATION, str.lower, {
        "execute_tool": TOOL,
        "invoke_agent": AGENT, "create_agent": AGENT,
        **dict.fromkeys(("chat", "text_completion", "generate_content", "completion", "responses",
                         "response"), MODEL),
    }),
    (OPENINFERENCE_KIND, str.upper, {"LLM": MODEL, "TOOL": TOOL, "AGENT": AGENT}),
    (TRACELOOP_KIND, str.lower, {"tool": TOOL, "agent": AGENT}),
    (LANGFUSE_TYPE, str.lower, {"generation": MODEL, "tool": TOOL, "agent": AGENT}),
    (TRACELOOP_REQUEST_TYPE, str.lower, {"chat": MODEL, "completion": MODEL}),
    (MLFLOW_SPAN_TYPE, str, {'"LLM"': MODEL, '"CHAT_MODEL"': MODEL, '"TOOL"': TOOL,
                             '"AGENT"': AGENT}),
)
#: The GenAI conventions name a span ``{gen_ai.operation.name} {target}``: a span with
#: GenAI attributes named so has the operation's role even when the attribute itself is
#: missing (Strands' older spans: ``invoke_agent Strands Agents``, ``execute_tool f``).
_OPERATION_ROLES: dict = _ROLE_BY_ATTRIBUTE[0][2]
_GENAI_PREFIX = "gen_ai."
_AGENT_NAME = "gen_ai.agent.name"
#: A tool span's name, id and arguments under their OpenInference / Strands 0.x keys.
_EXECUTED_TOOL_NAME = "tool.name"
_EXECUTED_TOOL_KEYS = frozenset({"tool.id", "tool.parameters"})
#: The model that answered: only a model call has it (Semantic Kernel's spans as Langfuse's
#: tests keep them carry nothing else).
RESPONSE_MODEL = "gen_ai.response.model"
_MODEL_SPAN_NAMES = frozenset({"openai.chat", "openai.completion", "openai.response"})
#: The Vercel AI SDK's ``ai.*`` root spans: its loop of model and tool calls (the GenAI
#: integration of ``ai`` 7 names the same span ``invoke_agent``).
_VERCEL_AGENT_SPANS = frozenset({"ai.generateText", "ai.streamText", "ai.generateObject",
                                 "ai.streamObject"})
#: Logfire names spans by their message template (``logfire.msg`` holds the rendered text).
_LOGFIRE_MODEL_PREFIXES = ("chat completion with", "responses api with", "completion with")
LOGFIRE_TAGS = "logfire.tags"
LOGFIRE_MSG = "logfire.msg"
#: Spans an instrumentor marks as model calls that are none: LlamaIndex's
#: ``<LLM class>._prepare_chat_with_tools`` (OpenInference kind LLM) builds the request of
#: the ``achat``/``astream_chat`` call that follows it; it calls no model.
_NOT_MODEL_CALL_SUFFIXES = ("._prepare_chat_with_tools",)


def span_role(span: Any) -> str:
    """Classify a span as a model call, a tool execution, an agent, or something else.

    Recognized: ``gen_ai.operation.name``; OpenInference ``openinference.span.kind``
    (LLM, TOOL, AGENT); Traceloop ``traceloop.span.kind`` and ``llm.request.type`` and its
    ``openai.chat``/``openai.response`` span names; Langfuse ``langfuse.observation.type``;
    Logfire span-name templates (``Chat Completion with …``, ``Function: …``,
    ``Agent run: …``); MLflow ``mlflow.spanType`` (LLM, CHAT_MODEL, TOOL, AGENT); the Vercel
    AI SDK's ``ai.*`` span names; the GenAI span-name convention (``execute_tool f``,
    ``invoke_agent a``, ``chat m``) on a span with ``gen_ai.*`` attributes. Embeddings and
    retrieval are not model calls here.

    Example:
        >>> span_role({"openinference.span.kind": "TOOL"})
        'tool'
        >>> from ek_otel.ingest.records import SpanRecord
        >>> span_role(SpanRecord("a" * 32, "b" * 16, name="Function: get_weather"))
        'tool'
        >>> span_role({"gen_ai.operation.name": "embeddings"})
        'other'
        >>> span_role({"gen_ai.operation.name": "execute_tool",
        ...            "gen_ai.tool.name": "(merged tools)"})  # Google ADK, parallel calls
        'other'
        >>> span_role(SpanRecord("a" * 32, "b" * 16, name="invoke_agent Strands Agents",
        ...                      attributes={"gen_ai.agent.name": "Strands Agents"}))
        'agent'
        >>> span_role({"gen_ai.response.model": "gpt-4-0613"})
        'model'
        >>> span_role(SpanRecord("a" * 32, "b" * 16, name="OpenAI._prepare_chat_with_tools",
        ...                      attributes={"openinference.span.kind": "LLM"}))
        'other'
    """
    attributes = getattr(span, "attributes", span)  # attributes_of, without a call per span
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return OTHER
    name = getattr(span, "name", "") or ""
    if name.endswith(_NOT_MODEL_CALL_SUFFIXES):
        return OTHER
    get = attributes.get
    tool_name = get(TOOL_NAME)
    if isinstance(tool_name, str) and tool_name in GROUPING_TOOL_NAMES:
        return OTHER  # a span over other tool executions is no call
    for key, normalize, roles in _ROLE_BY_ATTRIBUTE:
        value = get(key)
        if type(value) is not str and not isinstance(value, str):
            continue  # absent or no text: no role ("" names none in any table)
        role = roles.get(normalize(value))
        if role is not None:
            return role
    if " " in name:
        role = _OPERATION_ROLES.get(name.split(" ", 1)[0].lower())
        if role is not None and any(type(k) is str and k.startswith(_GENAI_PREFIX)
                                    for k in attributes):
            return role
    if name in _MODEL_SPAN_NAMES:
        return MODEL
    if name.startswith("Function:"):
        return TOOL
    if name.lower().startswith(_LOGFIRE_MODEL_PREFIXES):
        return MODEL
    tags = attributes.get(LOGFIRE_TAGS)
    if isinstance(tags, (list, tuple)) and "LLM" in tags:
        return MODEL
    if name.startswith("Agent run:") or name == "agent run":  # Logfire, Pydantic AI
        return AGENT
    if name and name == attributes.get(_AGENT_NAME):  # a span named after its own agent
        return AGENT  # (Strands 0.1: the agent span is the agent's name)
    if name == "ai.toolCall" or name == "running tool":  # Vercel AI SDK, Pydantic AI
        return TOOL
    if name in _VERCEL_AGENT_SPANS:
        return AGENT
    if name.startswith("ai.") and name.endswith((".doGenerate", ".doStream")):  # Vercel AI
        return MODEL
    if name == "call_llm":  # Google ADK
        return MODEL
    if TOOL_NAME in attributes:  # a tool span whose operation name is missing
        return TOOL
    if _EXECUTED_TOOL_NAME in attributes and not _EXECUTED_TOOL_KEYS.isdisjoint(attributes):
        return TOOL  # a tool's name with its call id or arguments (Strands 0.x ``Tool: f``)
    if RESPONSE_MODEL in attributes:  # a model's response: a model call whatever its name
        return MODEL
    return OTHER
