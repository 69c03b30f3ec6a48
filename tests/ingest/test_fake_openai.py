"""The fake OpenAI server: scripted turns chosen from the request, streaming, Responses API."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from ek_otel.testing.fake_openai import DEFAULT_SCRIPT, FakeOpenAI, expected_summary

REPO = Path(__file__).resolve().parents[2]


def post(url: str, body: dict) -> bytes:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


def test_chat_turns_follow_the_assistant_messages_in_the_request():
    with FakeOpenAI() as server:
        url = server.base_url + "/chat/completions"
        history = [{"role": "user", "content": "q"}]
        names = []
        for _ in range(len(DEFAULT_SCRIPT)):
            answer = json.loads(post(url, {"model": "m", "messages": history}))
            message = answer["choices"][0]["message"]
            names.append([c["function"]["name"] for c in message.get("tool_calls") or ()])
            history.append(message)
        assert names == [["get_weather", "get_time"], ["convert_temperature"], []]
        assert message["content"] == expected_summary()["final_text"]
        assert len(server.requests) == 3


def test_streamed_chat_carries_the_calls_and_usage_in_the_last_chunk():
    with FakeOpenAI() as server:
        raw = post(server.base_url + "/chat/completions",
                   {"model": "m", "stream": True, "messages": [{"role": "user", "content": "q"}]})
    events = [line[6:] for line in raw.decode().splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    arguments = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for call in choice["delta"].get("tool_calls") or ():
                arguments[call["index"]] = arguments.get(call["index"], "") + call["function"]["arguments"]
    assert [json.loads(a) for _, a in sorted(arguments.items())] == [
        c.arguments for c in DEFAULT_SCRIPT[0].calls]
    assert chunks[-1]["usage"]["prompt_tokens"] == DEFAULT_SCRIPT[0].usage.input_tokens


def test_responses_turns_follow_the_function_calls_in_the_input():
    with FakeOpenAI() as server:
        url = server.base_url + "/responses"
        first = json.loads(post(url, {"model": "m", "input": "q", "temperature": 0.3}))
        items = [i for i in first["output"] if i["type"] == "function_call"]
        assert [i["name"] for i in items] == ["get_weather", "get_time"]
        assert first["temperature"] == 0.3
        second = json.loads(post(url, {"model": "m", "input": ["q", *items]}))
        assert [i["name"] for i in second["output"]] == ["convert_temperature"]
        third = json.loads(post(url, {"model": "m", "input": ["q", *items, *second["output"]]}))
        assert third["output"][0]["type"] == "message"
        assert third["usage"]["input_tokens_details"]["cached_tokens"] == DEFAULT_SCRIPT[2].usage.cached_tokens


def test_regen_script_stays_runnable_and_lists_every_committed_scenario():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "regen_corpus.py"), "--list"],
                            capture_output=True, text=True, timeout=60, check=True)
    listed = {line.split(":")[0] for line in result.stdout.splitlines()}
    committed = {p.name for p in (REPO / "tests" / "ingest" / "corpus").iterdir() if p.is_dir()}
    assert committed <= listed
