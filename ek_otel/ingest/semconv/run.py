"""Run facts: task, conversation and session ids; agents, models, request parameters,
response ids, errors and the service.

Example:
    >>> conversation_id_of({"gen_ai.conversation.id": "c1"}), request_model_of({"gen_ai.request.model": "m"})
    ('c1', 'm')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Optional

from .outputs import MLFLOW_OUTPUTS, VERTEX_LLM_RESPONSE
from .roles import LOGFIRE_MSG, MLFLOW_SPAN_TYPE, OPENINFERENCE_KIND, TRACELOOP_KIND
from .values import as_float, as_int, attributes_of, first_str, first_value, json_value, text_or_empty

__all__ = [
    "DEFAULT_TASK_ID_KEYS",
    "CONVERSATION_ID_KEYS",
    "SESSION_ID_KEYS",
    "AGENT_NAME_KEYS",
    "SERVICE_NAME",
    "SERVICE_VERSION",
    "agent_name_of",
    "response_id_of",
    "request_model_of",
    "response_model_of",
    "temperature_of",
    "seed_of",
    "error_of",
    "conversation_id_of",
    "session_id_of",
]


#: Where a task id is looked up (root span first, then the resource), first match wins.
#: ``ek.task.id`` is ours; the others are what users of each ecosystem can already set
#: without code changes: a plain ``task.id``/``task_id`` attribute or resource attribute,
#: a Traceloop association property, Langfuse trace metadata, and OpenInference metadata
#: (its ``metadata`` JSON attribute is read for a ``task_id`` key).
DEFAULT_TASK_ID_KEYS: tuple = (
    "ek.task.id",
    "gen_ai.task.id",
    "task.id",
    "task_id",
    "traceloop.association.properties.task_id",
    "langfuse.trace.metadata.task_id",
    "metadata.task_id",
    "mastra.metadata.task_id",  # Mastra trace metadata (tracingOptions.metadata)
)

#: ``gen_ai.conversation.id`` (OTel GenAI); Traceloop carries it as an association property.
CONVERSATION_ID_KEYS: tuple = (
    "gen_ai.conversation.id",
    "traceloop.association.properties.conversation_id",
)

#: The generic ``session.id`` (OpenInference, Langfuse) and its Traceloop/Langfuse variants.
SESSION_ID_KEYS: tuple = (
    "session.id",
    "traceloop.association.properties.session_id",
    "langfuse.session.id",
    "gen_ai.conversation.id",
)


# ---------------------------------------------------------------------------
# Agents, models, provenance
# ---------------------------------------------------------------------------

AGENT_NAME_KEYS: tuple = (
    "gen_ai.agent.name",
    "agent.name",
    "agent_name",  # Logfire
    "langfuse.observation.name",
    "ai.telemetry.functionId",  # Vercel AI SDK (gen_ai.agent.name in its GenAI integration)
)
AGENT_ID_KEYS: tuple = ("gen_ai.agent.id", "graph.node.id")
RESPONSE_ID_KEYS: tuple = ("gen_ai.response.id", "llm.response.id", "langfuse.observation.id")
REQUEST_MODEL_KEYS: tuple = (
    "gen_ai.request.model",
    "llm.request.model_name",
    "llm.request.model",
)
RESPONSE_MODEL_KEYS: tuple = (
    "gen_ai.response.model",
    "llm.response.model_name",
    "llm.response.model",
    "llm.model_name",  # OpenInference openai stores the response model here
    "langfuse.observation.model.name",
    "mlflow.llm.model",  # JSON-encoded, as every mlflow.* value
)
#: JSON objects holding the request parameters: OpenInference ``llm.invocation_parameters``;
#: Logfire's Agents-SDK ``model_settings``/``model_config`` and client ``request_data``;
#: Langfuse's ``langfuse.observation.model.parameters``.
#: MLflow's ``mlflow.spanInputs`` of a model call: the client call's keyword arguments.
INVOCATION_PARAMETER_KEYS: tuple = (
    "llm.invocation_parameters", "model_settings", "model_config", "request_data",
    "langfuse.observation.model.parameters", "mlflow.spanInputs")
TEMPERATURE_KEYS: tuple = ("gen_ai.request.temperature", "llm.request.temperature")
SEED_KEYS: tuple = ("gen_ai.request.seed", "gen_ai.openai.request.seed", "llm.request.seed")
#: Where a temperature or a seed can be: without any of these keys there is none.
_TEMPERATURE_ANY = frozenset(TEMPERATURE_KEYS + INVOCATION_PARAMETER_KEYS)
_SEED_ANY = frozenset(SEED_KEYS + INVOCATION_PARAMETER_KEYS)
SERVICE_NAME = "service.name"
SERVICE_VERSION = "service.version"
ERROR_TYPE = "error.type"
LANGFUSE_LEVEL = "langfuse.observation.level"
LANGFUSE_STATUS = "langfuse.observation.status_message"


#: OpenInference names a framework's agent span ``<agent name>.<method>``: smolagents
#: ``WeatherAgent.run``, CrewAI ``WeatherAgent._execute_core``.
_AGENT_METHOD_SUFFIXES = (".run", "._execute_core")


def agent_name_of(span: Any) -> Optional[str]:
    """An agent span's name: attributes, else the ``invoke_agent X``/``Agent run: X`` template.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> agent_name_of(SpanRecord("a" * 32, "b" * 16, name="invoke_agent Planner"))
        'Planner'
        >>> agent_name_of({"agent.name": "Triage"})
        'Triage'
        >>> agent_name_of(SpanRecord("a" * 32, "b" * 16, name="WeatherAgent.run"))
        'WeatherAgent'
    """
    attributes = attributes_of(span)
    if attributes is None:
        return None
    name = first_str(attributes, AGENT_NAME_KEYS)
    if name:
        return name
    span_name = getattr(span, "name", "") or ""
    if span_name.startswith("Agent run:"):  # Logfire: the template is the span name
        name = first_str(attributes, ("name",))
        if name:
            return name
        span_name = first_str(attributes, (LOGFIRE_MSG,)) or span_name
    if text_or_empty(attributes.get(TRACELOOP_KIND)).lower() == "agent":
        name = first_str(attributes, ("traceloop.entity.name",))
        if name:
            return name
    for prefix in ("invoke_agent ", "create_agent ", "Agent run: "):
        if span_name.startswith(prefix):
            return span_name[len(prefix):].strip().strip("'\"") or None
    if span_name.endswith(_AGENT_METHOD_SUFFIXES):
        return span_name.rsplit(".", 1)[0] or None
    return span_name or None


#: The ``id`` leading a JSON-dumped response object (``{"id":"msg_..."`` / ``"chatcmpl-..."``).
_LEADING_ID = re.compile(r'\s*\{\s*"id"\s*:\s*"([^"\\]{1,200})"')


def response_id_of(attributes: Mapping) -> Optional[str]:
    """The model response id (``gen_ai.response.id``), used to deduplicate usage.

    OpenInference LLM spans have no such attribute: their ``output.value`` is the dumped
    response (MLflow's: ``mlflow.spanOutputs``), whose leading ``id`` is read instead (only
    that prefix, never the whole JSON),
    so an OpenInference span and another package's span for the same call (the anthropic
    SDK's own, a second instrumentor's) are counted once.

    Example:
        >>> response_id_of({"gen_ai.response.id": "chatcmpl-1"})
        'chatcmpl-1'
        >>> response_id_of({"openinference.span.kind": "LLM",
        ...                 "output.value": '{"id":"msg_1","content":[]}'})
        'msg_1'
    """
    found = first_str(attributes, RESPONSE_ID_KEYS)
    if found is None:
        output = None
        if attributes.get(OPENINFERENCE_KIND) == "LLM":
            output = attributes.get("output.value")
        elif MLFLOW_SPAN_TYPE in attributes:  # MLflow: the response object, dumped
            output = attributes.get(MLFLOW_OUTPUTS)
        if type(output) is str:
            match = _LEADING_ID.match(output)
            if match:
                return match.group(1)
    return found


@lru_cache(maxsize=512)
def _parsed_parameters(text: str) -> Any:
    """Parsed request-parameter JSON (cached: several accessors read the same string)."""
    return json_value(text)


def _invocation_parameter(attributes: Mapping, name: str) -> Any:
    for key in INVOCATION_PARAMETER_KEYS:
        if key in attributes:
            raw = attributes.get(key)
            params = _parsed_parameters(raw) if isinstance(raw, str) else raw
            if (type(params) is dict or isinstance(params, Mapping)) and params.get(
                    name) is not None:
                return params.get(name)
    return None


def request_model_of(attributes: Mapping) -> Optional[str]:
    """The requested model name (OpenInference: from ``llm.invocation_parameters``).

    Example:
        >>> request_model_of({"llm.invocation_parameters": '{"model": "gpt-4o"}'})
        'gpt-4o'
    """
    return first_str(attributes, REQUEST_MODEL_KEYS) or (
        text_or_empty(_invocation_parameter(attributes, "model")) or None
    )


#: The answering model's field in Google ADK's legacy response JSON.
_MODEL_VERSION = "model_version"


def response_model_of(attributes: Mapping) -> Optional[str]:
    """The model that answered (``gen_ai.response.model``, OpenInference ``llm.model_name``,
    MLflow's JSON-encoded ``mlflow.llm.model``, the ``model_version`` of Google ADK's legacy
    ``gcp.vertex.agent.llm_response``).

    Example:
        >>> response_model_of({"gen_ai.response.model": "gpt-4o-2024-08-06"})
        'gpt-4o-2024-08-06'
        >>> response_model_of({"mlflow.llm.model": '"gpt-4o-mini"'})
        'gpt-4o-mini'
        >>> response_model_of({"gcp.vertex.agent.llm_response": '{"model_version": "m-001"}'})
        'm-001'
    """
    found = first_str(attributes, RESPONSE_MODEL_KEYS)
    if found and found[0] == '"':  # MLflow JSON-encodes its values
        decoded = json_value(found)
        return decoded if isinstance(decoded, str) else found
    if found is None and VERTEX_LLM_RESPONSE in attributes:
        response = json_value(attributes[VERTEX_LLM_RESPONSE])
        version = response.get(_MODEL_VERSION) if isinstance(response, Mapping) else None
        if isinstance(version, str) and version:
            return version
    return found


def temperature_of(attributes: Mapping) -> Optional[float]:
    """The sampling temperature requested.

    Example:
        >>> temperature_of({"llm.invocation_parameters": '{"temperature": 0.2}'})
        0.2
    """
    if _TEMPERATURE_ANY.isdisjoint(attributes):
        return None
    value = as_float(first_value(attributes, TEMPERATURE_KEYS))
    return value if value is not None else as_float(
        _invocation_parameter(attributes, "temperature"))


def seed_of(attributes: Mapping) -> Optional[int]:
    """The sampling seed requested (``gen_ai.request.seed``, deprecated openai name too).

    Example:
        >>> seed_of({"gen_ai.openai.request.seed": 7})
        7
    """
    if _SEED_ANY.isdisjoint(attributes):
        return None
    value = as_int(first_value(attributes, SEED_KEYS))
    return value if value is not None else as_int(_invocation_parameter(attributes, "seed"))


#: openai-v2 2.4b0 writes ``error.type="<class 'openai.BadRequestError'>"`` (a bug).
_class_repr = re.compile(r"^<class '([^']+)'>$")


def error_of(span: Any) -> Optional[str]:
    """Why a span failed, or None: ``error.type``, the status, an ``exception`` event,
    or Langfuse's ERROR level.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord, SpanEvent
        >>> error_of(SpanRecord("a" * 32, "b" * 16, status_code=2, status_message="boom"))
        'boom'
        >>> error_of(SpanRecord("a" * 32, "b" * 16, events=(SpanEvent("exception",
        ...     attributes={"exception.type": "ValueError"}),)))
        'ValueError'
        >>> error_of({"error.type": "<class 'openai.BadRequestError'>"})
        'openai.BadRequestError'
        >>> error_of(SpanRecord("a" * 32, "b" * 16)) is None
        True
    """
    attributes = getattr(span, "attributes", span)  # attributes_of, without a call per span
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        attributes = {}
    error_type = first_str(attributes, (ERROR_TYPE,)) if ERROR_TYPE in attributes else None
    if error_type:
        return _class_repr.sub(r"\1", error_type)
    exception = None
    for event in getattr(span, "events", ()) or ():
        if getattr(event, "name", "") == "exception":
            ev = event.attributes or {}
            exception = first_str(ev, ("exception.type",)) or first_str(
                ev, ("exception.message",)) or "exception"
            break
    if getattr(span, "status_code", 0) == 2:
        return exception or getattr(span, "status_message", "") or "error"
    if exception:
        return exception
    level = attributes.get(LANGFUSE_LEVEL)
    if isinstance(level, str) and level.upper() == "ERROR":
        return first_str(attributes, (LANGFUSE_STATUS,)) or "error"
    return None


def conversation_id_of(attributes: Mapping) -> Optional[str]:
    """``gen_ai.conversation.id`` (or Traceloop's association property).

    Example:
        >>> conversation_id_of({"gen_ai.conversation.id": "conv-1"})
        'conv-1'
    """
    return first_str(attributes, CONVERSATION_ID_KEYS)


def session_id_of(attributes: Mapping) -> Optional[str]:
    """``session.id`` and its variants; Logfire's scrubbed placeholder counts as absent.

    Example:
        >>> session_id_of({"session.id": "s-1"})
        's-1'
        >>> session_id_of({"session.id": "[Scrubbed due to 'session']"}) is None
        True
    """
    value = first_str(attributes, SESSION_ID_KEYS)
    if value and value.startswith("[Scrubbed"):
        return None
    return value
