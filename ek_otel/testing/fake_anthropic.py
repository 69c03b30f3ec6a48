"""A fake Anthropic Messages API server on 127.0.0.1 that returns scripted ``tool_use`` blocks.

The Anthropic twin of :mod:`ek_otel.testing.fake_openai`: the real ``anthropic`` client and
the real instrumentation packages around it run offline against it. Every request gets the
next turn of a fixed script, chosen from the request itself (the number of assistant
messages it carries), with known usage, prompt caching included.

Anthropic's usage differs from OpenAI's: ``input_tokens`` EXCLUDES the cached prompt
tokens, which come separately as ``cache_read_input_tokens`` and
``cache_creation_input_tokens``. The OTel GenAI convention says the input count SHOULD
include cached tokens, so :func:`expected_summary` gives the totals in that sense:
``input_tokens`` = input + cache read + cache creation, ``cached_input_tokens`` = cache read.

Endpoint: ``POST /v1/messages`` (plain and ``stream: true``, the SSE event sequence
``message_start`` .. ``message_stop``). Standard library only, so
``scripts/regen_corpus.py`` can load it by path inside any virtual environment.

Example:
    >>> import json, urllib.request
    >>> with FakeAnthropic() as server:
    ...     body = json.dumps({"model": "claude-x", "max_tokens": 64,
    ...                        "messages": [{"role": "user", "content": "hi"}]}).encode()
    ...     req = urllib.request.Request(server.base_url + "/v1/messages", body,
    ...                                  {"Content-Type": "application/json"})
    ...     answer = json.loads(urllib.request.urlopen(req).read())
    >>> [b["name"] for b in answer["content"] if b["type"] == "tool_use"]
    ['get_weather', 'get_time']
    >>> answer["usage"]["cache_read_input_tokens"]
    32
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._fake_server import (FakeServer, HostedCall, ScriptCall, ScriptHandler, ScriptTurn,
                           summary_calls, summary_tail, tool_result, tool_specs,
                           turn_index_by_role)

__all__ = [
    "AnthropicUsage",
    "AnthropicCall",
    "AnthropicTurn",
    "ANTHROPIC_SCRIPT",
    "ANTHROPIC_HOSTED_SCRIPT",
    "ANTHROPIC_SERVER_TOOLS",
    "hosted_blocks",
    "RESPONSE_MODEL",
    "REQUEST_MODEL",
    "FakeAnthropic",
    "expected_summary",
    "ANTHROPIC_TOOLS",
    "tool_result",
    "run_messages_loop",
]

#: The model the client asks for, and the (dated) model the server reports back.
REQUEST_MODEL = "claude-sonnet-4-5"
RESPONSE_MODEL = "claude-sonnet-4-5-20250929"


@dataclass(frozen=True)
class AnthropicUsage:
    """One turn's usage as Anthropic reports it: ``input_tokens`` excludes the cache."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @property
    def total_input_tokens(self) -> int:
        """Input in the OTel sense (cached included)."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


@dataclass(frozen=True)
class AnthropicCall(ScriptCall):
    """One ``tool_use`` block the fake model returns."""


@dataclass(frozen=True)
class AnthropicTurn(ScriptTurn):
    """One scripted answer: ``tool_use`` blocks (after an optional text), or a final text
    (``usage`` an :class:`AnthropicUsage`)."""


ANTHROPIC_SCRIPT: tuple = (
    AnthropicTurn(
        "msg_ek_turn_0",
        AnthropicUsage(68, 40, cache_read_input_tokens=32, cache_creation_input_tokens=20),
        calls=(
            AnthropicCall("toolu_weather_1", "get_weather", {"city": "Paris", "unit": "celsius"}),
            AnthropicCall("toolu_time_2", "get_time", {"timezone": "Europe/Paris"}),
        ),
        text="Let me check the weather and the time.",
    ),
    AnthropicTurn(
        "msg_ek_turn_1",
        AnthropicUsage(114, 25, cache_read_input_tokens=96),
        calls=(AnthropicCall("toolu_convert_3", "convert_temperature",
                             {"value": 18.5, "to": "fahrenheit"}),),
    ),
    AnthropicTurn(
        "msg_ek_turn_2",
        AnthropicUsage(100, 18, cache_read_input_tokens=128, cache_creation_input_tokens=32),
        text="It is 18.5 C (65.3 F) in Paris and 14:00 there.",
    ),
)


#: A run with Anthropic's server tools (run by the API: ``server_tool_use`` blocks, each
#: followed by its ``*_tool_result`` block in the same answer): a web search beside a client
#: ``get_time`` call, then a code execution in the answer that gives the final text.
ANTHROPIC_HOSTED_SCRIPT: tuple = (
    AnthropicTurn(
        "msg_ek_hosted_0",
        AnthropicUsage(90, 52, cache_read_input_tokens=32),
        hosted=(HostedCall("srvtoolu_ek_1", "web_search", {"query": "weather in Paris"},
                           result=[{"type": "web_search_result", "url": "https://example.org/paris",
                                    "title": "Paris weather", "encrypted_content": "ek",
                                    "page_age": None}]),),
        calls=(AnthropicCall("toolu_time_2", "get_time", {"timezone": "Europe/Paris"}),),
        text="Let me look it up.",
    ),
    AnthropicTurn(
        "msg_ek_hosted_1",
        AnthropicUsage(160, 40, cache_read_input_tokens=96),
        hosted=(HostedCall("srvtoolu_ek_3", "code_execution",
                           {"code": "print(round(18.5 * 9 / 5 + 32, 1))"},
                           result={"type": "code_execution_result", "stdout": "65.3\n",
                                   "stderr": "", "return_code": 0, "content": []}),),
        text="It is 18.5 C (65.3 F) in Paris and 14:00 there.",
    ),
)

#: The result block type of each server tool.
_RESULT_BLOCKS = {"web_search": "web_search_tool_result", "web_fetch": "web_fetch_tool_result",
                  "code_execution": "code_execution_tool_result"}


def hosted_blocks(call: HostedCall) -> list:
    """A server tool call as its two content blocks: ``server_tool_use`` and the result.

    Example:
        >>> [b["type"] for b in hosted_blocks(ANTHROPIC_HOSTED_SCRIPT[0].hosted[0])]
        ['server_tool_use', 'web_search_tool_result']
    """
    return [{"type": "server_tool_use", "id": call.call_id, "name": call.name,
             "input": dict(call.arguments)},
            {"type": _RESULT_BLOCKS.get(call.name, f"{call.name}_tool_result"),
             "tool_use_id": call.call_id, "content": call.result}]


def expected_summary(script: tuple = ANTHROPIC_SCRIPT) -> dict:
    """Calls in order and token totals in the OTel sense (input includes the cache).

    Example:
        >>> s = expected_summary()
        >>> s["usage"]["input_tokens"], s["usage"]["cached_input_tokens"]
        (590, 256)
        >>> s["anthropic_usage"]["input_tokens"], s["anthropic_usage"]["cache_creation_input_tokens"]
        (282, 52)
    """
    usage = {
        "input_tokens": sum(t.usage.total_input_tokens for t in script),
        "output_tokens": sum(t.usage.output_tokens for t in script),
        "cached_input_tokens": sum(t.usage.cache_read_input_tokens for t in script),
        "reasoning_tokens": 0,  # Anthropic reports no separate thinking-token count
    }
    raw = {
        "input_tokens": sum(t.usage.input_tokens for t in script),
        "output_tokens": sum(t.usage.output_tokens for t in script),
        "cache_read_input_tokens": sum(t.usage.cache_read_input_tokens for t in script),
        "cache_creation_input_tokens": sum(t.usage.cache_creation_input_tokens for t in script),
    }
    return {
        "server": "anthropic",
        "calls": summary_calls(script),
        "usage": usage,
        "anthropic_usage": raw,
        **summary_tail(script, RESPONSE_MODEL),
    }


def _turn_index(body: dict, script: tuple) -> int:
    return turn_index_by_role(body, "messages", "assistant", script)


def _usage(u: AnthropicUsage, hosted: tuple = ()) -> dict:
    searches = sum(1 for h in hosted if h.name == "web_search")
    server = {"server_tool_use": {"web_search_requests": searches}} if hosted else {}
    return {**server,
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "cache_read_input_tokens": u.cache_read_input_tokens,
        "cache_creation_input_tokens": u.cache_creation_input_tokens,
        "service_tier": "standard",
    }


def _content(turn: AnthropicTurn) -> list:
    blocks = [block for call in turn.hosted for block in hosted_blocks(call)]
    text = [{"type": "text", "text": turn.text}] if turn.text else []
    # a final text comes after the server tools' results; a text before client calls first
    blocks = blocks + text if not turn.calls else text + blocks
    blocks += [{"type": "tool_use", "id": c.call_id, "name": c.name, "input": dict(c.arguments)}
               for c in turn.calls]
    return blocks


def message(turn: AnthropicTurn) -> dict:
    """The ``/v1/messages`` answer for one turn.

    Example:
        >>> message(ANTHROPIC_SCRIPT[1])["stop_reason"], message(ANTHROPIC_SCRIPT[2])["stop_reason"]
        ('tool_use', 'end_turn')
    """
    return {
        "id": turn.response_id,
        "type": "message",
        "role": "assistant",
        "model": RESPONSE_MODEL,
        "content": _content(turn),
        "stop_reason": "tool_use" if turn.calls else "end_turn",
        "stop_sequence": None,
        "usage": _usage(turn.usage, turn.hosted),
    }


def message_events(turn: AnthropicTurn) -> list:
    """The streamed form of :func:`message`: ``(event, data)`` pairs. As the real API does,
    ``message_start`` carries the input side of the usage, ``message_delta`` the output.

    Example:
        >>> events = message_events(ANTHROPIC_SCRIPT[0])
        >>> events[0][1]["message"]["usage"]["output_tokens"], events[-2][1]["usage"]
        (1, {'output_tokens': 40})
    """
    start = dict(message(turn), content=[], stop_reason=None)
    start["usage"] = dict(_usage(turn.usage, turn.hosted), output_tokens=1)
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(_content(turn)):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "text_delta",
                                                             "text": block["text"]}}))
        elif block["type"] not in ("tool_use", "server_tool_use"):  # a server tool's result
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": block}))
        else:
            events.append(("content_block_start", {
                "type": "content_block_start", "index": index,
                "content_block": {"type": block["type"], "id": block["id"],
                                  "name": block["name"], "input": {}}}))
            events.append(("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use" if turn.calls else "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": turn.usage.output_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class _Handler(ScriptHandler):
    json_headers = (("request-id", "req_ek_fake"),)

    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        request = self.read_request({"type": "error", "error": {"type": "invalid_request_error",
                                                                "message": "invalid JSON"}})
        if request is None:
            return
        path, body = request
        if not path.endswith("/messages"):
            self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                            "message": f"no route {path}"}})
            return
        turn = self.server.script[_turn_index(body, self.server.script)]
        if body.get("stream"):
            self.send_stream(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                             for name, data in message_events(turn))
        else:
            self.send_json(200, message(turn))


class FakeAnthropic(FakeServer):
    """A running fake server; a context manager, or start()/stop().

    ``base_url`` is ``http://127.0.0.1:PORT`` (what ``anthropic.Anthropic(base_url=...)``
    expects: the client adds ``/v1/messages``); ``requests`` lists ``(path, body)``.
    """

    handler = _Handler
    default_script = ANTHROPIC_SCRIPT


# ---------------------------------------------------------------------------
# The client side: a plain tool loop over the Messages API
# ---------------------------------------------------------------------------

#: The tool definitions the scripted client offers.
ANTHROPIC_TOOLS: list = [
    {"name": name, "description": description, "input_schema": schema}
    for name, description, schema in tool_specs()
]


def _blocks(content: Any) -> list:
    out = []
    for block in content:
        if hasattr(block, "model_dump"):
            block = block.model_dump(exclude_none=True)
        out.append({k: v for k, v in block.items() if k in ("type", "text", "id", "name",
                                                            "input", "tool_use_id", "content")})
    return out


def _collect_events(events: Any) -> list:
    """Content blocks from the raw events of ``messages.create(stream=True)``."""
    blocks: dict = {}
    for event in events:
        kind = getattr(event, "type", "")
        if kind == "content_block_start":
            block = event.content_block.model_dump(exclude_none=True)
            block["_json"] = ""
            blocks[event.index] = block
        elif kind == "content_block_delta":
            block = blocks[event.index]
            if event.delta.type == "text_delta":
                block["text"] = block.get("text", "") + event.delta.text
            elif event.delta.type == "input_json_delta":
                block["_json"] += event.delta.partial_json
    out = []
    for index in sorted(blocks):
        block = blocks[index]
        raw = block.pop("_json")
        if block["type"] in ("tool_use", "server_tool_use"):
            block["input"] = json.loads(raw or "{}")
        out.append(block)
    return out


#: The server-tool definitions a client offers for :data:`ANTHROPIC_HOSTED_SCRIPT`.
ANTHROPIC_SERVER_TOOLS: list = [
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
    {"type": "code_execution_20250825", "name": "code_execution"},
]


def run_messages_loop(client: Any, *, stream: Any = False, max_turns: int = 5,
                      server_tools: bool = False) -> list:
    """Drive an ``anthropic.Anthropic`` client through the script: call, run tools, repeat.

    With ``stream=True`` it uses ``client.messages.stream(...)`` and ``get_final_message()``;
    with ``stream="create"``, ``client.messages.create(stream=True)`` and its raw events;
    ``server_tools``: :data:`ANTHROPIC_SERVER_TOOLS` offered too (for
    :data:`ANTHROPIC_HOSTED_SCRIPT`). Returns the final message list.
    """
    messages: list = [{"role": "user", "content": "Weather and time in Paris, in Fahrenheit?"}]
    for _ in range(max_turns):
        kwargs = dict(model=REQUEST_MODEL, max_tokens=512,  # anthropic 2.x: no temperature
                      system="You are a weather assistant.",
                      tools=ANTHROPIC_TOOLS + (ANTHROPIC_SERVER_TOOLS if server_tools else []),
                      messages=messages)
        if stream == "create":
            blocks = _blocks(_collect_events(client.messages.create(stream=True, **kwargs)))
        elif stream:
            with client.messages.stream(**kwargs) as events:
                blocks = _blocks(events.get_final_message().content)
        else:
            blocks = _blocks(client.messages.create(**kwargs).content)
        messages.append({"role": "assistant", "content": blocks})
        uses = [b for b in blocks if b["type"] == "tool_use"]
        if not uses:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"],
             "content": tool_result(b["name"], b["input"])} for b in uses]})
    return messages
