"""A live benchmark end to end: an instrumented agent → `ek-otel serve` → the report.

What runs, all on 127.0.0.1:

1. a fake OpenAI-compatible model server (``ek_otel.testing.fake_openai``: scripted tool
   calls, known token usage), so nothing leaves the machine;
2. ``ek-otel serve`` on ephemeral ports, with a small gold suite of three tasks, writing the
   scores to a file and keeping its store in a temporary directory;
3. the agent: the real ``openai`` client, instrumented by the real
   ``opentelemetry-instrumentation-openai-v2``, exporting with the SDK's OTLP/HTTP exporter.
   Each run is one trace: an ``invoke_agent`` root span carrying ``ek.task.id``, the chat
   spans the instrumentation records, and an ``execute_tool`` span per tool the agent ran.
   Every task is tried twice (pass^k needs trials);
4. once every run is scored, the server is stopped with SIGTERM (graceful) and
   ``ek-otel report`` prints the report: per task, pass^2, tokens, dollars per success.

Needs the examples extra: ``pip install -e '.[examples]'``. Run: ``python examples/live_agent.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# The instrumentation reads these when it is set up: record message content on the spans,
# with the current GenAI semantic conventions.
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")

HERE = os.path.dirname(os.path.abspath(__file__))
TRIALS = 2

#: The suite. The fake model always asks for the weather and the time in Paris, then a
#: conversion to Fahrenheit: the first task expects exactly that (it passes), the others
#: expect something else (they fail, and the report says why).
TASKS = [
    {"task_id": "paris-weather-time-f", "slice": "weather",
     "input": "Weather and time in Paris, in Fahrenheit?",
     "calls": [{"get_weather": {"city": ["Paris"], "unit": ["celsius", ""]}},
               {"get_time": {"timezone": ["Europe/Paris"]}},
               {"convert_temperature": {"value": [18.5], "to": ["fahrenheit"]}}]},
    {"task_id": "paris-weather-only", "slice": "weather",
     "input": "Just the weather in Paris.",
     "calls": [{"get_weather": {"city": ["Paris"]}}]},
    {"task_id": "tokyo-time", "slice": "time",
     "input": "What time is it in Tokyo?",
     "calls": [{"get_time": {"timezone": ["Asia/Tokyo"]}}]},
]


def start_server(workdir: str, gold: str) -> tuple:
    """``ek-otel serve`` in a child process; returns (process, http port, store, log path)."""
    store = os.path.join(workdir, "ek-otel.db")
    log_path = os.path.join(workdir, "serve.log")
    log = open(log_path, "wb")
    args = [sys.executable, "-m", "ek_otel", "serve", "--gold", gold, "--store", store,
            "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--grace", "0.5",
            "--emit-file", os.path.join(workdir, "scores.jsonl"),
            "--pricing", os.path.join(HERE, "pricing.yaml")]
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        text = open(log_path, errors="replace").read()
        found = re.search(r"listening on http [^:]+:(\d+)", text)
        if found:
            return proc, int(found.group(1)), store, log_path
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"ek-otel serve did not start:\n{text}")
        time.sleep(0.05)


def run_agent(http_port: int, fake_base_url: str) -> list:
    """Run every task TRIALS times with the instrumented client; returns the trace ids."""
    import openai
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from ek_otel.testing.fake_openai import CHAT_TOOLS, tool_result

    provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{http_port}/v1/traces")))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    tracer = provider.get_tracer("examples.live_agent")
    client = openai.OpenAI(base_url=fake_base_url, api_key="sk-fake", max_retries=0)
    trace_ids = []
    try:
        for task in TASKS:
            for trial in range(TRIALS):
                with tracer.start_as_current_span("invoke_agent weather-agent", attributes={
                        "gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.name": "weather-agent",
                        "ek.task.id": task["task_id"], "ek.trial": trial}) as root:
                    messages = [{"role": "user", "content": task["input"]}]
                    for _ in range(5):  # the agent loop: ask, run the tools, repeat
                        reply = client.chat.completions.create(
                            model="gpt-4o-mini", messages=messages, tools=CHAT_TOOLS,
                            temperature=0.2, seed=7)
                        message = reply.choices[0].message.model_dump(exclude_none=True)
                        messages.append(message)
                        if not message.get("tool_calls"):
                            break
                        for call in message["tool_calls"]:
                            name = call["function"]["name"]
                            with tracer.start_as_current_span(f"execute_tool {name}", attributes={
                                    "gen_ai.operation.name": "execute_tool",
                                    "gen_ai.tool.name": name,
                                    "gen_ai.tool.call.id": call["id"],
                                    "gen_ai.tool.call.arguments": call["function"]["arguments"]}):
                                result = tool_result(name, json.loads(call["function"]["arguments"]))
                            messages.append({"role": "tool", "tool_call_id": call["id"],
                                             "content": result})
                    trace_ids.append(format(root.get_span_context().trace_id, "032x"))
    finally:
        provider.force_flush()
        provider.shutdown()
        instrumentor.uninstrument()
    return trace_ids


def wait_scored(store: str, n: int, timeout_s: float = 60.0) -> int:
    """Poll the store (read-only) until ``n`` runs are scored."""
    import sqlite3

    deadline = time.monotonic() + timeout_s
    scored = 0
    while time.monotonic() < deadline:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
        try:
            scored = conn.execute("SELECT COUNT(DISTINCT trace_id) FROM scores").fetchone()[0]
        except sqlite3.OperationalError:
            scored = 0
        finally:
            conn.close()
        if scored >= n:
            break
        time.sleep(0.1)
    return scored


def main() -> int:
    from ek_otel.testing.fake_openai import FakeOpenAI

    with tempfile.TemporaryDirectory(prefix="ek-live-agent-") as workdir:
        gold = os.path.join(workdir, "tasks.jsonl")
        with open(gold, "w") as f:
            f.writelines(json.dumps(t) + "\n" for t in TASKS)
        server, http_port, store, log_path = start_server(workdir, gold)
        try:
            with FakeOpenAI() as fake:
                trace_ids = run_agent(http_port, fake.base_url)
            scored = wait_scored(store, len(trace_ids))
            print(f"{len(trace_ids)} runs sent, {scored} scored live by ek-otel serve",
                  file=sys.stderr)
        finally:
            server.send_signal(signal.SIGTERM)
            code = server.wait(120)
        if code != 0:
            print(open(log_path).read(), file=sys.stderr)
            return 1
        report = subprocess.run([sys.executable, "-m", "ek_otel", "report", "--store", store],
                                check=False)
        with open(os.path.join(workdir, "scores.jsonl")) as f:
            lines = sum(1 for _ in f)
        print(f"scores written back: {lines} OTLP lines (spans + events)", file=sys.stderr)
        return 0 if report.returncode == 0 and scored == len(trace_ids) else 1


if __name__ == "__main__":
    sys.exit(main())
