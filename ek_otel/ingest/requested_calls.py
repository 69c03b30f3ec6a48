"""Requested tool calls: the records (:class:`RequestedCall`, :class:`ModelOutput`) and how
ONE recorded call entry becomes one, in every provider shape.

An entry of a ``tool_calls`` list or of a ``parts``/``content`` list (:func:`call_from_entry`):
OTel GenAI ``{type: "tool_call", id, name, arguments}``, OpenAI chat ``{id, function: {name,
arguments}}``, Responses-API ``{type: "function_call", call_id, name, arguments}``, Anthropic
``tool_use`` (``input``), Bedrock ``toolUse``, Gemini ``functionCall`` (``args``), Vercel AI
SDK ``{toolCallId, toolName, args}``, Mastra's tool-call chunks ``{toolCallId, toolName,
toolInput}``; and otel openai-agents-v2 0.1.0's text parts holding a Python repr of the call
(:func:`calls_from_repr`, best effort). Whole messages and answers (which entries they hold,
hosted tools, streams) are read by :mod:`ek_otel.ingest.messages`.

Arguments (:func:`parse_arguments`): a JSON object string becomes a dict; a dict stays a
dict; JSON that is not an object becomes ``{"_value": v}``; a string that is not JSON is
kept whole as ``{"_raw": "..."}`` (so nothing is lost and nothing is invented); a missing
value means *not captured* and gives ``{}`` with ``captured=False``.

Example:
    >>> call = call_from_entry({"id": "c1", "function": {"name": "search",
    ...                                                  "arguments": '{"q": "cats"}'}}, 0)
    >>> (call.call_id, call.name, call.args)
    ('c1', 'search', {'q': 'cats'})
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.fastinit import fast_init
from .semconv.tools import is_client_call_id
from .semconv.values import loads

__all__ = [
    "RequestedCall",
    "ModelOutput",
    "EMPTY_OUTPUT",
    "parse_arguments",
    "str_or_none",
    "call_from_entry",
    "calls_from_repr",
]


@fast_init
@dataclass(frozen=True)
class RequestedCall:
    """One tool call a model asked for. ``index`` is its position within the answer."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    call_id: Optional[str] = None
    args_captured: bool = True
    index: int = 0
    hosted: bool = False  # a tool the provider runs itself (web search, code interpreter)
    result: Any = None  # a hosted call's result, when the answer carries it

    def at(self, index: int) -> "RequestedCall":
        """The same call at another position of the answer.

        Example:
            >>> RequestedCall("web_search", hosted=True).at(2).index
            2
        """
        return RequestedCall(self.name, self.args, self.call_id, self.args_captured, index,
                             self.hosted, self.result)


@fast_init
@dataclass(frozen=True)
class ModelOutput:
    """What one model answer held: the tool calls requested and the assistant text."""

    calls: tuple = ()
    text: Optional[str] = None
    found: bool = False

    def __bool__(self) -> bool:
        return self.found


EMPTY_OUTPUT = ModelOutput()


#: ``parse_arguments``'s default: no parsed value given.
_UNPARSED = object()


def parse_arguments(raw: Any, parsed: Any = _UNPARSED) -> tuple:
    """``(args_dict, captured)`` from a recorded arguments value.

    ``parsed``, when given, is ``json_value(raw)`` already computed by the caller (e.g.
    :func:`~ek_otel.ingest.semconv.tool_args_parsed`): a JSON string is not parsed twice.

    Example:
        >>> parse_arguments('{"city": "Paris"}')
        ({'city': 'Paris'}, True)
        >>> parse_arguments("city=Paris")
        ({'_raw': 'city=Paris'}, True)
        >>> parse_arguments("[1, 2]")
        ({'_value': [1, 2]}, True)
        >>> parse_arguments(None), parse_arguments("")
        (({}, False), ({}, True))
    """
    if raw is None:
        return {}, False
    if type(raw) is dict:
        return dict(raw), True
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", "replace")
    if type(raw) is dict or isinstance(raw, Mapping):
        return dict(raw), True
    if isinstance(raw, str):
        if parsed is not _UNPARSED and parsed is not raw and type(raw) is str:
            value = parsed  # json_value parsed raw.strip(): what json.loads gives below
        else:
            text = raw.strip()
            if not text:
                return {}, True
            try:
                value = loads(text)
            except ValueError:
                return {"_raw": raw}, True
        if isinstance(value, str):  # double-encoded JSON
            inner, _ = parse_arguments(value)
            return (inner if "_raw" not in inner else {"_value": value}), True
        if type(value) is dict or isinstance(value, Mapping):
            return dict(value), True
        return {"_value": value}, True
    return {"_value": raw}, True


def str_or_none(value: Any) -> Optional[str]:
    """A recorded name or id as a non-empty string, or None (containers are no name).

    Example:
        >>> str_or_none("f"), str_or_none(""), str_or_none(3), str_or_none({"a": 1})
        ('f', None, '3', None)
    """
    if type(value) is str:
        return value or None
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value)
    return text or None


_CALL_WRAPPERS = ("tool_call", "toolUse", "functionCall", "function_call")
#: Where a call's arguments are: OpenAI; Anthropic/Bedrock; Gemini/Vercel AI; Mastra's
#: tool-call chunks.
_ARGUMENT_KEYS = ("arguments", "input", "args", "toolInput")
_CALL_ID_KEYS = ("call_id", "id", "toolUseId", "toolCallId")


def call_from_entry(entry: Any, index: int) -> Optional[RequestedCall]:
    """A tool call from one entry of a ``tool_calls`` list or ``parts``/``content`` list
    (or a Mastra tool-call chunk).

    Example:
        >>> call_from_entry({"toolName": "f", "toolCallId": "c1", "toolInput": '{"a": 1}'}, 0)
        RequestedCall(name='f', args={'a': 1}, call_id='c1', args_captured=True, index=0, hosted=False, result=None)
    """
    if type(entry) is not dict and not isinstance(entry, Mapping):
        return None
    get = entry.get
    for wrapper in _CALL_WRAPPERS:
        # OpenInference, Bedrock, Gemini (camelCase and snake_case)
        inner = get(wrapper)
        if inner is not None and (type(inner) is dict or isinstance(inner, Mapping)):
            entry = entry[wrapper]
            get = entry.get
            break
    function = get("function")
    # OpenAI chat nests it
    holder = function if function is not None and (
        type(function) is dict or isinstance(function, Mapping)) else entry
    name = holder.get("name")
    name = (name or None) if type(name) is str else str_or_none(name)
    if not name:
        name = str_or_none(get("toolName"))
        if not name:
            return None
    raw_args = None
    for key in _ARGUMENT_KEYS:
        if key in holder:
            raw_args = holder[key]
            break
    args, captured = (dict(raw_args), True) if type(raw_args) is dict else parse_arguments(raw_args)
    call_id = None
    for key in _CALL_ID_KEYS:
        call_id = get(key)
        call_id = (call_id or None) if type(call_id) is str else str_or_none(call_id)
        if call_id:
            break
    if call_id is not None and _is_invented_id(call_id, name):
        call_id = None
    return RequestedCall(name, args, call_id, captured, index)


def _is_invented_id(call_id: str, name: str) -> bool:
    """``{name}_{part index}``: the id opentelemetry-instrumentation-google-genai makes up
    when Gemini gives none. The same tool called first in two turns gets the same one, so
    it identifies nothing (two calls are not one call reported twice).

    Example:
        >>> _is_invented_id("get_weather_0", "get_weather"), _is_invented_id("call_1", "f")
        (True, False)
    """
    if is_client_call_id(call_id):  # Google ADK's own id (see semconv.is_client_call_id)
        return True
    return (len(call_id) > len(name) + 1 and call_id.startswith(name)
            and call_id[len(name)] == "_" and call_id[len(name) + 1:].isdecimal())


# ---------------------------------------------------------------------------
# otel openai-agents-v2 0.1.0: a Python repr inside a text part (best effort)
# ---------------------------------------------------------------------------

_REPR_CALL = re.compile(r"(?:ResponseFunctionToolCall|FunctionCall\w*)\((?P<body>[^()]*)\)")
_REPR_FIELD = re.compile(r"(\w+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|None|[\w.\-]+)")


def calls_from_repr(text: str) -> list:
    """Tool calls written as a Python repr (``ResponseFunctionToolCall(...)`` or a dict repr).

    Example:
        >>> text = ("[ResponseFunctionToolCall(arguments='{\\"city\\":\\"Paris\\"}', "
        ...         "call_id='call_1', name='get_weather', type='function_call', id='fc_1')]")
        >>> [(c.call_id, c.name, c.args) for c in calls_from_repr(text)]
        [('call_1', 'get_weather', {'city': 'Paris'})]
    """
    if not text or ("function_call" not in text and "FunctionToolCall" not in text):
        return []
    calls: list = []
    for match in _REPR_CALL.finditer(text):
        fields = {}
        for key, raw in _REPR_FIELD.findall(match.group("body")):
            try:
                fields[key] = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                fields[key] = raw
        call = call_from_entry(fields, len(calls))
        if call:
            calls.append(call)
    if calls:
        return calls
    for fields in _dict_reprs(text):
        call = call_from_entry(fields, len(calls))
        if call:
            calls.append(call)
    return calls


def _dict_reprs(text: str, limit: int = 20_000) -> list:
    """Dict literals in ``text`` whose ``type`` is ``function_call`` (shortest parse wins)."""
    found: list = []
    start = text.find("{'")
    while 0 <= start < limit:
        end = text.find("}", start)
        parsed = None
        while end != -1 and end - start < limit:
            try:
                value = ast.literal_eval(text[start:end + 1])
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                end = text.find("}", end + 1)
                continue
            if isinstance(value, dict):
                parsed = value
            break
        if parsed is not None and parsed.get("type") == "function_call":
            found.append(parsed)
            start = text.find("{'", end + 1)
        else:
            start = text.find("{'", start + 1)
    return found
