"""Tool executions: the tool's name, call id, arguments and result, in every convention.

Example:
    >>> tool_call_id_of({"gen_ai.tool.call.id": "c1"}), tool_result_of({"gen_ai.tool.call.result": "ok"})
    ('c1', 'ok')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from .values import first_str, json_value

__all__ = [
    "TOOL_NAME_KEYS",
    "TOOL_CALL_ID_KEYS",
    "TOOL_ARGS_KEYS",
    "TOOL_RESULT_KEYS",
    "CODE_PARAMETER_PREFIX",
    "CODE_RETURN_VALUE",
    "tool_name_of",
    "tool_call_id_of",
    "is_client_call_id",
    "tool_args_of",
    "tool_args_parsed",
    "tool_result_of",
    "call_envelope",
]


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
    "mlflow.spanInputs",  # MLflow TOOL span: the traced function's arguments
    "gen_ai.tool.input",  # VeADK: the tool's declaration with its "parameters"
    "tool.parameters",  # Strands 0.x ``Tool: <name>`` spans
)
#: google-genai's automatic function calling under opentelemetry-instrumentation-google-genai
#: before 1.x (and Logfire's ``instrument_google_genai``): one attribute per parameter,
#: ``code.function.parameters.<name>.value`` (``.type`` only, when content capture is off);
#: some releases put the same flat keys inside the JSON of ``gen_ai.tool.call.arguments``.
CODE_PARAMETER_PREFIX = "code.function.parameters."
CODE_PARAMETER_VALUE = ".value"
CODE_RETURN_VALUE = "code.function.return.value"
TOOL_RESULT_KEYS: tuple = (
    "gen_ai.tool.call.result",
    "output.value",
    "traceloop.entity.output",
    "output",
    "langfuse.observation.output",
    "tool_response",
    "ai.toolCall.result",
    "gcp.vertex.agent.tool_response",
    "mlflow.spanOutputs",
    CODE_RETURN_VALUE,  # google-genai automatic function calling (see CODE_PARAMETER_PREFIX)
    "gen_ai.tool.output",  # VeADK: {"id", "name", "response"}
    "tool.result",  # Strands 0.x
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
    name = first_str(attributes, TOOL_NAME_KEYS)
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
#: Recorded tool inputs and outputs that are a call's envelope, its id inside as ``"id"``
#: (VeADK: ``gen_ai.tool.output`` is ``{"id", "name", "response"}``).
_CALL_ENVELOPE_CARRIERS: tuple = ("gen_ai.tool.output", "gen_ai.tool.input")
#: The keys of a recorded call envelope: a tool name, one of :data:`_ENVELOPE_ARGUMENT_KEYS`
#: holding the arguments (or :data:`_ENVELOPE_RESULT_KEYS` the result), and nothing else
#: but these.
_ENVELOPE_NAME_KEYS = ("name", "tool_name", "function")
_ENVELOPE_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_ENVELOPE_RESULT_KEYS = ("response", "result", "output")
_ENVELOPE_OTHER_KEYS = frozenset({"id", "call_id", "tool_call_id", "description", "type"})
_EMBEDDED_TOOL_CALL_ID = re.compile(r'"tool_call_id"\s*:\s*"([^"\\]{1,200})"')


#: Google ADK's own id of a call the model gave no id (Gemini): ``adk-`` and a UUID4, made
#: on the client and stripped before the model sees the history. Not the model's id.
_ADK_CLIENT_CALL_ID = re.compile(
    r"adk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_client_call_id(call_id: Any) -> bool:
    """Whether ``call_id`` is one a framework made up for a call the model gave no id.

    Example:
        >>> is_client_call_id("adk-5b0c2a0e-8d3c-4a55-9a43-0f1d2b3c4d5e")
        True
        >>> is_client_call_id("call_weather_1")
        False
    """
    return (type(call_id) is str and call_id.startswith("adk-")
            and _ADK_CLIENT_CALL_ID.fullmatch(call_id) is not None)


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
        >>> tool_call_id_of({"gen_ai.tool.output": '{"id": "c7", "name": "f", "response": {}}'})
        'c7'
    """
    found = first_str(attributes, TOOL_CALL_ID_KEYS)
    if found is None:
        found = _envelope_call_id(attributes)
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


def _envelope_call_id(attributes: Mapping) -> Optional[str]:
    for key in _CALL_ENVELOPE_CARRIERS:
        value = attributes.get(key)
        if value is None:
            continue
        envelope = call_envelope(json_value(value), attributes,
                                 _ENVELOPE_ARGUMENT_KEYS + _ENVELOPE_RESULT_KEYS)
        if envelope is not None:
            for id_key in ("id", "call_id", "tool_call_id"):
                call_id = envelope[0].get(id_key)
                if type(call_id) is str and call_id:
                    return call_id
    return None


def call_envelope(value: Any, attributes: Mapping, content_keys: tuple) -> Optional[tuple]:
    """``(envelope, content)`` when ``value`` is a recorded call's envelope for the tool
    the span names: a mapping with the tool's name (under ``name``, ``tool_name`` or
    ``function``), one of ``content_keys`` (its arguments, or its result) and only an id,
    a description or a type besides; else None. The name must be the span's own tool name
    when the span has one, so that a tool whose own arguments are called ``name`` and
    ``input`` is not unwrapped.

    Example:
        >>> veadk = {"name": "get_weather", "description": "…", "parameters": {"city": "Paris"}}
        >>> call_envelope(veadk, {"gen_ai.tool.name": "get_weather"}, ("parameters",))[1]
        {'city': 'Paris'}
        >>> call_envelope({"name": "Bob", "input": {"x": 1}}, {"gen_ai.tool.name": "greet"},
        ...               ("input",)) is None
        True
    """
    if not isinstance(value, Mapping) or not value:
        return None
    names = [k for k in _ENVELOPE_NAME_KEYS if k in value]
    contents = [k for k in content_keys if k in value]
    if len(names) != 1 or len(contents) != 1:
        return None
    if not set(value) <= _ENVELOPE_OTHER_KEYS | {names[0], contents[0]}:
        return None
    name = value[names[0]]
    own = first_str(attributes, TOOL_NAME_KEYS)
    if type(name) is not str or (own and name != own):
        return None
    return value, value[contents[0]]


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
        >>> tool_args_parsed({"traceloop.entity.input":
        ...     '{"tool_name": "search", "arguments": {"q": "x"}}'})
        (True, {'q': 'x'}, {'q': 'x'})
        >>> tool_args_parsed({"code.function.parameters.location.type": "str",  # google-genai
        ...                   "code.function.parameters.location.value": "Boston, MA"})
        (True, {'location': 'Boston, MA'}, {'location': 'Boston, MA'})
        >>> tool_args_parsed({"code.function.parameters.location.type": "str"})  # content off
        (False, None, None)
    """
    captured, raw = _present(attributes, TOOL_ARGS_KEYS)
    if not captured:
        parameters = _code_parameters(attributes)
        return (True, parameters, parameters) if parameters is not None else (False, None, None)
    if _elided_adk_tool_content(attributes):
        return False, None, None
    parsed = json_value(raw)
    if isinstance(parsed, Mapping) and parsed and all(
            type(k) is str and k.startswith(CODE_PARAMETER_PREFIX) for k in parsed):
        parameters = _code_parameters(parsed)  # the flat keys inside the JSON
        return (True, parameters, parameters) if parameters is not None else (False, None, None)
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
    envelope = call_envelope(parsed, attributes, _ENVELOPE_ARGUMENT_KEYS)
    if envelope is not None and isinstance(envelope[1], Mapping):
        # a call's envelope: Traceloop's MCP tool input {"tool_name", "arguments"} (client
        # and FastMCP server), VeADK's declaration {"name", "description", "parameters"}
        arguments = dict(envelope[1])
        return True, arguments, arguments
    return True, raw, parsed


def _code_parameters(attributes: Mapping) -> Optional[dict]:
    """``{name: value}`` of ``code.function.parameters.<name>.value`` keys; None when there is
    none (a function without parameters records ``code.args.*.count`` of 0: ``{}``)."""
    found: dict = {}
    typed = False
    for key, value in attributes.items():
        if type(key) is not str or not key.startswith(CODE_PARAMETER_PREFIX):
            continue
        if key.endswith(CODE_PARAMETER_VALUE):
            name = key[len(CODE_PARAMETER_PREFIX):-len(CODE_PARAMETER_VALUE)]
            if name:  # a str parameter stays text; others are JSON-encoded when not primitive
                kind = attributes.get(f"{CODE_PARAMETER_PREFIX}{name}.type")
                found[name] = (json_value(value) if isinstance(value, str) and kind != "str"
                               else value)
        else:
            typed = True
    if found:
        return found
    if not typed and attributes.get(_CODE_POSITIONAL) == 0 and attributes.get(_CODE_KEYWORD) == 0:
        return {}
    return None


_CODE_POSITIONAL = "code.args.positional.count"
_CODE_KEYWORD = "code.args.keyword.count"


def tool_result_of(attributes: Mapping) -> Any:
    """The executed tool's result, parsed when it is JSON; None when not recorded.

    Example:
        >>> tool_result_of({"output.value": '{"t": 18}'})
        {'t': 18}
        >>> tool_result_of({"gen_ai.tool.name": "f",  # VeADK's envelope
        ...                 "gen_ai.tool.output": '{"id": "c1", "name": "f", "response": 3}'})
        3
    """
    _, raw = _present(attributes, TOOL_RESULT_KEYS)
    if raw is None:
        return None
    value = json_value(raw)
    envelope = call_envelope(value, attributes, _ENVELOPE_RESULT_KEYS)
    return envelope[1] if envelope is not None else value
