"""A fake Gemini API (``generateContent``) server on 127.0.0.1 returning scripted ``functionCall``
parts, for the real ``google-genai`` client and the instrumentation around it.

The Gemini twin of :mod:`ek_otel.testing.fake_openai`, with Gemini's usage semantics:
``promptTokenCount`` INCLUDES ``cachedContentTokenCount``, but ``candidatesTokenCount``
EXCLUDES ``thoughtsTokenCount`` (thinking is billed as output). :func:`expected_summary`
gives the totals in the OTel/OpenAI sense: ``output_tokens`` = candidates + thoughts,
``reasoning_tokens`` = thoughts. The Gemini API gives function calls no id.

Endpoints: ``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse``. Standard library only.

Example:
    >>> import json, urllib.request
    >>> with FakeGemini() as server:
    ...     body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    ...     url = server.base_url + "/v1beta/models/gemini-2.5-flash:generateContent"
    ...     req = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    ...     answer = json.loads(urllib.request.urlopen(req).read())
    >>> [p["functionCall"]["name"] for p in answer["candidates"][0]["content"]["parts"]]
    ['get_weather', 'get_time']
    >>> answer["usageMetadata"]["thoughtsTokenCount"]
    16
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ._fake_server import (FakeServer, ScriptHandler, ScriptTurn, summary_calls, summary_tail,
                           turn_index_by_role)

__all__ = ["GeminiUsage", "GeminiCall", "GeminiTurn", "GEMINI_SCRIPT", "REQUEST_MODEL",
           "RESPONSE_MODEL", "FakeGemini", "expected_summary", "generate_content_response"]

REQUEST_MODEL = "gemini-2.5-flash"
RESPONSE_MODEL = "gemini-2.5-flash-001"


@dataclass(frozen=True)
class GeminiUsage:
    """One turn's ``usageMetadata``: prompt includes cached; candidates exclude thoughts."""

    prompt_tokens: int
    candidates_tokens: int
    cached_tokens: int = 0
    thoughts_tokens: int = 0


@dataclass(frozen=True)
class GeminiCall:
    """One ``functionCall`` part (no id: the Gemini API sets none)."""

    name: str
    arguments: dict


@dataclass(frozen=True)
class GeminiTurn(ScriptTurn):
    """One scripted answer: function calls, or a final text (``usage`` a :class:`GeminiUsage`)."""


GEMINI_SCRIPT: tuple = (
    GeminiTurn("gemini-ek-turn-0", GeminiUsage(120, 24, cached_tokens=32, thoughts_tokens=16),
               calls=(GeminiCall("get_weather", {"city": "Paris", "unit": "celsius"}),
                      GeminiCall("get_time", {"timezone": "Europe/Paris"}))),
    GeminiTurn("gemini-ek-turn-1", GeminiUsage(210, 17, cached_tokens=96, thoughts_tokens=8),
               calls=(GeminiCall("convert_temperature", {"value": 18.5, "to": "fahrenheit"}),)),
    GeminiTurn("gemini-ek-turn-2", GeminiUsage(260, 18, cached_tokens=128),
               text="It is 18.5 C (65.3 F) in Paris and 14:00 there."),
)


def expected_summary(script: tuple = GEMINI_SCRIPT) -> dict:
    """Calls in order and token totals in the OTel sense (output includes thoughts).

    Example:
        >>> u = expected_summary()["usage"]
        >>> u["input_tokens"], u["output_tokens"], u["cached_input_tokens"], u["reasoning_tokens"]
        (590, 83, 256, 24)
    """
    usage = {
        "input_tokens": sum(t.usage.prompt_tokens for t in script),
        "output_tokens": sum(t.usage.candidates_tokens + t.usage.thoughts_tokens for t in script),
        "cached_input_tokens": sum(t.usage.cached_tokens for t in script),
        "reasoning_tokens": sum(t.usage.thoughts_tokens for t in script),
    }
    raw = {"candidates_tokens": sum(t.usage.candidates_tokens for t in script),
           "thoughts_tokens": sum(t.usage.thoughts_tokens for t in script)}
    return {"server": "gemini", "calls": summary_calls(script), "usage": usage,
            "gemini_usage": raw, **summary_tail(script, RESPONSE_MODEL)}


def _turn_index(body: dict, script: tuple) -> int:
    return turn_index_by_role(body, "contents", "model", script)


def _usage(u: GeminiUsage) -> dict:
    usage = {"promptTokenCount": u.prompt_tokens, "candidatesTokenCount": u.candidates_tokens,
             "totalTokenCount": u.prompt_tokens + u.candidates_tokens + u.thoughts_tokens,
             "promptTokensDetails": [{"modality": "TEXT", "tokenCount": u.prompt_tokens}]}
    if u.cached_tokens:
        usage["cachedContentTokenCount"] = u.cached_tokens
    if u.thoughts_tokens:
        usage["thoughtsTokenCount"] = u.thoughts_tokens
    return usage


def generate_content_response(turn: GeminiTurn) -> dict:
    """The ``generateContent`` answer for one turn.

    Example:
        >>> generate_content_response(GEMINI_SCRIPT[2])["candidates"][0]["finishReason"]
        'STOP'
    """
    if turn.calls:
        parts = [{"functionCall": {"name": c.name, "args": dict(c.arguments)}} for c in turn.calls]
    else:
        parts = [{"text": turn.text}]
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": _usage(turn.usage), "modelVersion": RESPONSE_MODEL,
            "responseId": turn.response_id}


def stream_chunks(turn: GeminiTurn) -> list:
    """The ``streamGenerateContent`` form: one chunk per part. As the real API does, EVERY
    chunk carries ``usageMetadata`` (the prompt count each time, candidates so far), and
    the last one has the totals; only the last has a ``finishReason``.

    Example:
        >>> chunks = stream_chunks(GEMINI_SCRIPT[0])
        >>> [c["usageMetadata"].get("candidatesTokenCount") for c in chunks]
        [12, 24]
    """
    whole = generate_content_response(turn)
    parts = whole["candidates"][0]["content"]["parts"]
    chunks = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        candidate: dict = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
            usage = whole["usageMetadata"]
        else:
            so_far = turn.usage.candidates_tokens * (index + 1) // len(parts)
            usage = {"promptTokenCount": turn.usage.prompt_tokens,
                     "candidatesTokenCount": so_far,
                     "totalTokenCount": turn.usage.prompt_tokens + so_far}
        chunks.append({"candidates": [candidate], "usageMetadata": usage,
                       "modelVersion": RESPONSE_MODEL, "responseId": turn.response_id})
    return chunks


class _Handler(ScriptHandler):
    def do_POST(self) -> None:  # noqa: N802
        request = self.read_request({"error": {"code": 400, "message": "invalid JSON"}})
        if request is None:
            return
        path, body = request
        turn = self.server.script[_turn_index(body, self.server.script)]
        if path.endswith(":streamGenerateContent"):
            self.send_stream(f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in stream_chunks(turn))
        elif path.endswith(":generateContent"):
            self.send_json(200, generate_content_response(turn))
        else:
            self.send_json(404, {"error": {"code": 404, "message": f"no route {path}"}})


class FakeGemini(FakeServer):
    """A running fake server (context manager); ``base_url`` is ``http://127.0.0.1:PORT``."""

    handler = _Handler
    default_script = GEMINI_SCRIPT
