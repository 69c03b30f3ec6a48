"""A fake OpenAI-compatible server on 127.0.0.1 that returns scripted tool calls.

It lets the real ``openai`` client, and the real instrumentation packages around it, run
offline: every request gets the next *turn* of a fixed script, chosen from the request
itself (so concurrent clients and retries get the same answers), with known token usage
(cached and reasoning details included). The default script is two parallel tool calls,
then one more tool call, then a final text answer.

Endpoints: ``POST /v1/chat/completions`` (plain and ``stream: true``) and
``POST /v1/responses`` (plain; the Agents SDK's default model). It uses only the standard
library, so ``scripts/regen_corpus.py`` can run it inside any virtual environment.

Example:
    >>> import json, urllib.request
    >>> with FakeOpenAI() as server:
    ...     body = json.dumps({"model": "gpt-4o-mini",
    ...                        "messages": [{"role": "user", "content": "hi"}]}).encode()
    ...     req = urllib.request.Request(server.base_url + "/chat/completions", body,
    ...                                  {"Content-Type": "application/json"})
    ...     answer = json.loads(urllib.request.urlopen(req).read())
    >>> [c["function"]["name"] for c in answer["choices"][0]["message"]["tool_calls"]]
    ['get_weather', 'get_time']
    >>> answer["usage"]["prompt_tokens_details"]["cached_tokens"]
    32
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from ._fake_server import (FakeServer, HostedCall, ScriptCall, ScriptHandler, ScriptTurn,
                           summary_calls, summary_tail, tool_result, tool_specs)

__all__ = [
    "ScriptedCall",
    "ScriptedUsage",
    "Turn",
    "DEFAULT_SCRIPT",
    "RESPONSE_MODEL",
    "FakeOpenAI",
    "expected_summary",
    "CHAT_TOOLS",
    "tool_result",
    "run_chat_loop",
    "final_answer_script",
    "renamed_script",
    "named_script",
    "STREAM_USAGE_CHOICES",
    "HostedCall",
    "HOSTED_SCRIPT",
    "hosted_item",
]

#: The model name the server reports (a request for ``gpt-4o-mini`` gets this back).
RESPONSE_MODEL = "gpt-4o-mini-2024-07-18"


@dataclass(frozen=True)
class ScriptedCall(ScriptCall):
    """One tool call the fake model requests."""


@dataclass(frozen=True)
class ScriptedUsage:
    """The usage the fake model reports for one turn (input includes cached)."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class Turn(ScriptTurn):
    """One scripted model answer: tool calls, or a final text when ``calls`` is empty
    (``usage`` a :class:`ScriptedUsage`)."""


DEFAULT_SCRIPT: tuple = (
    Turn(
        "chatcmpl-ek-turn-0",
        ScriptedUsage(120, 40, cached_tokens=32, reasoning_tokens=16),
        calls=(
            ScriptedCall("call_weather_1", "get_weather", {"city": "Paris", "unit": "celsius"}),
            ScriptedCall("call_time_2", "get_time", {"timezone": "Europe/Paris"}),
        ),
    ),
    Turn(
        "chatcmpl-ek-turn-1",
        ScriptedUsage(210, 25, cached_tokens=96, reasoning_tokens=8),
        calls=(ScriptedCall("call_convert_3", "convert_temperature",
                            {"value": 18.5, "to": "fahrenheit"}),),
    ),
    Turn(
        "chatcmpl-ek-turn-2",
        ScriptedUsage(260, 18, cached_tokens=128, reasoning_tokens=0),
        text="It is 18.5 C (65.3 F) in Paris and 14:00 there.",
    ),
)


#: A Responses-API run with hosted tools (the provider runs them; no client tool span): a
#: web search beside a client call of ``get_time``, then a file search and a code
#: interpreter call in the answer that also gives the final text. Only the Responses API
#: has hosted tools (Chat Completions answers as ``DEFAULT_SCRIPT``'s turns).
HOSTED_SCRIPT: tuple = (
    Turn("chatcmpl-ek-hosted-0", ScriptedUsage(140, 30, cached_tokens=32, reasoning_tokens=8),
         hosted=(HostedCall("ws_ek_1", "web_search",
                            {"type": "search", "query": "weather in Paris"}),),
         calls=(ScriptedCall("call_time_2", "get_time", {"timezone": "Europe/Paris"}),)),
    Turn("chatcmpl-ek-hosted-1", ScriptedUsage(320, 44, cached_tokens=96, reasoning_tokens=0),
         hosted=(HostedCall("fs_ek_2", "file_search", {"queries": ["Paris climate normals"]},
                            result=[{"file_id": "file-ek-1", "filename": "paris.txt",
                                     "score": 0.9, "text": "Paris: mild, 18.5 C today."}]),
                 HostedCall("ci_ek_3", "code_interpreter",
                            {"code": "print(round(18.5 * 9 / 5 + 32, 1))"}, result="65.3\n")),
         text="It is 18.5 C (65.3 F) in Paris and 14:00 there."),
)


def hosted_item(call: HostedCall) -> dict:
    """A hosted call as the Responses API's output item (``web_search_call``,
    ``file_search_call``, ``code_interpreter_call``, ``computer_call``).

    Example:
        >>> hosted_item(HOSTED_SCRIPT[0].hosted[0])["action"]["query"]
        'weather in Paris'
        >>> hosted_item(HostedCall("cu_1", "computer", {"type": "screenshot"}))["call_id"]
        'cu_1'
    """
    item = {"type": f"{call.name}_call", "id": call.call_id, "status": "completed"}
    if call.name == "web_search":
        item["action"] = dict(call.arguments)
    elif call.name == "file_search":
        item.update(queries=list(call.arguments.get("queries") or ()), results=call.result)
    elif call.name == "code_interpreter":
        item.update(code=call.arguments.get("code", ""), container_id="cntr_ek_fake",
                    outputs=[{"type": "logs", "logs": call.result or ""}])
    elif call.name == "computer":
        item.update(call_id=call.call_id, action=dict(call.arguments),
                    pending_safety_checks=[])
    else:
        item.update(call.arguments)
    return item


def final_answer_script(tool: str = "final_answer", key: str = "answer",
                        script: tuple = DEFAULT_SCRIPT) -> tuple:
    """``script`` with its final text answer given as a call of a framework's own answer tool.

    Agent frameworks that end a run only through a tool (smolagents' ``final_answer``) need
    the model to call it; the response ids and usage stay those of ``script``, so the token
    totals are the same and only one more call (``call_final_answer``) is requested.

    Example:
        >>> s = final_answer_script()
        >>> [c["tool"] for c in expected_summary(s)["calls"]][-1], s[-1].text
        ('final_answer', '')
        >>> expected_summary(s)["usage"] == expected_summary()["usage"]
        True
    """
    last = script[-1]
    final = Turn(last.response_id, last.usage,
                 calls=(ScriptedCall(f"call_{tool}", tool, {key: last.text}),))
    return tuple(script[:-1]) + (final,)


def renamed_script(names: dict, script: tuple = DEFAULT_SCRIPT) -> tuple:
    """``script`` with its tools renamed (``{old: new}``), for frameworks that expose tools
    under names of their own (Semantic Kernel's ``Plugin-function``); ids, arguments and
    usage stay the same.

    Example:
        >>> s = renamed_script({"get_time": "Clock-get_time"})
        >>> [c["tool"] for c in expected_summary(s)["calls"]]
        ['get_weather', 'Clock-get_time', 'convert_temperature']
    """
    return tuple(
        Turn(turn.response_id, turn.usage, text=turn.text, calls=tuple(
            ScriptedCall(c.call_id, names.get(c.name, c.name), dict(c.arguments))
            for c in turn.calls))
        for turn in script)


#: Semantic Kernel's names for the tools of a plugin called ``Weather``.
SEMANTIC_KERNEL_NAMES = {name: f"Weather-{name}" for name, _, _ in tool_specs()}


def named_script(name: str) -> tuple:
    """A script by the name a corpus scenario records (``expected.json`` ``script``):
    ``default``, ``final_answer`` (:func:`final_answer_script`), ``semantic_kernel``
    (:func:`renamed_script` with :data:`SEMANTIC_KERNEL_NAMES`) or ``hosted``
    (:data:`HOSTED_SCRIPT`).

    Example:
        >>> named_script("semantic_kernel")[1].calls[0].name
        'Weather-convert_temperature'
        >>> named_script("nope")
        Traceback (most recent call last):
        ...
        ValueError: unknown script 'nope' (default, final_answer, semantic_kernel, hosted)
    """
    if name == "default":
        return DEFAULT_SCRIPT
    if name == "final_answer":
        return final_answer_script()
    if name == "semantic_kernel":
        return renamed_script(SEMANTIC_KERNEL_NAMES)
    if name == "hosted":
        return HOSTED_SCRIPT
    raise ValueError(f"unknown script {name!r} (default, final_answer, semantic_kernel, hosted)")


def expected_summary(script: tuple = DEFAULT_SCRIPT) -> dict:
    """What a run through the whole script must produce: calls in order and token totals.

    Example:
        >>> s = expected_summary()
        >>> [c["tool"] for c in s["calls"]], s["usage"]["input_tokens"]
        (['get_weather', 'get_time', 'convert_temperature'], 590)
    """
    usage = {
        "input_tokens": sum(t.usage.input_tokens for t in script),
        "output_tokens": sum(t.usage.output_tokens for t in script),
        "cached_input_tokens": sum(t.usage.cached_tokens for t in script),
        "reasoning_tokens": sum(t.usage.reasoning_tokens for t in script),
    }
    return {"calls": summary_calls(script), "usage": usage, **summary_tail(script, RESPONSE_MODEL)}


def _turn_index_for_chat(body: dict, script: tuple) -> int:
    assistant_turns = sum(1 for m in body.get("messages") or () if m.get("role") == "assistant")
    return min(assistant_turns, len(script) - 1)


def _turn_index_for_responses(body: dict, script: tuple) -> int:
    items = body.get("input")
    seen = 0
    if isinstance(items, list):
        seen = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call")
    total = 0
    for index, turn in enumerate(script):
        if seen <= total:
            return index
        total += len(turn.calls)
    return len(script) - 1


def _chat_usage(u: ScriptedUsage) -> dict:
    return {
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": u.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _chat_message(turn: Turn) -> dict:
    if turn.calls:
        return {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [
                {"id": c.call_id, "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in turn.calls
            ],
        }
    return {"role": "assistant", "content": turn.text, "refusal": None}


def chat_completion(turn: Turn, created: int = 1_760_000_000) -> dict:
    """The ``/v1/chat/completions`` answer for one turn.

    Example:
        >>> chat_completion(DEFAULT_SCRIPT[2])["choices"][0]["finish_reason"]
        'stop'
    """
    return {
        "id": turn.response_id,
        "object": "chat.completion",
        "created": created,
        "model": RESPONSE_MODEL,
        "system_fingerprint": "fp_ek_fake",
        "service_tier": "default",
        "choices": [{
            "index": 0,
            "message": _chat_message(turn),
            "logprobs": None,
            "finish_reason": "tool_calls" if turn.calls else "stop",
        }],
        "usage": _chat_usage(turn.usage),
    }


def chat_completion_chunks(turn: Turn, created: int = 1_760_000_000) -> list:
    """The streamed form of :func:`chat_completion`: chunks, the last one carrying usage.

    Example:
        >>> chunks = chat_completion_chunks(DEFAULT_SCRIPT[0])
        >>> chunks[-1]["usage"]["completion_tokens"], chunks[-1]["choices"]
        (40, [])
    """
    base = {"id": turn.response_id, "object": "chat.completion.chunk", "created": created,
            "model": RESPONSE_MODEL, "system_fingerprint": "fp_ek_fake"}
    chunks = [dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                                   "finish_reason": None}])]
    for index, call in enumerate(turn.calls):
        chunks.append(dict(base, choices=[{"index": 0, "finish_reason": None, "delta": {
            "tool_calls": [{"index": index, "id": call.call_id, "type": "function",
                            "function": {"name": call.name, "arguments": ""}}]}}]))
        chunks.append(dict(base, choices=[{"index": 0, "finish_reason": None, "delta": {
            "tool_calls": [{"index": index,
                            "function": {"arguments": json.dumps(call.arguments)}}]}}]))
    if turn.text:
        chunks.append(dict(base, choices=[{"index": 0, "delta": {"content": turn.text},
                                           "finish_reason": None}]))
    chunks.append(dict(base, choices=[{"index": 0, "delta": {},
                                       "finish_reason": "tool_calls" if turn.calls else "stop"}]))
    chunks.append(dict(base, choices=[], usage=_chat_usage(turn.usage)))
    return chunks


def response_object(turn: Turn, created: int = 1_760_000_000, temperature: float = 1.0) -> dict:
    """The ``/v1/responses`` answer for one turn (parallel calls are separate items; hosted
    calls first, as :func:`hosted_item`).

    Example:
        >>> [i["type"] for i in response_object(DEFAULT_SCRIPT[0])["output"]]
        ['function_call', 'function_call']
        >>> [i["type"] for i in response_object(HOSTED_SCRIPT[1])["output"]]
        ['file_search_call', 'code_interpreter_call', 'message']
    """
    rid = turn.response_id.replace("chatcmpl-", "resp_")
    output = [hosted_item(h) for h in turn.hosted]
    if turn.calls:
        output += [
            {"type": "function_call", "id": f"fc_{c.call_id}", "call_id": c.call_id,
             "name": c.name, "arguments": json.dumps(c.arguments), "status": "completed"}
            for c in turn.calls
        ]
    else:
        output += [{
            "type": "message", "id": f"msg_{rid}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
        }]
    u = turn.usage
    return {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": "completed",
        "model": RESPONSE_MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "temperature": temperature,
        "top_p": 1.0,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "usage": {
            "input_tokens": u.input_tokens,
            "input_tokens_details": {"cached_tokens": u.cached_tokens},
            "output_tokens": u.output_tokens,
            "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
            "total_tokens": u.input_tokens + u.output_tokens,
        },
    }


class _Handler(ScriptHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        request = self.read_request({"error": {"message": "invalid JSON", "type": "invalid_request"}})
        if request is None:
            return
        path, body = request
        script = self.server.script
        if path.endswith("/chat/completions"):
            turn = script[_turn_index_for_chat(body, script)]
            if body.get("stream"):
                chunks = chat_completion_chunks(turn)
                if getattr(self.server, "stream_usage", "always") == "requested" and not (
                        body.get("stream_options") or {}).get("include_usage"):
                    chunks = chunks[:-1]  # as the real API: usage only when asked for
                self.send_stream([*(f"data: {json.dumps(c)}\n\n" for c in chunks), "data: [DONE]\n\n"])
            else:
                self.send_json(200, chat_completion(turn))
        elif path.endswith("/responses"):
            turn = script[_turn_index_for_responses(body, script)]
            temperature = body.get("temperature")
            if not isinstance(temperature, (int, float)):
                temperature = 1.0
            self.send_json(200, response_object(turn, temperature=float(temperature)))
        else:
            self.send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})


#: When a streamed chat completion ends with its usage chunk: ``"always"`` (the default), or
#: ``"requested"``, as the real API, only with ``stream_options: {"include_usage": true}``.
STREAM_USAGE_CHOICES = ("always", "requested")


class FakeOpenAI(FakeServer):
    """A running fake server; use it as a context manager, or call start()/stop().

    ``base_url`` ends with ``/v1`` (what ``openai.OpenAI(base_url=...)`` expects) and
    ``requests`` lists every ``(path, json_body)`` received. ``stream_usage`` is one of
    :data:`STREAM_USAGE_CHOICES`.

    Example:
        >>> with FakeOpenAI(stream_usage="requested") as server:
        ...     server.base_url.endswith("/v1")
        True
    """

    handler = _Handler
    base_path = "/v1"
    default_script = DEFAULT_SCRIPT

    def __init__(self, script: Optional[tuple] = None, host: str = "127.0.0.1", port: int = 0,
                 *, stream_usage: str = "always"):
        if stream_usage not in STREAM_USAGE_CHOICES:
            raise ValueError(f"stream_usage must be one of {STREAM_USAGE_CHOICES}, "
                             f"not {stream_usage!r}")
        super().__init__(script, host, port)
        self.stream_usage = stream_usage

    def start(self) -> "FakeOpenAI":
        """Bind a random loopback port and serve in a daemon thread."""
        super().start()
        self._server.stream_usage = self.stream_usage
        return self


# ---------------------------------------------------------------------------
# The client side: a plain tool loop over the Chat Completions API
# ---------------------------------------------------------------------------

#: The tool definitions the scripted client offers (the script's calls use these).
CHAT_TOOLS: list = [
    {"type": "function", "function": {"name": name, "description": description,
                                      "parameters": schema}}
    for name, description, schema in tool_specs()
]


def _collect_stream(stream: Any) -> dict:
    content, calls = "", {}
    for chunk in stream:
        for choice in chunk.choices:
            delta = choice.delta
            content += delta.content or ""
            for tc in delta.tool_calls or ():
                slot = calls.setdefault(tc.index, {"id": "", "type": "function",
                                                   "function": {"name": "", "arguments": ""}})
                slot["id"] = tc.id or slot["id"]
                if tc.function is not None:
                    slot["function"]["name"] += tc.function.name or ""
                    slot["function"]["arguments"] += tc.function.arguments or ""
    message: dict = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


def run_chat_loop(client: Any, *, stream: bool = False, max_turns: int = 5,
                  content_key: bool = False) -> list:
    """Drive an ``openai.OpenAI`` client through the script: call, run tools, repeat.

    Returns the final message list. Requests use ``temperature=0.2`` and ``seed=7``.
    ``content_key``: an assistant message that calls tools keeps ``"content": None`` (what
    the API returns) in the history sent back (OpenLit 1.27 fails on it when it is left out).

    Example:
        >>> class Stub:  # anything shaped like the openai client works
        ...     def __init__(self):
        ...         self.chat = self; self.completions = self
        ...     def create(self, **kw):
        ...         return _Reply({"role": "assistant", "content": "done"})
        >>> class _Reply:
        ...     def __init__(self, m):
        ...         self.choices = [self]; self.message = self; self.m = m
        ...     def model_dump(self, **kw):
        ...         return dict(self.m)
        >>> run_chat_loop(Stub())[-1]["content"]
        'done'
    """
    messages = [{"role": "system", "content": "You are a weather assistant."},
                {"role": "user", "content": "Weather and time in Paris, in Fahrenheit?"}]
    for _ in range(max_turns):
        kwargs = dict(model="gpt-4o-mini", messages=messages, tools=CHAT_TOOLS,
                      temperature=0.2, seed=7)
        if stream:
            message = _collect_stream(client.chat.completions.create(
                stream=True, stream_options={"include_usage": True}, **kwargs))
        else:
            message = client.chat.completions.create(**kwargs).choices[0].message.model_dump(
                exclude_none=True)
        if content_key:
            message.setdefault("content", None)
        messages.append(message)
        if not message.get("tool_calls"):
            break
        for call in message["tool_calls"]:
            args = json.loads(call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": tool_result(call["function"]["name"], args)})
    return messages
