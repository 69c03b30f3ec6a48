"""Model answers: the attributes and events that carry what a model call returned.

Each convention records the answer somewhere else: OTel GenAI in
``gen_ai.output.messages`` (or log events), OpenInference and Traceloop 0.5x as flattened
attributes, the first GenAI conventions as span events, Langfuse, Logfire and the
frameworks in their own attributes. :mod:`ek_otel.ingest.model_output` reads them in the
order given here.

Example:
    >>> finish_reasons_of({"llm.finish_reason": "tool_calls"}), CHOICE_EVENT in OUTPUT_EVENTS
    (('tool_calls',), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from .values import json_value

__all__ = [
    "OUTPUT_MESSAGES",
    "FLATTENED_OUTPUT_PREFIXES",
    "LEGACY_COMPLETION_EVENT",
    "LEGACY_COMPLETION_ATTRIBUTE",
    "OPENLIT_TOOLS_PLACEHOLDER",
    "CHOICE_EVENT",
    "CHOICE_MESSAGE",
    "CHOICE_TOOL_CALLS",
    "INFERENCE_DETAILS_EVENT",
    "OUTPUT_EVENTS",
    "HISTORY_EVENTS",
    "ANSWER_EVENTS",
    "OUTPUT_VALUE_KEYS",
    "EVENTS_JSON",
    "EVENT_NAME_KEY",
    "LOGFIRE_CHOICE_KEYS",
    "EVENT_INPUT_NAMES",
    "UNKNOWN_EVENT",
    "VERTEX_LLM_RESPONSE",
    "VERTEX_RESPONSE_CONTENT",
    "AI_RESPONSE_TEXT",
    "ROOT_OUTPUT_KEY",
    "AI_RESPONSE_OBJECT",
    "WORKFLOW_OUTPUT_KEY",
    "workflow_output_of",
    "TOOL_FINISH_REASONS",
    "MLFLOW_OUTPUTS",
    "MLFLOW_CHUNK_EVENT_PREFIX",
    "MLFLOW_CHUNK_VALUE",
    "MASTRA_SPAN_TYPE",
    "MASTRA_CHUNK",
    "MASTRA_CHUNK_OUTPUT",
    "MASTRA_STEP",
    "MASTRA_RESPONSE_BODY",
    "finish_reasons_of",
]

#: The answer as a list of messages (OTel GenAI); also inside the inference details event.
OUTPUT_MESSAGES = "gen_ai.output.messages"
#: Flattened answers: OpenInference ``llm.output_messages.N.message.*``, Traceloop 0.5x
#: ``gen_ai.completion.N.*``, tried in this order.
FLATTENED_OUTPUT_PREFIXES = ("llm.output_messages", "gen_ai.completion")
#: The span event of the first GenAI conventions, and its attribute holding the answer.
LEGACY_COMPLETION_EVENT = "gen_ai.content.completion"
LEGACY_COMPLETION_ATTRIBUTE = "gen_ai.completion"
#: What OpenLit (1.2x) writes as the completion of EVERY call that offered tools, whatever
#: the model answered: no answer is recorded (neither the text nor the calls).
OPENLIT_TOOLS_PLACEHOLDER = "Function called with tools"
#: The choice event (a span event or a log event), its message field, and the tool calls
#: its body may hold beside the message.
CHOICE_EVENT = "gen_ai.choice"
CHOICE_MESSAGE = "message"
CHOICE_TOOL_CALLS = "tool_calls"
#: The log event carrying ``gen_ai.output.messages`` among its attributes or in its body.
INFERENCE_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
#: Log events that carry a model's answer.
OUTPUT_EVENTS = frozenset({CHOICE_EVENT, INFERENCE_DETAILS_EVENT})
#: Log/span events that repeat earlier assistant turns (input history; used for call ids
#: not seen in any output).
HISTORY_EVENTS = frozenset({"gen_ai.assistant.message"})
#: Every event that holds a model's answer (a group of only such logs is still an episode).
ANSWER_EVENTS = OUTPUT_EVENTS | HISTORY_EVENTS
#: MLflow's recorded output of a span, JSON: a model call's whole response object.
MLFLOW_OUTPUTS = "mlflow.spanOutputs"
#: Attributes holding the answer as messages or a response object, tried in order:
#: Langfuse, OpenInference's raw response, Logfire's response object and output messages,
#: the Vercel AI SDK's tool calls, MLflow's response object.
OUTPUT_VALUE_KEYS = ("langfuse.observation.output", "output.value", "response", "output",
                     "ai.response.toolCalls", MLFLOW_OUTPUTS)
#: MLflow records each chunk of a streamed call as a span event ``mlflow.chunk.item.N``
#: (the ``chat.completion.chunk`` as JSON under ``mlflow.chunk.value``); its own rebuilt
#: answer of such a call lacks the tool calls, the chunks hold them and the full usage.
MLFLOW_CHUNK_EVENT_PREFIX = "mlflow.chunk.item."
MLFLOW_CHUNK_VALUE = "mlflow.chunk.value"
#: Mastra records each chunk of a model's answer as a child span (``mastra.span.type``
#: ``model_chunk``) of the model-call span; the tool calls the model requested are only there
#: (``mastra.model_chunk.output``: ``{"toolName", "toolCallId", "toolInput"}``). The step span
#: above (``model_step``) keeps the provider's raw response of a non-streamed call, even with
#: ``hideInput``/``hideOutput``.
MASTRA_SPAN_TYPE = "mastra.span.type"
MASTRA_CHUNK = "model_chunk"
MASTRA_CHUNK_OUTPUT = "mastra.model_chunk.output"
MASTRA_STEP = "model_step"
MASTRA_RESPONSE_BODY = "mastra.metadata.body"
#: A JSON list of events (Logfire / Pydantic AI), each naming itself under ``event.name``.
EVENTS_JSON = "events"
EVENT_NAME_KEY = "event.name"
#: Logfire's google-genai events carry only their bodies: a choice is the one with these keys.
LOGFIRE_CHOICE_KEYS = frozenset({"index", "finish_reason"})
#: Events of such a list that are input: the answer is what follows the last of them.
EVENT_INPUT_NAMES = frozenset({"gen_ai.user.message", "gen_ai.tool.message",
                               "gen_ai.system.message"})
#: Logfire's event for an item it has no message form for (a hosted call: the item is
#: its ``data``).
UNKNOWN_EVENT = "gen_ai.unknown"
#: Google ADK's recorded response, and its field holding the answer message.
VERTEX_LLM_RESPONSE = "gcp.vertex.agent.llm_response"
VERTEX_RESPONSE_CONTENT = "content"
#: The Vercel AI SDK's answer text.
AI_RESPONSE_TEXT = "ai.response.text"
#: The Vercel AI SDK's structured answer (``generateObject``, ``streamObject``): the object's
#: JSON text, the answer as it was given.
AI_RESPONSE_OBJECT = "ai.response.object"
#: The root span's recorded output, the episode's answer when no model answer has text.
ROOT_OUTPUT_KEY = "output.value"
#: OpenLLMetry's recorded output of a workflow or task span (LangChain: the chain's
#: ``{"outputs": {...}, "kwargs": {...}}``).
WORKFLOW_OUTPUT_KEY = "traceloop.entity.output"
_WORKFLOW_KIND_KEY = "traceloop.span.kind"
_WORKFLOW_KINDS = frozenset({"workflow", "agent"})


def workflow_output_of(attributes: Mapping) -> Optional[str]:
    """The answer an OpenLLMetry workflow (or agent) span recorded: the one text of its
    chain's ``outputs``, else the recorded output as it is; None when it records none.

    Example:
        >>> workflow_output_of({"traceloop.span.kind": "workflow",
        ...     "traceloop.entity.output": '{"outputs": {"output": "It is 18 C."}, "kwargs": {}}'})
        'It is 18 C.'
        >>> workflow_output_of({"traceloop.entity.output": "x"}) is None  # not a workflow
        True
    """
    kind = attributes.get(_WORKFLOW_KIND_KEY)
    if type(kind) is not str or kind not in _WORKFLOW_KINDS:
        return None
    value = attributes.get(WORKFLOW_OUTPUT_KEY)
    if not isinstance(value, str) or not value:
        return None
    parsed = json_value(value)
    outputs = parsed.get("outputs") if isinstance(parsed, Mapping) else None
    if isinstance(outputs, Mapping):
        texts = [v for v in outputs.values() if isinstance(v, str) and v]
        if len(texts) == 1:
            return texts[0]
    if isinstance(outputs, str) and outputs:
        return outputs
    return value

#: Finish reasons (OTel GenAI, OpenInference), else the anthropic SDK's own spans' stop reason.
_FINISH_REASONS = "gen_ai.response.finish_reasons"
_OPENINFERENCE_FINISH_REASON = "llm.finish_reason"
_ANTHROPIC_STOP_REASON = "anthropic.message.stop_reason"
#: Semantic Kernel: one string, the choices' ``FinishReason`` enum members joined by ","
#: (``"FinishReason.TOOL_CALLS"``), read as ``tool_calls``.
_SEMANTIC_KERNEL_FINISH_REASON = "gen_ai.response.finish_reason"
_SEMANTIC_KERNEL_ENUM = "FinishReason."
#: Finish reasons that say the model asked for tools (the last: Vercel AI SDK, Mastra).
TOOL_FINISH_REASONS = frozenset({"tool_calls", "tool_call", "function_call", "tool_use",
                                 "tool-calls"})


def finish_reasons_of(attributes: Mapping) -> tuple:
    """The finish reasons a model-call span recorded, as strings.

    Example:
        >>> finish_reasons_of({"gen_ai.response.finish_reasons": ["stop"]})
        ('stop',)
        >>> finish_reasons_of({"anthropic.message.stop_reason": "tool_use"})
        ('tool_use',)
        >>> finish_reasons_of({"gen_ai.response.finish_reasons": '["tool-calls"]'})
        ('tool-calls',)
        >>> finish_reasons_of({"gen_ai.response.finish_reason": "FinishReason.TOOL_CALLS"})
        ('tool_calls',)
    """
    value = attributes.get(_FINISH_REASONS, attributes.get(_OPENINFERENCE_FINISH_REASON))
    if value is None:  # the anthropic SDK's own spans (2.x): only its stop reason
        value = attributes.get(_ANTHROPIC_STOP_REASON)
    if value is None:
        value = attributes.get(_SEMANTIC_KERNEL_FINISH_REASON)
        if isinstance(value, str) and _SEMANTIC_KERNEL_ENUM in value:
            return tuple(reason.strip().removeprefix(_SEMANTIC_KERNEL_ENUM).lower()
                         for reason in value.split(","))
    if isinstance(value, str) and value.startswith("["):  # Mastra: a JSON list
        value = json_value(value)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(map(str, value))
    return ()
