"""What a run was asked: its first user message and the tool definitions its model calls got.

The episode builder reads what a model *did*; this module reads what it was *given*, for
the readers that need it: ``ek-otel gold from-traces`` (a task's ``input`` and ``tools``) and
``--link-by input`` (linking an episode to the task whose input is its first user message).
Every attribute name comes from :mod:`ek_otel.ingest.semconv.requests`; messages are read by
:mod:`ek_otel.ingest.messages`, as for answers.

- :func:`first_user_message`: the text of the first user message of the earliest model call
  (OTel GenAI input messages, OpenInference and Traceloop flattened messages, a request body,
  the Vercel AI SDK and pydantic-ai histories, the ``gen_ai.user.message`` log event), else of
  an agent span's input.
- :func:`tool_definitions`: every tool definition the model calls were given (first
  definition of each name, in time order), in the flat shape of a gold file's ``tools``:
  ``{"name", "description", "parameters"}``.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> chat = SpanRecord("a" * 32, "b" * 16, name="chat", attributes={
    ...     "gen_ai.operation.name": "chat",
    ...     "gen_ai.input.messages": '[{"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},'
    ...                              ' {"role": "user", "parts": [{"type": "text", "content": "Refund A-77"}]}]',
    ...     "gen_ai.tool.definitions": '[{"type": "function", "name": "refund", "parameters": {"type": "object"}}]'})
    >>> first_user_message([chat])
    'Refund A-77'
    >>> tool_definitions([chat])
    ({'name': 'refund', 'parameters': {'type': 'object'}},)
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from . import semconv as sc
from .messages import CONTENT_PLACEHOLDERS, text_from_message, unflatten
from .records import LogRecord, SpanRecord

__all__ = ["first_user_message", "tool_definitions", "tool_definition", "input_messages_of",
           "request_tools_of"]


def _by_time(spans: Sequence[Any]) -> list:
    return sorted((s for s in spans if isinstance(s, SpanRecord) and isinstance(s.attributes, Mapping)),
                  key=lambda s: s.start_ns if isinstance(s.start_ns, int) else 0)


def _request_body(attributes: Mapping) -> Optional[Any]:
    for key in sc.REQUEST_BODY_KEYS:
        value = sc.json_value(attributes.get(key))
        if isinstance(value, (Mapping, list)):
            return value
    return None


def _messages_of_body(body: Any) -> Optional[list]:
    if isinstance(body, list):
        return body
    if not isinstance(body, Mapping):
        return None
    for key in ("messages", "input", "contents"):
        value = body.get(key)
        if isinstance(value, list):
            return value
        if isinstance(value, str) and value and key == "input":  # the Responses API's plain text
            return [{"role": "user", "content": value}]
    return None


def input_messages_of(attributes: Mapping) -> Optional[list]:
    """The input messages one span recorded, in the first convention that has them.

    Example:
        >>> input_messages_of({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"})
        [{'role': 'user', 'content': 'hi'}]
        >>> input_messages_of({"input.value": '{"model": "m", "input": "hello"}'})
        [{'role': 'user', 'content': 'hello'}]
    """
    for key in sc.INPUT_MESSAGE_KEYS:
        value = sc.json_value(attributes.get(key))
        if isinstance(value, list) and value:
            return value
    for prefix in sc.FLATTENED_INPUT_PREFIXES:
        value = unflatten(attributes, prefix)
        if isinstance(value, list) and value:
            return value
    return _messages_of_body(_request_body(attributes))


def _role(message: Any) -> Optional[str]:
    if not isinstance(message, Mapping):
        return None
    if isinstance(message.get("message"), Mapping):  # OpenInference: {"message": {...}}
        message = message["message"]
    role = message.get("role")
    return role.lower() if isinstance(role, str) else None


def _text(message: Any) -> Optional[str]:
    text = text_from_message(message)
    if text and text.strip() and text not in CONTENT_PLACEHOLDERS:
        return text
    return None  # nothing, or what a package writes for content it did not capture


def _user_text(messages: Sequence[Any]) -> Optional[str]:
    for message in messages:
        if _role(message) in sc.USER_ROLES:
            text = _text(message)
            if text is not None:
                return text
    return None


def first_user_message(spans: Sequence[Any], logs: Sequence[Any] = ()) -> Optional[str]:
    """The text of a run's first user message, or None when no span or event recorded it.

    Model calls come first (the earliest that recorded its input), then agent spans, then
    the ``gen_ai.user.message`` log events.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> agent = SpanRecord("a" * 32, "c" * 16, name="agent", start_ns=1, attributes={
        ...     "openinference.span.kind": "AGENT",
        ...     "input.value": '[{"content": "What is 2+2?", "role": "user"}]'})
        >>> first_user_message([agent])
        'What is 2+2?'
        >>> first_user_message([]) is None
        True
    """
    ordered = _by_time(spans)
    for role in (sc.MODEL, sc.AGENT):
        for span in ordered:
            if sc.span_role(span) != role:
                continue
            messages = input_messages_of(span.attributes)
            text = _user_text(messages) if messages else None
            if text is not None:
                return text
    for log in sorted((r for r in logs if isinstance(r, LogRecord)),
                      key=lambda r: r.time_ns if isinstance(getattr(r, "time_ns", None), int) else 0):
        if getattr(log, "event_name", "") == sc.USER_MESSAGE_EVENT:
            text = _text(sc.json_value(log.body))
            if text is not None:
                return text
    return None


# ---------------------------------------------------------------------------
# Tool definitions
# ---------------------------------------------------------------------------


def _parsed(value: Any) -> Any:
    value = sc.json_value(value)
    if isinstance(value, str) and value[:1] in "[{":
        try:  # LiteLLM writes the OpenAI tools as a Python repr
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
    return value


def tool_definition(obj: Any) -> Optional[dict]:
    """One tool definition in the flat gold shape ``{"name", "description", "parameters"}``
    (OpenAI nested or flat, the Vercel AI SDK's ``inputSchema``, Anthropic's ``input_schema``,
    pydantic-ai's ``parameters_json_schema``); None when it has no name.

    Example:
        >>> tool_definition({"type": "function", "function": {"name": "f", "description": "F.",
        ...                  "parameters": {"type": "object", "properties": {}}, "strict": True}})
        {'name': 'f', 'description': 'F.', 'parameters': {'type': 'object', 'properties': {}}}
        >>> tool_definition({"name": "g", "inputSchema": {"type": "object"}, "parameters": None})
        {'name': 'g', 'parameters': {'type': 'object'}}
    """
    obj = _parsed(obj)
    if not isinstance(obj, Mapping):
        return None
    if isinstance(obj.get("function"), Mapping):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    out: dict = {"name": name}
    description = obj.get("description")
    if isinstance(description, str) and description:
        out["description"] = description
    for key in sc.TOOL_SCHEMA_KEYS:
        schema = _parsed(obj.get(key))
        if isinstance(schema, Mapping):
            out["parameters"] = dict(schema)
            break
    return out


def _tools_of_body(body: Any) -> list:
    if not isinstance(body, Mapping):
        return []
    tools = body.get("tools")
    config = body.get("config")
    if tools is None and isinstance(config, Mapping):
        tools = config.get("tools")
    if not isinstance(tools, list):
        return []
    out = []
    for tool in tools:  # Gemini groups them: [{"function_declarations": [...]}]
        if isinstance(tool, Mapping) and isinstance(tool.get("function_declarations"), list):
            out.extend(tool["function_declarations"])
        else:
            out.append(tool)
    return out


def request_tools_of(attributes: Mapping) -> list:
    """The raw tool definitions one span recorded, in the first convention that has them.

    Example:
        >>> request_tools_of({"llm.request.functions.0.name": "f",
        ...                   "llm.request.functions.0.parameters": '{"type": "object"}'})
        [{'name': 'f', 'parameters': '{"type": "object"}'}]
    """
    for key in sc.TOOL_LIST_KEYS:
        value = _parsed(attributes.get(key))
        if isinstance(value, list) and value:
            return value
    flattened = unflatten(attributes, sc.OPENINFERENCE_TOOLS_PREFIX)
    if isinstance(flattened, list) and flattened:
        inner_key, schema_key = sc.OPENINFERENCE_TOOL_SCHEMA
        return [entry.get(inner_key, {}).get(schema_key) for entry in flattened
                if isinstance(entry, Mapping) and isinstance(entry.get(inner_key), Mapping)]
    flattened = unflatten(attributes, sc.TRACELOOP_FUNCTIONS_PREFIX)
    if isinstance(flattened, list) and flattened:
        return [entry for entry in flattened if isinstance(entry, Mapping)]
    parameters = sc.json_value(attributes.get(sc.PYDANTIC_REQUEST_PARAMETERS))
    if isinstance(parameters, Mapping) and isinstance(parameters.get(sc.PYDANTIC_FUNCTION_TOOLS), list):
        return parameters[sc.PYDANTIC_FUNCTION_TOOLS]
    return _tools_of_body(_request_body(attributes))


def tool_definitions(spans: Sequence[Any]) -> tuple:
    """The tool definitions the model calls of a run were given: the first definition of
    each tool name, model calls in time order (a definition with a schema is preferred to
    one without).

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> s = SpanRecord("a" * 32, "b" * 16, name="chat", attributes={
        ...     "openinference.span.kind": "LLM",
        ...     "llm.tools.0.tool.json_schema": '{"type": "function", "function": {"name": "f"}}'})
        >>> tool_definitions([s])
        ({'name': 'f'},)
    """
    found: dict = {}
    for span in _by_time(spans):
        if sc.span_role(span) != sc.MODEL:
            continue
        for raw in request_tools_of(span.attributes):
            tool = tool_definition(raw)
            if tool is None:
                continue
            known = found.get(tool["name"])
            if known is None or ("parameters" in tool and "parameters" not in known):
                found[tool["name"]] = tool
    return tuple(found.values())
