"""Message and tool-call formats: what a model answered, in every shape it is recorded.

One model answer can be recorded as:

- OTel GenAI JSON messages (``gen_ai.output.messages``; Traceloop 0.62): ``{role, parts:
  [{type: "tool_call", id, name, arguments}, {type: "text", content}]}``;
- OpenAI chat messages or choices (log events ``gen_ai.choice``/``gen_ai.assistant.message``,
  legacy span events, Langfuse output, OpenInference ``output.value``): ``{role, content,
  tool_calls: [{id, function: {name, arguments}}]}``;
- Responses-API items (``{type: "function_call", call_id, name, arguments}``), and the
  items of hosted tools (``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
  ``computer_call``, ``mcp_call``, ...): calls marked ``hosted``, with their arguments
  (the search action or queries, the code, the action) and results;
- flattened attributes: OpenInference ``llm.output_messages.N.message.tool_calls.M.tool_call.*``
  and Traceloop 0.5x ``gen_ai.completion.N.tool_calls.M.*``;
- content blocks of other providers: Anthropic ``tool_use`` (and ``server_tool_use``, a
  hosted call, its ``*_tool_result`` block its result), Bedrock ``toolUse``, Gemini
  ``functionCall``, Vercel AI SDK ``{toolCallId, toolName, args}``, Mastra's tool-call
  chunks ``{toolCallId, toolName, toolInput}``;
- the ``chat.completion.chunk`` deltas of a streamed answer (:func:`output_of_chunks`:
  MLflow keeps them as span events);
- otel openai-agents-v2 0.1.0's text parts holding a Python repr of the call (best effort).

One call entry (and its arguments) is read by :mod:`ek_otel.ingest.requested_calls`, whose
names this module also exports; this one reads messages and whole answers: which entries a
message holds, hosted tools and their results, streamed partial responses, flattened
attributes, chunk deltas.

Example:
    >>> out = output_of_messages('[{"role": "assistant", "parts": [{"type": "tool_call", '
    ...     '"id": "c1", "name": "search", "arguments": {"q": "cats"}}]}]')
    >>> [(c.call_id, c.name, c.args) for c in out.calls]
    [('c1', 'search', {'q': 'cats'})]
"""


from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from .requested_calls import (EMPTY_OUTPUT, ModelOutput, RequestedCall, call_from_entry,
                              calls_from_repr, parse_arguments, str_or_none)
from .semconv.values import json_value

__all__ = [
    "HOSTED_MARKERS",
    "RequestedCall",
    "ModelOutput",
    "EMPTY_OUTPUT",
    "HOSTED_ITEM_TOOLS",
    "HOSTED_PART_KINDS",
    "hosted_call_from_item",
    "parse_arguments",
    "call_from_entry",
    "calls_from_message",
    "text_from_message",
    "output_of_messages",
    "unflatten",
    "flattened_output",
    "calls_from_repr",
    "output_of_chunks",
]


_PART_WRAPPERS = ("toolUse", "functionCall", "function_call")


def _has_call_wrapper(part: Mapping) -> bool:
    for wrapper in _PART_WRAPPERS:
        inner = part.get(wrapper)
        if inner is not None and (type(inner) is dict or isinstance(inner, Mapping)):
            return True
    return False


_TOOL_CALL_KINDS = frozenset({"tool_call", "function_call", "tool_use", "function",
                              "tool-call"})

#: Responses-API output items of hosted tools (the provider runs them): item type -> the
#: step's tool name. ``mcp_call`` (a remote MCP server the API calls) is named by its tool.
HOSTED_ITEM_TOOLS = {"web_search_call": "web_search", "file_search_call": "file_search",
                     "code_interpreter_call": "code_interpreter", "computer_call": "computer",
                     "image_generation_call": "image_generation", "mcp_call": ""}
#: Content blocks of server tools: Anthropic's ``server_tool_use`` and ``mcp_tool_use``, the
#: OTel GenAI ``server_tool_call`` part.
HOSTED_PART_KINDS = frozenset({"server_tool_use", "mcp_tool_use", "server_tool_call"})
#: The result parts of server tools: Anthropic's ``*_tool_result`` (``tool_use_id``), OTel
#: GenAI's ``server_tool_call_response`` (``id``).
_HOSTED_RESULT_SUFFIX = "_tool_result"
_HOSTED_RESULT_PART = "server_tool_call_response"


#: Text that a raw recorded response holds when it carries hosted calls (a cheap test before
#: parsing it: OpenInference flattens hosted items into ordinary tool calls, or drops them).
HOSTED_MARKERS = tuple(f'"{kind}"' for kind in (*HOSTED_ITEM_TOOLS, "server_tool_use",
                                                  "mcp_tool_use"))


def hosted_call_from_item(item: Mapping, index: int) -> Optional[RequestedCall]:
    """The hosted call of a Responses-API output item (:data:`HOSTED_ITEM_TOOLS`), with
    its arguments (the search action or queries, the code, the computer action) and its
    result when the item carries one; None for another item.

    Example:
        >>> c = hosted_call_from_item({"type": "file_search_call", "id": "fs_1",
        ...     "queries": ["q"], "status": "completed", "results": None}, 0)
        >>> c.name, c.args, c.call_id, c.hosted
        ('file_search', {'queries': ['q']}, 'fs_1', True)
        >>> hosted_call_from_item({"type": "web_search_call", "id": "ws_1",
        ...     "action": {"type": "search", "query": "paris"}}, 0).args
        {'type': 'search', 'query': 'paris'}
    """
    kind = item.get("type")
    name = HOSTED_ITEM_TOOLS.get(kind) if type(kind) is str else None
    if name is None:
        return None
    result = None
    captured = True
    if kind == "web_search_call":
        action = item.get("action")  # (unset fields: None when a client dumped the model)
        args = {k: v for k, v in action.items() if k != "sources" and v is not None} if (
            isinstance(action, Mapping)) else {}
        result = action.get("sources") if isinstance(action, Mapping) else None
    elif kind == "file_search_call":
        queries = item.get("queries")
        args = {"queries": list(queries)} if isinstance(queries, list) else {}
        result = item.get("results")
    elif kind == "code_interpreter_call":
        code = item.get("code")
        args = {"code": code} if isinstance(code, str) else {}
        result = item.get("outputs")
    elif kind == "computer_call":
        action = item.get("action")
        args = dict(action) if isinstance(action, Mapping) else {}
    elif kind == "mcp_call":
        name = str_or_none(item.get("name")) or "mcp_call"
        args, captured = parse_arguments(item.get("arguments"))
        result = item.get("output")
    else:  # image generation: the prompt is the model's own, the image is the result
        args = {}
    call_id = str_or_none(item.get("call_id")) or str_or_none(item.get("id"))
    return RequestedCall(name, args, call_id, captured, index, True, result)


#: An OTel GenAI ``tool_call_response`` part in the model's OWN answer: the provider ran the
#: call it answers (the anthropic SDK's telemetry writes server tools so); a client tool's
#: response only comes in the next request.
_ANSWERED_IN_ANSWER = "tool_call_response"


def _hosted_results(parts: list) -> dict:
    """Server-tool result blocks of a message by the id of the call they answer."""
    results: dict = {}
    for part in parts:
        if type(part) is not dict and not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if type(kind) is str and kind.endswith(_HOSTED_RESULT_SUFFIX) and kind != "tool_result":
            call_id = str_or_none(part.get("tool_use_id"))
            if call_id:
                results[call_id] = part.get("content")
        elif kind in (_HOSTED_RESULT_PART, _ANSWERED_IN_ANSWER):
            call_id = str_or_none(part.get("id"))
            if call_id:
                results[call_id] = part.get("response", part.get("result"))
    return results


def _hosted_part_call(part: Mapping, index: int, results: dict) -> Optional[RequestedCall]:
    """A server tool's call block as a hosted call (its result joined by id)."""
    if part.get("type") == "server_tool_call":  # OTel GenAI: {id, name, server_tool_call}
        inner = part.get("server_tool_call")
        args = {k: v for k, v in inner.items() if k != "type"} if isinstance(inner, Mapping) else {}
        name = str_or_none(part.get("name")) or (
            str_or_none(inner.get("type")) if isinstance(inner, Mapping) else None)
        if not name:
            return None
        call = RequestedCall(name, args, str_or_none(part.get("id")), True, index)
    else:
        call = call_from_entry(part, index)
        if call is None:
            return None
    return RequestedCall(call.name, call.args, call.call_id, call.args_captured, index, True,
                         results.get(call.call_id) if call.call_id else None)


def calls_from_message(message: Any) -> list:
    """The tool calls inside one assistant message (or Responses output item).

    Example:
        >>> msg = {"role": "assistant", "tool_calls": [
        ...     {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        ...     {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}
        >>> [(c.call_id, c.name, c.index) for c in calls_from_message(msg)]
        [('a', 'f', 0), ('b', 'g', 1)]
        >>> calls_from_message({"type": "function_call", "call_id": "c", "name": "h",
        ...                     "arguments": '{"x": 1}'})[0].args
        {'x': 1}
        >>> c = calls_from_message({"role": "assistant", "content": [  # Anthropic server tool
        ...     {"type": "server_tool_use", "id": "s1", "name": "web_search",
        ...      "input": {"query": "paris"}},
        ...     {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}]})[0]
        >>> c.name, c.args, c.hosted, c.result
        ('web_search', {'query': 'paris'}, True, [])
        >>> c = calls_from_message({"role": "assistant", "parts": [  # answered in the answer
        ...     {"type": "tool_call", "id": "s1", "name": "web_search", "arguments": {}},
        ...     {"type": "tool_call_response", "id": "s1", "response": "found"},
        ...     {"type": "tool_call", "id": "c2", "name": "get_time", "arguments": {}}]})
        >>> [(x.name, x.hosted, x.result) for x in c]
        [('web_search', True, 'found'), ('get_time', False, None)]
    """
    if type(message) is not dict and not isinstance(message, Mapping):
        return []
    if "message" in message and isinstance(message["message"], Mapping):
        inner = calls_from_message(message["message"])  # a choice, or an OpenInference wrapper
        if inner:
            return inner
    calls: list = []
    kind = message.get("type")
    if kind in ("function_call", "tool_call", "tool-call") or "toolName" in message:
        call = call_from_entry(message, 0)
        return [call] if call else []
    if type(kind) is str and kind in HOSTED_ITEM_TOOLS:
        call = hosted_call_from_item(message, 0)
        return [call] if call else []
    tool_calls = message.get("tool_calls")
    # flattened lists come back as index dicts
    if tool_calls is not None and type(tool_calls) is not list and (
            type(tool_calls) is dict or isinstance(tool_calls, Mapping)):
        tool_calls = [tool_calls[k] for k in sorted(tool_calls, key=_index_key)]
    if isinstance(tool_calls, list):
        for entry in tool_calls:
            call = call_from_entry(entry, len(calls))
            if call:
                calls.append(call)
    for key in ("parts", "content"):
        parts = message.get(key)
        if not isinstance(parts, list):
            continue
        results = None
        answered = False  # a tool_call_response part: some call was run by the provider
        for part in parts:
            if (type(part) is dict or isinstance(part, Mapping)) and part.get(
                    "type") == _ANSWERED_IN_ANSWER:
                answered = True
                break
        for part in parts:
            if type(part) is not dict and not isinstance(part, Mapping):
                continue
            part_type = part.get("type")
            if part_type in HOSTED_PART_KINDS:
                if results is None:
                    results = _hosted_results(parts)
                call = _hosted_part_call(part, len(calls), results)
                if call:
                    calls.append(call)
            elif part_type in _TOOL_CALL_KINDS or _has_call_wrapper(part):
                call = call_from_entry(part, len(calls))
                if call and answered:
                    if results is None:
                        results = _hosted_results(parts)
                    if call.call_id in results:  # answered in the same answer: hosted
                        call = RequestedCall(call.name, call.args, call.call_id,
                                             call.args_captured, call.index, True,
                                             results[call.call_id])
                if call:
                    calls.append(call)
            elif part_type == "text":
                for call in calls_from_repr(str(part.get("content") or part.get("text") or "")):
                    calls.append(call.at(len(calls)))
    function_call = message.get("function_call")  # legacy OpenAI functions
    if not calls and function_call is not None and (
            type(function_call) is dict or isinstance(function_call, Mapping)):
        call = call_from_entry(function_call, 0)
        if call:
            calls.append(call)
    return calls


#: Between two texts of one answer that other parts (a tool call) stand between.
TEXT_PART_SEPARATOR = "\n\n"


def text_from_message(message: Any) -> Optional[str]:
    """The assistant text of one message (text parts joined), or None: adjacent text parts
    are one text, texts with other parts between them paragraphs (:data:`TEXT_PART_SEPARATOR`).

    Example:
        >>> text_from_message({"role": "assistant", "parts": [{"type": "text", "content": "hi"}]})
        'hi'
        >>> text_from_message({"message": {"content": "hello"}})
        'hello'
        >>> text_from_message({"role": "assistant", "content": [{"text": "hi"}]})  # Bedrock
        'hi'
        >>> text_from_message({"role": "assistant", "parts": [{"type": "text", "content": "A"},
        ...     {"type": "tool_call", "name": "f"}, {"type": "text", "content": "B"}]})
        'A\\n\\nB'
    """
    if isinstance(message, str):
        return message or None
    if type(message) is not dict and not isinstance(message, Mapping):
        return None
    if "message" in message and isinstance(message["message"], Mapping):
        return text_from_message(message["message"])
    content = message.get("content")
    if isinstance(content, str):
        return content or None
    texts = []
    for key in ("parts", "content", "contents"):
        parts = message.get(key)
        if parts is None:
            continue
        if type(parts) is not list and (type(parts) is dict or isinstance(parts, Mapping)):
            parts = [parts[k] for k in sorted(parts, key=_index_key)]
        if not isinstance(parts, list):
            continue
        adjacent = False  # the part before was text: the two are one text
        for part in parts:
            if (type(part) is dict or isinstance(part, Mapping)) and "message_content" in part:
                part = part["message_content"]
            if type(part) is not dict and not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind in ("text", "output_text"):
                text = part.get("content", part.get("text"))
            elif kind is None and not part.get("thought"):
                # an untyped block: Bedrock Converse / Strands ``{"text": ...}``, a Gemini part
                text = part.get("text")
            else:
                adjacent = False
                continue
            if isinstance(text, str) and not calls_from_repr(text):
                if adjacent and texts:
                    texts[-1] += text
                else:
                    texts.append(text)
                adjacent = True
    # adjacent text parts are one text; texts apart (a tool call between them) are
    # paragraphs: how Pydantic AI, whose answers come in parts, joins them itself
    return TEXT_PART_SEPARATOR.join(texts) or None


#: What packages write in place of content they did not capture (Google ADK's log events):
#: no answer at all, never the model's text.
CONTENT_PLACEHOLDERS = frozenset({"<elided>"})


def _is_placeholder(message: Mapping) -> bool:
    content = message.get("content")
    return isinstance(content, str) and content in CONTENT_PLACEHOLDERS and not (
        message.get("tool_calls") or message.get("parts"))


def _messages_in(value: Any) -> Optional[list]:
    """Normalize a recorded answer into a list of messages/items, or None."""
    value = json_value(value)
    if isinstance(value, list):
        return value
    if type(value) is dict or isinstance(value, Mapping):
        if isinstance(value.get("choices"), list):  # a raw chat completion
            return value["choices"]
        if isinstance(value.get("output"), list):  # a raw Responses object
            return value["output"]
        if isinstance(value.get("messages"), list):
            return value["messages"]
        if any(k in value for k in ("role", "tool_calls", "parts", "type", "message")):
            return [value]
    return None


def _finish_reason(message: Any) -> Any:
    return message.get("finish_reason") if isinstance(message, Mapping) else None


def _merged_stream(messages: list) -> list:
    """The messages of a streamed answer, its partial responses merged into the complete one.

    Google ADK in SSE mode records every partial response of one model call as an output
    message with ``finish_reason: ""`` before the complete one. What the partials hold
    depends on the model: with LiteLlm they repeat what the complete message holds (a tool
    call first without arguments, the text); with Gemini each holds its own part (the first
    of two parallel calls) that the complete message does not repeat. So a partial's tool
    call counts unless the complete message has that call id, and its text unless the
    complete message has text.
    """
    if len(messages) < 2 or not any(_finish_reason(m) == "" for m in messages):
        return messages
    complete = [m for m in messages if _finish_reason(m) != ""]
    if not any(_finish_reason(m) for m in complete):
        return messages  # nothing complete: the partials are all there is
    seen_ids = {part.get("id") for m in complete for part in _parts_of(m)
                if part.get("type") == "tool_call" and part.get("id")}
    has_text = any(text_from_message(m) for m in complete)
    carried: list = []
    for message in messages:
        if _finish_reason(message) != "":
            continue
        for part in _parts_of(message):
            kind = part.get("type")
            if kind == "tool_call":
                call_id = part.get("id")
                if call_id and call_id in seen_ids:
                    continue
                seen_ids.add(call_id)
                carried.append(part)
            elif kind == "text" and not has_text:
                carried.append(part)
    if not carried:
        return complete
    return [{"role": "assistant", "parts": carried}, *complete]


def _parts_of(message: Any) -> list:
    parts = message.get("parts") if isinstance(message, Mapping) else None
    return [p for p in parts if isinstance(p, Mapping)] if isinstance(parts, list) else []


def output_of_messages(value: Any, roles: tuple = ("assistant", "model", "")) -> ModelOutput:
    """The tool calls and text of a recorded answer (JSON string, list or dict).

    Messages whose role is not assistant-like (user, system, tool) are ignored.

    Example:
        >>> out = output_of_messages({"choices": [{"message": {"role": "assistant",
        ...     "content": "done"}, "finish_reason": "stop"}]})
        >>> out.calls, out.text
        ((), 'done')
        >>> bool(output_of_messages("not json"))
        False
        >>> bool(output_of_messages({"role": "assistant", "content": "<elided>"}))
        False
        >>> output_of_messages([  # streamed: a partial response, then the whole answer
        ...     {"role": "assistant", "parts": [{"type": "text", "content": "It is"}],
        ...      "finish_reason": ""},
        ...     {"role": "assistant", "parts": [{"type": "text", "content": "It is 18 C."}],
        ...      "finish_reason": "stop"}]).text
        'It is 18 C.'
    """
    messages = _messages_in(value)
    if messages is None:
        return EMPTY_OUTPUT
    messages = _merged_stream(messages)
    calls: list = []
    texts: list = []
    placeholders = 0
    for message in messages:
        if type(message) is not dict and not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role is None and isinstance(message.get("message"), Mapping):
            role = message["message"].get("role")
        if (role or "") not in roles:
            continue
        if _is_placeholder(message):
            placeholders += 1
            continue
        for call in calls_from_message(message):
            if call.index != len(calls):  # renumbered within the whole answer
                call = call.at(len(calls))
            calls.append(call)
        text = text_from_message(message)
        if text:
            texts.append(text)
    if placeholders and not calls and not texts:
        return EMPTY_OUTPUT  # the content was left out: nothing recorded
    return ModelOutput(tuple(calls), "\n".join(texts) or None, True)


def _index_key(key: str) -> tuple:
    # isdecimal, not isdigit: "¹" is a digit that int() refuses
    return (0, int(key), "") if key.isdecimal() else (1, 0, key)


def unflatten(attributes: Mapping, prefix: str) -> Any:
    """Rebuild the nested value that flattened attributes ``prefix.N.a.b`` describe.

    Numeric segments become lists (in index order). None when no key has the prefix.

    Example:
        >>> unflatten({"p.0.role": "assistant", "p.0.tool_calls.0.name": "f",
        ...            "p.1.role": "user", "other": 1}, "p")
        [{'role': 'assistant', 'tool_calls': [{'name': 'f'}]}, {'role': 'user'}]
    """
    root: dict = {}
    dotted = prefix + "."
    found = False
    for key, value in attributes.items():
        if not isinstance(key, str) or not key.startswith(dotted):
            continue
        found = True
        node = root
        parts = key[len(dotted):].split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = value
    return _lists(root) if found else None


def _lists(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    converted = {k: _lists(v) for k, v in node.items()}
    if converted and all(k.isdecimal() for k in converted):
        return [converted[k] for k in sorted(converted, key=int)]
    return converted


def flattened_output(attributes: Mapping, prefix: str) -> ModelOutput:
    """The answer recorded as flattened attributes under ``prefix``.

    ``prefix`` is ``llm.output_messages`` (OpenInference: each item wraps a ``message``) or
    ``gen_ai.completion`` (Traceloop 0.5x).

    Example:
        >>> attrs = {"gen_ai.completion.0.role": "assistant",
        ...          "gen_ai.completion.0.tool_calls.0.id": "c1",
        ...          "gen_ai.completion.0.tool_calls.0.name": "get_time",
        ...          "gen_ai.completion.0.tool_calls.0.arguments": '{"tz": "UTC"}'}
        >>> [(c.call_id, c.name, c.args) for c in flattened_output(attrs, "gen_ai.completion").calls]
        [('c1', 'get_time', {'tz': 'UTC'})]
    """
    value = unflatten(attributes, prefix)
    if not isinstance(value, list):
        return EMPTY_OUTPUT
    messages = []
    for item in value:
        if isinstance(item, Mapping) and isinstance(item.get("message"), Mapping):
            item = item["message"]
        if type(item) is dict or isinstance(item, Mapping):
            item = dict(item)
            if "role" not in item:
                item["role"] = "assistant"
            messages.append(item)
    return output_of_messages(messages)


def output_of_chunks(chunks: Sequence[Any]) -> ModelOutput:
    """The answer a streamed chat completion held, from its ``chat.completion.chunk`` deltas
    (JSON strings or dicts, in order): tool-call fragments joined by their ``index``, text
    concatenated. MLflow records a streamed call's chunks as span events.

    Example:
        >>> out = output_of_chunks([
        ...     {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1",
        ...         "function": {"name": "f", "arguments": ""}}]}}]},
        ...     {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": None,
        ...         "function": {"arguments": '{"a": 1}', "name": None}}]}}]}])
        >>> [(c.name, dict(c.args), c.call_id) for c in out.calls], out.text
        ([('f', {'a': 1}, 'c1')], None)
    """
    slots: dict = {}
    text: list = []
    found = False
    for chunk in chunks:
        chunk = json_value(chunk)
        choices = chunk.get("choices") if isinstance(chunk, Mapping) else None
        if not isinstance(choices, list):
            continue
        found = True
        for choice in choices:
            delta = choice.get("delta") if isinstance(choice, Mapping) else None
            if not isinstance(delta, Mapping):
                continue
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            for fragment in delta.get("tool_calls") or ():
                if not isinstance(fragment, Mapping):
                    continue
                slot = slots.setdefault(fragment.get("index", len(slots)),
                                        {"id": None, "name": "", "arguments": ""})
                slot["id"] = fragment.get("id") or slot["id"]
                function = fragment.get("function")
                if isinstance(function, Mapping):
                    slot["name"] += function.get("name") or ""
                    slot["arguments"] += function.get("arguments") or ""
    if not found:
        return EMPTY_OUTPUT
    calls = []
    for key in sorted(slots, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0)):
        slot = slots[key]
        call = call_from_entry({"id": slot["id"], "function": {
            "name": slot["name"], "arguments": slot["arguments"]}}, len(calls))
        if call is not None:
            calls.append(call)
    return ModelOutput(tuple(calls), "".join(text) or None, True)
