"""Semantic-convention names, in one place, and the accessors that read them.

Every attribute name ek-otel reads from GenAI telemetry is defined here, with the
conventions that use it: OTel GenAI (current and deprecated names), OpenInference,
OpenLLMetry/Traceloop (0.62.x and 0.5x), Logfire, Langfuse and the Agents-SDK
instrumentors (see ``shared/reference/semconv.md``). The episode builder asks these
accessors questions ("is this a model call?", "what usage does it carry?") and never names
an attribute itself.

Accessors take an attribute mapping (or a :class:`~ek_otel.ingest.records.SpanRecord`) and
never raise on values of unexpected types: a value that cannot be read counts as absent.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> s = SpanRecord("a" * 32, "b" * 16, name="chat gpt-4o", attributes={
    ...     "gen_ai.operation.name": "chat", "gen_ai.usage.prompt_tokens": 10,
    ...     "gen_ai.usage.output_tokens": 3})
    >>> span_role(s), usage_of(s.attributes)
    ('model', Usage(input_tokens=10, output_tokens=3, cached_input_tokens=0, reasoning_tokens=0))
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

try:  # orjson is a dependency; json stays the reference (see :func:`loads`)
    from orjson import JSONDecodeError as _OrjsonError, loads as _orjson_loads
except ImportError:  # pragma: no cover
    _orjson_loads = None

__all__ = [
    "DEFAULT_TASK_ID_KEYS",
    "CONVERSATION_ID_KEYS",
    "SESSION_ID_KEYS",
    "MODEL",
    "TOOL",
    "AGENT",
    "OTHER",
    "Usage",
    "span_role",
    "usage_of",
    "aggregate_usage_of",
    "unreadable_token_counts",
    "first_value",
    "as_int",
    "as_float",
    "loads",
    "json_value",
    "tool_name_of",
    "tool_call_id_of",
    "tool_args_of",
    "tool_args_parsed",
    "tool_result_of",
    "is_client_call_id",
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

# ---------------------------------------------------------------------------
# Linking traces to tasks and conversations
# ---------------------------------------------------------------------------

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
# Span roles
# ---------------------------------------------------------------------------

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

_MODEL_OPERATIONS = frozenset(
    {"chat", "text_completion", "generate_content", "completion", "responses", "response"}
)
_AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent"})
_TOOL_OPERATIONS = frozenset({"execute_tool"})
#: Tool names of spans that group other tool executions, not calls of their own: Google
#: ADK's ``execute_tool (merged)`` over the tools of one answer run in parallel.
GROUPING_TOOL_NAMES = frozenset({"(merged tools)"})
_MODEL_SPAN_NAMES = frozenset({"openai.chat", "openai.completion", "openai.response"})
#: Logfire names spans by their message template (``logfire.msg`` holds the rendered text).
_LOGFIRE_MODEL_PREFIXES = ("chat completion with", "responses api with", "completion with")
LOGFIRE_TAGS = "logfire.tags"
LOGFIRE_MSG = "logfire.msg"


def span_role(span: Any) -> str:
    """Classify a span as a model call, a tool execution, an agent, or something else.

    Recognized: ``gen_ai.operation.name``; OpenInference ``openinference.span.kind``
    (LLM, TOOL, AGENT); Traceloop ``traceloop.span.kind`` and ``llm.request.type`` and its
    ``openai.chat``/``openai.response`` span names; Langfuse ``langfuse.observation.type``;
    Logfire span-name templates (``Chat Completion with …``, ``Function: …``,
    ``Agent run: …``). Embeddings and retrieval are not model calls here.

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
    """
    attributes = getattr(span, "attributes", span)
    name = getattr(span, "name", "") or ""
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return OTHER
    operation = _text(attributes.get(OPERATION)).lower()
    if operation in _TOOL_OPERATIONS:
        if _text(attributes.get("gen_ai.tool.name")) in GROUPING_TOOL_NAMES:
            return OTHER  # a span over other tool executions is no call
        return TOOL
    if operation in _AGENT_OPERATIONS:
        return AGENT
    if operation in _MODEL_OPERATIONS:
        return MODEL
    oi_kind = _text(attributes.get(OPENINFERENCE_KIND)).upper()
    if oi_kind == "LLM":
        return MODEL
    if oi_kind == "TOOL":
        return TOOL
    if oi_kind == "AGENT":
        return AGENT
    tl_kind = _text(attributes.get(TRACELOOP_KIND)).lower()
    if tl_kind == "tool":
        return TOOL
    if tl_kind == "agent":
        return AGENT
    lf_type = _text(attributes.get(LANGFUSE_TYPE)).lower()
    if lf_type == "generation":
        return MODEL
    if lf_type == "tool":
        return TOOL
    if lf_type == "agent":
        return AGENT
    if _text(attributes.get(TRACELOOP_REQUEST_TYPE)).lower() in ("chat", "completion"):
        return MODEL
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
    if name == "ai.toolCall" or name == "running tool":  # Vercel AI SDK, Pydantic AI
        return TOOL
    if name.startswith("ai.") and name.endswith((".doGenerate", ".doStream")):  # Vercel AI
        return MODEL
    if name == "call_llm":  # Google ADK
        return MODEL
    if "gen_ai.tool.name" in attributes:  # a tool span whose operation name is missing
        return TOOL
    return OTHER


# ---------------------------------------------------------------------------
# Value helpers
# ---------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> Optional[int]:
    """An int from an int, a float with no fraction, or a numeric string; else None.

    Example:
        >>> as_int("12"), as_int(3.0), as_int(True), as_int("x")
        (12, 3, None, None)
    """
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def as_float(value: Any) -> Optional[float]:
    """A float from a number or a numeric string; else None.

    Example:
        >>> as_float("0.2"), as_float(1), as_float(None)
        (0.2, 1.0, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


#: Digits to "0" and every other byte to " ": a run of 19 zeros then marks a run of 19
#: digits, an integer orjson might read as a float (beyond 64 bits). Five times faster
#: than a regular expression.
_DIGIT_RUNS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_RUN = b"0" * 19


def loads(text: str) -> Any:
    """``json.loads(text)``, computed by orjson whenever orjson gives the same value.

    orjson is several times faster on the small JSON strings attributes hold, and agrees
    with :mod:`json` on every document both accept, except integers beyond 64 bits (orjson
    reads them as floats): text with a run of 19 digits, and anything orjson rejects
    (``NaN``, lone surrogates, very deep nesting), goes to ``json.loads``, whose value or
    ``ValueError`` is the answer.

    Example:
        >>> loads('{"a": [1, 2.5, "x"]}'), loads("123456789012345678901234"), loads("NaN")
        ({'a': [1, 2.5, 'x']}, 123456789012345678901234, nan)
        >>> loads("{bad")
        Traceback (most recent call last):
        ...
        json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: ...
    """
    if _orjson_loads is not None and type(text) is str:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # lone surrogates, which orjson refuses
            return json.loads(text)
        if _LONG_RUN not in data.translate(_DIGIT_RUNS):
            try:
                return _orjson_loads(data)
            except _OrjsonError:
                pass
    return json.loads(text)


def json_value(value: Any) -> Any:
    """Parse a JSON string; return other values (and non-JSON strings) unchanged.

    Example:
        >>> json_value('{"a": 1}'), json_value("plain"), json_value([1])
        ({'a': 1}, 'plain', [1])
    """
    if type(value) is not str:
        if not isinstance(value, (bytes, bytearray)):
            if not isinstance(value, str):
                return value
        else:
            try:
                value = value.decode()
            except UnicodeDecodeError:
                return value
    stripped = value.strip()
    if stripped[:1] in ("{", "[", '"'):
        try:
            return loads(stripped)
        except ValueError:
            return value
    return value


def first_value(attributes: Mapping, keys: tuple) -> Any:
    """The value of the first key present (and not empty) in ``attributes``.

    A key ``metadata.K`` also finds ``K`` inside a JSON ``metadata`` attribute
    (OpenInference's form).

    Example:
        >>> first_value({"b": 2, "c": 3}, ("a", "b", "c"))
        2
        >>> first_value({"metadata": '{"task_id": "t9"}'}, ("metadata.task_id",))
        't9'
    """
    get = attributes.get
    for key in keys:
        value = get(key)
        if value is None:
            if "metadata" in attributes and key.startswith("metadata."):
                metadata = json_value(get("metadata"))
                if isinstance(metadata, Mapping):
                    value = metadata.get(key[len("metadata."):])
            if value is None:
                continue
        if type(value) is str:
            if value:
                return value
        elif value != "":
            return value
    return None


def _first_str(attributes: Mapping, keys: tuple) -> Optional[str]:
    value = first_value(attributes, keys)
    if type(value) is str:
        return value
    if value is None or isinstance(value, (dict, list, bytes)):
        return None
    return str(value)


# ---------------------------------------------------------------------------
# Usage
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call. ``input_tokens`` includes cached tokens (as reported).

    Example:
        >>> Usage(10, 2) + Usage(5, 1, cached_input_tokens=4)
        Usage(input_tokens=15, output_tokens=3, cached_input_tokens=4, reasoning_tokens=0)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


INPUT_TOKEN_KEYS: tuple = (
    "gen_ai.usage.input_tokens",  # OTel GenAI, Traceloop 0.5x and 0.62
    "gen_ai.usage.prompt_tokens",  # deprecated OTel, old Traceloop
    "llm.token_count.prompt",  # OpenInference
    "llm.usage.prompt_tokens",
    "ai.usage.promptTokens",  # Vercel AI SDK
    "ai.usage.inputTokens",
)
OUTPUT_TOKEN_KEYS: tuple = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "llm.usage.completion_tokens",
    "ai.usage.completionTokens",
    "ai.usage.outputTokens",
)
CACHED_TOKEN_KEYS: tuple = (
    "gen_ai.usage.cache_read.input_tokens",  # OTel GenAI, Traceloop 0.62, Logfire
    "gen_ai.usage.cache_read_input_tokens",  # Traceloop 0.5x
    "llm.token_count.prompt_details.cache_read",  # OpenInference
)
REASONING_TOKEN_KEYS: tuple = (
    "gen_ai.usage.reasoning.output_tokens",  # OTel GenAI
    "gen_ai.usage.reasoning_tokens",  # Traceloop 0.62
    "llm.usage.reasoning_tokens",  # Traceloop 0.5x
    "llm.token_count.completion_details.reasoning",  # OpenInference
    "gen_ai.usage.details.reasoning_tokens",  # Pydantic AI (its usage details, by name)
)
#: JSON usage blobs: Logfire ``gen_ai.usage.raw`` (raw OpenAI usage), Langfuse
#: ``usage_details``, the Agents-SDK ``usage`` object that Logfire's agent spans carry.
RAW_USAGE_KEYS: tuple = (
    "gen_ai.usage.raw",
    "langfuse.observation.usage_details",
    "usage",
)


_USAGE_FIELDS: tuple = (
    ("input_tokens", INPUT_TOKEN_KEYS),
    ("output_tokens", OUTPUT_TOKEN_KEYS),
    ("cached_input_tokens", CACHED_TOKEN_KEYS),
    ("reasoning_tokens", REASONING_TOKEN_KEYS),
)
_TOKEN_KEYS: tuple = INPUT_TOKEN_KEYS + OUTPUT_TOKEN_KEYS + CACHED_TOKEN_KEYS + REASONING_TOKEN_KEYS
_TOKEN_KEY_SET = frozenset(_TOKEN_KEYS)
_USAGE_FIELD_SETS: tuple = tuple((name, keys, frozenset(keys)) for name, keys in _USAGE_FIELDS)
#: Usage exists only with an input or output count, or a usage blob that may hold one.
_USAGE_KEYS = frozenset(RAW_USAGE_KEYS + INPUT_TOKEN_KEYS + OUTPUT_TOKEN_KEYS)
_ALL_USAGE_KEYS = frozenset(RAW_USAGE_KEYS + _TOKEN_KEYS)


def _raw_usage_fields(raw: Any) -> dict:
    raw = json_value(raw)
    if not isinstance(raw, Mapping):
        return {}
    fields: dict = {}

    def put(name: str, *candidates: Any) -> None:
        for candidate in candidates:
            number = as_int(candidate)
            if number is not None:
                fields[name] = number
                return

    input_details = raw.get("prompt_tokens_details") or raw.get("input_tokens_details") or {}
    output_details = (
        raw.get("completion_tokens_details") or raw.get("output_tokens_details") or {}
    )
    if not isinstance(input_details, Mapping):
        input_details = {}
    if not isinstance(output_details, Mapping):
        output_details = {}
    put("input_tokens", raw.get("input_tokens"), raw.get("prompt_tokens"), raw.get("input"),
        raw.get("promptTokens"))
    put("output_tokens", raw.get("output_tokens"), raw.get("completion_tokens"),
        raw.get("output"), raw.get("completionTokens"))
    put("cached_input_tokens", input_details.get("cached_tokens"),
        raw.get("cache_read_input_tokens"), raw.get("input_cached_tokens"),
        raw.get("input_cache_read"), raw.get("cached_tokens"))
    put("reasoning_tokens", output_details.get("reasoning_tokens"),
        raw.get("output_reasoning_tokens"), raw.get("reasoning_tokens"),
        raw.get("output_reasoning"))
    return fields


def unreadable_token_counts(attributes: Mapping) -> tuple:
    """The token-count attributes present whose value is not a count (they are ignored).

    Example:
        >>> unreadable_token_counts({"gen_ai.usage.input_tokens": "lots",
        ...                          "gen_ai.usage.output_tokens": "7"})
        ('gen_ai.usage.input_tokens',)
        >>> unreadable_token_counts({"llm.token_count.prompt": 5})
        ()
    """
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return ()
    bad = set()
    for key in _TOKEN_KEY_SET.intersection(attributes):  # the few present, in any order
        value = attributes.get(key)
        if value is None or type(value) is int:
            continue
        if value != "" and as_int(value) is None:
            bad.add(key)
    return tuple(key for key in _TOKEN_KEYS if key in bad) if bad else ()


def usage_of(attributes: Mapping) -> Optional[Usage]:
    """The token usage recorded on a span (or event), or None when it records none.

    Explicit attributes win; JSON usage blobs (Logfire ``gen_ai.usage.raw``, Langfuse
    ``usage_details``, Agents-SDK ``usage``) fill what they leave out. Usage exists when an
    input or output count is present.

    Example:
        >>> usage_of({"llm.token_count.prompt": 50, "llm.token_count.completion": 7,
        ...           "llm.token_count.prompt_details.cache_read": 20})
        Usage(input_tokens=50, output_tokens=7, cached_input_tokens=20, reasoning_tokens=0)
        >>> usage_of({"gen_ai.usage.input_tokens": 9, "gen_ai.usage.output_tokens": 4,
        ...           "gen_ai.usage.raw": '{"completion_tokens_details": {"reasoning_tokens": 2}}'})
        Usage(input_tokens=9, output_tokens=4, cached_input_tokens=0, reasoning_tokens=2)
        >>> usage_of({"gen_ai.request.model": "m"}) is None
        True
    """
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return None
    if _USAGE_KEYS.isdisjoint(attributes):
        return None  # no count and no usage blob: the common case of non-model spans
    fields: dict = {}
    found = _ALL_USAGE_KEYS.intersection(attributes)
    if not found.isdisjoint(RAW_USAGE_KEYS):
        for key in RAW_USAGE_KEYS:
            if key in attributes:
                for name, value in _raw_usage_fields(attributes[key]).items():
                    fields.setdefault(name, value)
    for name, keys, key_set in _USAGE_FIELD_SETS:
        if key_set.isdisjoint(found):
            continue
        for key in keys:
            if key in found:
                value = attributes.get(key)
                number = value if type(value) is int else as_int(value)
                if number is not None:
                    fields[name] = number
                    break
    if "input_tokens" not in fields and "output_tokens" not in fields:
        return None
    get = fields.get
    return Usage(max(0, get("input_tokens", 0)), max(0, get("output_tokens", 0)),
                 max(0, get("cached_input_tokens", 0)), max(0, get("reasoning_tokens", 0)))


#: Pydantic AI (2.x default) writes a run's totals on its agent span under this prefix
#: instead of ``gen_ai.usage.`` (the same names after it), so that they are not summed with
#: the per-call usage.
AGGREGATED_USAGE_PREFIX = "gen_ai.aggregated_usage."
_USAGE_PREFIX = "gen_ai.usage."


def aggregate_usage_of(attributes: Mapping) -> Optional[Usage]:
    """The run totals an aggregate (agent, root) span records: :func:`usage_of`, else the
    ``gen_ai.aggregated_usage.*`` names read as their ``gen_ai.usage.*`` twins.

    Example:
        >>> aggregate_usage_of({"gen_ai.aggregated_usage.input_tokens": 9,
        ...                     "gen_ai.aggregated_usage.output_tokens": 2,
        ...                     "gen_ai.aggregated_usage.details.reasoning_tokens": 1})
        Usage(input_tokens=9, output_tokens=2, cached_input_tokens=0, reasoning_tokens=1)
    """
    usage = usage_of(attributes)
    if usage is not None or type(attributes) is not dict and not isinstance(attributes, Mapping):
        return usage
    renamed = {_USAGE_PREFIX + key[len(AGGREGATED_USAGE_PREFIX):]: value
               for key, value in attributes.items()
               if type(key) is str and key.startswith(AGGREGATED_USAGE_PREFIX)}
    return usage_of(renamed) if renamed else None


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------

TOOL_NAME_KEYS: tuple = (
    "gen_ai.tool.name",  # OTel GenAI, Traceloop 0.62
    "tool.name",  # OpenInference TOOL span
    "traceloop.entity.name",  # Traceloop tool (decorator) span
    "ai.toolCall.name",  # Vercel AI SDK
    "name",  # Logfire ``Function: {name}``
)
TOOL_CALL_ID_KEYS: tuple = ("gen_ai.tool.call.id", "tool.id", "tool_call.id", "ai.toolCall.id")
TOOL_ARGS_KEYS: tuple = (
    "gen_ai.tool.call.arguments",  # OTel GenAI (opt-in)
    "input.value",  # OpenInference TOOL span
    "traceloop.entity.input",  # Traceloop tool span ({"args": [...], "kwargs": {...}})
    "input",  # Logfire
    "langfuse.observation.input",  # Langfuse tool observation
    "tool_arguments",  # Pydantic AI
    "ai.toolCall.args",  # Vercel AI SDK
    "gcp.vertex.agent.tool_call_args",  # Google ADK
)
TOOL_RESULT_KEYS: tuple = (
    "gen_ai.tool.call.result",
    "output.value",
    "traceloop.entity.output",
    "output",
    "langfuse.observation.output",
    "tool_response",
    "ai.toolCall.result",
    "gcp.vertex.agent.tool_response",
)


def tool_name_of(span: Any) -> str:
    """The executed tool's name, from attributes or the span-name template.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> tool_name_of(SpanRecord("a" * 32, "b" * 16, name="execute_tool get_time"))
        'get_time'
        >>> tool_name_of(SpanRecord("a" * 32, "b" * 16, name="x",
        ...                         attributes={"tool.name": "search"}))
        'search'
    """
    attributes = getattr(span, "attributes", {}) or {}
    name = _first_str(attributes, TOOL_NAME_KEYS)
    if name:
        return name
    span_name = getattr(span, "name", "") or ""
    for prefix in ("execute_tool ", "Function: "):
        if span_name.startswith(prefix):
            return span_name[len(prefix):].strip()
    if span_name.endswith(".tool"):
        return span_name[: -len(".tool")]
    return span_name


#: Where LangChain instrumentors leave the id only inside the recorded tool input/output:
#: Traceloop's ``{"input_str", "inputs", "kwargs": {"tool_call_id"}}`` input and
#: OpenInference's ``ToolMessage`` output (``{"type": "tool", "data": {"tool_call_id"}}``).
_TOOL_CALL_ID_CARRIERS: tuple = ("traceloop.entity.input", "gen_ai.tool.call.arguments",
                                 "output.value", "traceloop.entity.output",
                                 "gen_ai.tool.call.result")
_EMBEDDED_TOOL_CALL_ID = re.compile(r'"tool_call_id"\s*:\s*"([^"\\]{1,200})"')


#: Google ADK's own id of a call the model gave no id (Gemini): ``adk-`` and a UUID4, made
#: on the client and stripped before the model sees the history. Not the model's id.
_ADK_CLIENT_CALL_ID = re.compile(
    r"adk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_client_call_id(call_id: str) -> bool:
    """Whether ``call_id`` is one a framework made up for a call the model gave no id.

    Example:
        >>> is_client_call_id("adk-5b0c2a0e-8d3c-4a55-9a43-0f1d2b3c4d5e")
        True
        >>> is_client_call_id("call_weather_1")
        False
    """
    return type(call_id) is str and _ADK_CLIENT_CALL_ID.fullmatch(call_id) is not None


def tool_call_id_of(attributes: Mapping) -> Optional[str]:
    """The tool-call id on an executed-tool span (most instrumentors leave it out).

    LangChain's instrumentors have it only in the recorded tool input or output (the
    ``tool_call_id`` of the call or of the ``ToolMessage`` result); it is read from there.

    Example:
        >>> tool_call_id_of({"gen_ai.tool.call.id": "call_1"}), tool_call_id_of({})
        ('call_1', None)
        >>> tool_call_id_of({"output.value": '{"type": "tool", "data": {"tool_call_id": "c9"}}'})
        'c9'
        >>> tool_call_id_of({"gen_ai.tool.call.id": "adk-5b0c2a0e-8d3c-4a55-9a43-0f1d2b3c4d5e"})
    """
    found = _first_str(attributes, TOOL_CALL_ID_KEYS)
    if found is None:
        for key in _TOOL_CALL_ID_CARRIERS:
            value = attributes.get(key)
            if type(value) is str and "tool_call_id" in value:
                match = _EMBEDDED_TOOL_CALL_ID.search(value)
                if match:
                    return match.group(1)
    if found is not None and is_client_call_id(found):
        return None  # a framework's own id: the model gave none
    return found


def _present(attributes: Mapping, keys: tuple) -> tuple:
    for key in keys:
        if key in attributes and attributes[key] is not None:
            return True, attributes[key]
    return False, None


#: A recorded Python call (Traceloop entity input, OpenInference smolagents TOOL input):
#: ``{"args": [...], "kwargs": {...}}``, unwrapped to the keyword arguments.
_CALL_WRAPPER_KEYS = frozenset({"args", "kwargs", "sanitize_inputs_outputs"})


def tool_args_of(attributes: Mapping) -> tuple:
    """``(captured, raw_arguments)`` of an executed-tool span.

    A recorded Python call ``{"args": [...], "kwargs": {...}}`` (Traceloop's entity input,
    smolagents) is unwrapped to its keyword arguments (positional ones go to ``_args``).

    Example:
        >>> tool_args_of({"gen_ai.tool.call.arguments": '{"q": "x"}'})
        (True, '{"q": "x"}')
        >>> tool_args_of({"traceloop.entity.input": '{"args": [], "kwargs": {"q": "x"}}'})
        (True, {'q': 'x'})
        >>> tool_args_of({})
        (False, None)
    """
    captured, raw, _ = tool_args_parsed(attributes)
    return captured, raw


#: Google ADK's legacy tool span with content capture off
#: (``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false``) writes ``"{}"`` as both the arguments and
#: the response: no arguments were recorded (a call without arguments has a response).
_ADK_TOOL_ARGS = "gcp.vertex.agent.tool_call_args"
_ADK_TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
_ADK_ELIDED = "{}"


def _elided_adk_tool_content(attributes: Mapping) -> bool:
    return (attributes.get(_ADK_TOOL_ARGS) == _ADK_ELIDED
            and attributes.get(_ADK_TOOL_RESPONSE) == _ADK_ELIDED)


def tool_args_parsed(attributes: Mapping) -> tuple:
    """``(captured, raw_arguments, parsed)``: :func:`tool_args_of`, and ``json_value`` of the
    raw arguments (``raw`` itself when they are not JSON), so that they are parsed once.

    Example:
        >>> tool_args_parsed({"gen_ai.tool.call.arguments": '{"q": "x"}'})
        (True, '{"q": "x"}', {'q': 'x'})
        >>> tool_args_parsed({"gen_ai.tool.call.arguments":
        ...     '{"input_str": "x", "inputs": {"q": "x"}, "kwargs": {}}'})
        (True, {'q': 'x'}, {'q': 'x'})
        >>> tool_args_parsed({"gcp.vertex.agent.tool_call_args": "{}",  # ADK, content off
        ...                   "gcp.vertex.agent.tool_response": "{}"})
        (False, None, None)
    """
    captured, raw = _present(attributes, TOOL_ARGS_KEYS)
    if not captured or _elided_adk_tool_content(attributes):
        return False, None, None
    parsed = json_value(raw)
    if (isinstance(parsed, Mapping) and "kwargs" in parsed
            and set(parsed) <= _CALL_WRAPPER_KEYS
            and isinstance(parsed.get("kwargs") or {}, Mapping)):
        kwargs = dict(parsed.get("kwargs") or {})
        args = parsed.get("args") or []
        if not isinstance(args, (list, tuple)):
            args = [args]
        unwrapped = {**({"_args": list(args)} if args else {}), **kwargs}
        return True, unwrapped, unwrapped
    if (isinstance(parsed, Mapping) and "input_str" in parsed
            and isinstance(parsed.get("inputs"), Mapping)):
        # Traceloop's LangChain tool input: the callback's arguments, the call's in "inputs"
        inputs = dict(parsed["inputs"])
        return True, inputs, inputs
    return True, raw, parsed


def tool_result_of(attributes: Mapping) -> Any:
    """The executed tool's result, parsed when it is JSON; None when not recorded.

    Example:
        >>> tool_result_of({"output.value": '{"t": 18}'})
        {'t': 18}
    """
    _, raw = _present(attributes, TOOL_RESULT_KEYS)
    return json_value(raw) if raw is not None else None


# ---------------------------------------------------------------------------
# Agents, models, provenance
# ---------------------------------------------------------------------------

AGENT_NAME_KEYS: tuple = (
    "gen_ai.agent.name",
    "agent.name",
    "agent_name",  # Logfire
    "langfuse.observation.name",
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
)
#: JSON objects holding the request parameters: OpenInference ``llm.invocation_parameters``;
#: Logfire's Agents-SDK ``model_settings``/``model_config`` and client ``request_data``;
#: Langfuse's ``langfuse.observation.model.parameters``.
INVOCATION_PARAMETER_KEYS: tuple = (
    "llm.invocation_parameters", "model_settings", "model_config", "request_data",
    "langfuse.observation.model.parameters")
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


def agent_name_of(span: Any) -> Optional[str]:
    """An agent span's name: attributes, else the ``invoke_agent X``/``Agent run: X`` template.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> agent_name_of(SpanRecord("a" * 32, "b" * 16, name="invoke_agent Planner"))
        'Planner'
        >>> agent_name_of({"agent.name": "Triage"})
        'Triage'
    """
    attributes = getattr(span, "attributes", span)
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return None
    name = _first_str(attributes, AGENT_NAME_KEYS)
    if name:
        return name
    span_name = getattr(span, "name", "") or ""
    if span_name.startswith("Agent run:"):  # Logfire: the template is the span name
        name = _first_str(attributes, ("name",))
        if name:
            return name
        span_name = _first_str(attributes, (LOGFIRE_MSG,)) or span_name
    if _text(attributes.get(TRACELOOP_KIND)).lower() == "agent":
        name = _first_str(attributes, ("traceloop.entity.name",))
        if name:
            return name
    for prefix in ("invoke_agent ", "create_agent ", "Agent run: "):
        if span_name.startswith(prefix):
            return span_name[len(prefix):].strip().strip("'\"") or None
    return span_name or None


#: The ``id`` leading a JSON-dumped response object (``{"id":"msg_..."`` / ``"chatcmpl-..."``).
_LEADING_ID = re.compile(r'\s*\{\s*"id"\s*:\s*"([^"\\]{1,200})"')


def response_id_of(attributes: Mapping) -> Optional[str]:
    """The model response id (``gen_ai.response.id``), used to deduplicate usage.

    OpenInference LLM spans have no such attribute: their ``output.value`` is the dumped
    response, whose leading ``id`` is read instead (only that prefix, never the whole JSON),
    so an OpenInference span and another package's span for the same call (the anthropic
    SDK's own, a second instrumentor's) are counted once.

    Example:
        >>> response_id_of({"gen_ai.response.id": "chatcmpl-1"})
        'chatcmpl-1'
        >>> response_id_of({"openinference.span.kind": "LLM",
        ...                 "output.value": '{"id":"msg_1","content":[]}'})
        'msg_1'
    """
    found = _first_str(attributes, RESPONSE_ID_KEYS)
    if found is None and attributes.get(OPENINFERENCE_KIND) == "LLM":
        output = attributes.get("output.value")
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
    return _first_str(attributes, REQUEST_MODEL_KEYS) or (
        _text(_invocation_parameter(attributes, "model")) or None
    )


#: Google ADK's legacy response JSON, and the answering model's field in it.
_VERTEX_LLM_RESPONSE = "gcp.vertex.agent.llm_response"
_MODEL_VERSION = "model_version"


def response_model_of(attributes: Mapping) -> Optional[str]:
    """The model that answered (``gen_ai.response.model``, OpenInference ``llm.model_name``,
    the ``model_version`` of Google ADK's legacy ``gcp.vertex.agent.llm_response``).

    Example:
        >>> response_model_of({"gen_ai.response.model": "gpt-4o-2024-08-06"})
        'gpt-4o-2024-08-06'
        >>> response_model_of({"gcp.vertex.agent.llm_response": '{"model_version": "m-001"}'})
        'm-001'
    """
    found = _first_str(attributes, RESPONSE_MODEL_KEYS)
    if found is None and _VERTEX_LLM_RESPONSE in attributes:
        response = json_value(attributes[_VERTEX_LLM_RESPONSE])
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
    attributes = getattr(span, "attributes", span)
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        attributes = {}
    error_type = _first_str(attributes, (ERROR_TYPE,)) if ERROR_TYPE in attributes else None
    if error_type:
        return _class_repr.sub(r"\1", error_type)
    exception = None
    for event in getattr(span, "events", ()) or ():
        if getattr(event, "name", "") == "exception":
            ev = event.attributes or {}
            exception = _first_str(ev, ("exception.type",)) or _first_str(
                ev, ("exception.message",)) or "exception"
            break
    if getattr(span, "status_code", 0) == 2:
        return exception or getattr(span, "status_message", "") or "error"
    if exception:
        return exception
    if _text(attributes.get(LANGFUSE_LEVEL)).upper() == "ERROR":
        return _first_str(attributes, (LANGFUSE_STATUS,)) or "error"
    return None


def conversation_id_of(attributes: Mapping) -> Optional[str]:
    """``gen_ai.conversation.id`` (or Traceloop's association property).

    Example:
        >>> conversation_id_of({"gen_ai.conversation.id": "conv-1"})
        'conv-1'
    """
    return _first_str(attributes, CONVERSATION_ID_KEYS)


def session_id_of(attributes: Mapping) -> Optional[str]:
    """``session.id`` and its variants; Logfire's scrubbed placeholder counts as absent.

    Example:
        >>> session_id_of({"session.id": "s-1"})
        's-1'
        >>> session_id_of({"session.id": "[Scrubbed due to 'session']"}) is None
        True
    """
    value = _first_str(attributes, SESSION_ID_KEYS)
    if value and value.startswith("[Scrubbed"):
        return None
    return value
