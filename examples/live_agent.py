"""A live benchmark end to end: an instrumented agent -> `ek-otel serve` -> the report.

Against the server you started (the README's "Live" step):

    ek-otel serve --gold examples/live_tasks.jsonl --pricing examples/pricing.yaml --store ek.db
    python examples/live_agent.py --endpoint http://127.0.0.1:4318 --store ek.db

or self-contained (``python examples/live_agent.py``): the example then starts its own
``ek-otel serve`` on ephemeral ports, with a temporary store, and stops it at the end.

What runs, all on 127.0.0.1:

1. a fake OpenAI-compatible model server (``ek_otel.testing.fake_openai``: scripted tool
   calls, known token usage), so nothing leaves the machine;
2. the agent: the real ``openai`` client, instrumented by the real
   ``opentelemetry-instrumentation-openai-v2``, exporting with the SDK's OTLP/HTTP exporter
   to ``--endpoint``. Each run is one trace: an ``invoke_agent`` root span carrying
   ``ek.task.id``, the chat spans the instrumentation records, and an ``execute_tool`` span
   per tool the agent ran. Every task of examples/live_tasks.jsonl is tried twice (pass^k
   needs trials);
3. once every run is scored (read from the server's store, ``--store``), ``ek-otel report``
   prints the report (per task: success, pass^2, ...), and the example prints the tokens
   by kind, the dollars and the dollars per successful run of its own runs.

Without ``--store`` (a server whose store is elsewhere) the runs are sent and the example
says where to look (the server's live page); it cannot wait for their scores.

Needs the examples extra: ``pip install -e '.[examples]'``.
"""

from __future__ import annotations

import argparse
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

#: The suite (examples/live_tasks.jsonl). The fake model always asks for the weather and the
#: time in Paris, then a conversion to Fahrenheit: the first task expects exactly that (it
#: passes), the others expect something else (they fail, and the report says why).
GOLD = os.path.join(HERE, "live_tasks.jsonl")
PRICING = os.path.join(HERE, "pricing.yaml")


def load_tasks() -> list:
    with open(GOLD, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def start_server(workdir: str) -> tuple:
    """``ek-otel serve`` in a child process; returns (process, http port, store, log path)."""
    store = os.path.join(workdir, "ek-otel.db")
    log_path = os.path.join(workdir, "serve.log")
    log = open(log_path, "wb")
    args = [sys.executable, "-m", "ek_otel", "serve", "--gold", GOLD, "--store", store,
            "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--grace", "0.5",
            "--emit-file", os.path.join(workdir, "scores.jsonl"), "--pricing", PRICING]
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


def run_agent(endpoint: str, fake_base_url: str) -> list:
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
        OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces")))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    tracer = provider.get_tracer("examples.live_agent")
    client = openai.OpenAI(base_url=fake_base_url, api_key="sk-fake", max_retries=0)
    trace_ids = []
    try:
        for task in load_tasks():
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


def wait_scored(store: str, trace_ids: list, timeout_s: float = 60.0) -> int:
    """Poll the store (read-only) until every one of ``trace_ids`` is scored; returns how many
    are."""
    import sqlite3

    deadline = time.monotonic() + timeout_s
    scored = 0
    while time.monotonic() < deadline:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
        try:
            done = {row[0] for row in conn.execute("SELECT DISTINCT trace_id FROM scores")}
            scored = len(done & set(trace_ids))
        except sqlite3.OperationalError:
            scored = 0
        finally:
            conn.close()
        if scored >= len(trace_ids):
            break
        time.sleep(0.1)
    return scored


def own_runs_summary(store: str, trace_ids: list) -> str:
    """Tokens by kind, dollars and dollars per successful run of this example's runs, from
    ``ek-otel report --json`` over the store (which may hold other runs too)."""
    with tempfile.TemporaryDirectory(prefix="ek-live-report-") as tmp:
        out = os.path.join(tmp, "report.json")
        subprocess.run([sys.executable, "-m", "ek_otel", "report", "--store", store,
                        "--json", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
    ours = [e for e in report["episodes"] if e["trace_id"] in set(trace_ids)]
    tokens: dict = {}
    for episode in ours:
        for kind, value in (episode.get("cost") or {}).items():
            if kind.endswith("_tokens"):
                tokens[kind] = tokens.get(kind, 0) + value
    priced = [e["dollars"] for e in ours if e.get("dollars") is not None]
    successes = sum(1 for e in ours if e.get("success"))
    dollars = sum(priced)
    per_success = f"${dollars / successes:.6f}" if successes else "n/a (no run succeeded)"
    unpriced = len(ours) - len(priced)
    note = f" ({unpriced} runs could not be priced)" if unpriced else ""
    kinds = ", ".join(f"{kind.removesuffix('_tokens')} {value}" for kind, value in tokens.items())
    return (f"these {len(ours)} runs: tokens {kinds}; ${dollars:.6f}{note}; "
            f"{successes} succeeded; dollars per success {per_success}")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", help="the OTLP/HTTP base URL of a running ek-otel serve "
                        "(e.g. http://127.0.0.1:4318); none: start one here")
    parser.add_argument("--store", help="that server's store (--store of ek-otel serve), to "
                        "wait for the scores and print the report")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.endpoint:
        return _against(args.endpoint, args.store)
    with tempfile.TemporaryDirectory(prefix="ek-live-agent-") as workdir:
        server, http_port, store, log_path = start_server(workdir)
        try:
            code = _against(f"http://127.0.0.1:{http_port}", store)
        finally:
            server.send_signal(signal.SIGTERM)
            stopped = server.wait(120)
        if stopped != 0:
            print(open(log_path).read(), file=sys.stderr)
            return 1
        with open(os.path.join(workdir, "scores.jsonl")) as f:
            lines = sum(1 for _ in f)
        print(f"scores written back: {lines} OTLP lines (spans + events)", file=sys.stderr)
        return code


def _against(endpoint: str, store) -> int:
    """Run the agent against ``endpoint``; with a store, wait for the scores and report."""
    from ek_otel.testing.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        trace_ids = run_agent(endpoint, fake.base_url)
    if not store:
        print(f"{len(trace_ids)} runs sent to {endpoint}; their scores: the server's page "
              f"({endpoint.rstrip('/')}/) or `ek-otel report --store` on its store",
              file=sys.stderr)
        return 0
    scored = wait_scored(store, trace_ids)
    print(f"{len(trace_ids)} runs sent, {scored} scored live by ek-otel serve", file=sys.stderr)
    report = subprocess.run([sys.executable, "-m", "ek_otel", "report", "--store", store],
                            check=False)
    print(own_runs_summary(store, trace_ids))
    return 0 if report.returncode == 0 and scored == len(trace_ids) else 1


if __name__ == "__main__":
    sys.exit(main())
