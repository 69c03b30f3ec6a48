#!/usr/bin/env python3
"""Regenerate examples/traces.jsonl: a small trace dump of agent runs for examples/tasks.jsonl.

The spans are made by the REAL OpenTelemetry SDK (TracerProvider, Tracer, the SDK's span
processor and in-memory exporter) with OTel GenAI semantic-convention attributes, the way an
instrumented agent emits them:

- a root ``invoke_agent support-agent`` span carrying ``ek.task.id`` (how ek-otel links a
  trace to its gold task);
- ``chat gpt-4o-mini`` model-call spans with token usage, ``gen_ai.response.id`` and the
  requested tool calls in ``gen_ai.output.messages``;
- ``execute_tool <name>`` spans with ``gen_ai.tool.call.id`` / ``.arguments`` / ``.result``.

They are written in the OTLP JSON encoding (the official ``opentelemetry-exporter-otlp-json-common``
encoder when installed, else ek-otel's own), as JSON Lines of ``ExportTraceServiceRequest``
batches of a few spans each, the way the Collector's file exporter writes them: a line is a
batch, not a trace, so traces are spread over several lines.

Some runs are right and some are wrong (see RUNS); one names a task that is not in the gold
file, so ``ek-otel score`` lists it as unmatched. Ids and timestamps are fixed, so the output
is the same on every run:

    python scripts/make_example_traces.py              # writes examples/traces.jsonl
    python scripts/make_example_traces.py -o /tmp/x.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from opentelemetry import trace as trace_api
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode

try:  # the official OTLP JSON encoder
    from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans as _official

    def _to_json_line(spans) -> str:
        return json.dumps(json.loads(_official(spans).to_json()), separators=(",", ":"))

except ImportError:  # pragma: no cover - fall back to ek-otel's encoder (same output)
    from ek_otel.emit.otlp_json import trace_request_json

    def _to_json_line(spans) -> str:
        return json.dumps(trace_request_json(spans), separators=(",", ":"))


ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "examples" / "traces.jsonl"
START_NS = 1_795_910_400_000_000_000  # 2026-11-30T00:00:00Z
MODEL = "gpt-4o-mini"
RESPONSE_MODEL = "gpt-4o-mini-2024-07-18"
SPANS_PER_LINE = 5


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict
    result: object = "ok"


@dataclass(frozen=True)
class Turn:
    user: str
    calls: tuple = ()
    answer: str = "Done."


@dataclass(frozen=True)
class Run:
    """One agent run: what the user asked, per turn, and the calls the model made."""

    task_id: str
    turns: tuple
    right: bool
    note: str = ""
    tokens: tuple = (420, 38)  # input, output per model call
    attributes: dict = field(default_factory=dict)


RUNS = (
    Run("weather-paris", (Turn("What's the weather in Paris right now, in celsius?",
                               (Call("get_weather", {"city": "Paris", "unit": "celsius"},
                                     {"temp_c": 11, "sky": "overcast"}),), "11 °C and overcast."),),
        True, "exact"),
    Run("weather-paris", (Turn("What's the weather in Paris right now, in celsius?",
                               (Call("get_weather", {"city": "Paris, France"},
                                     {"temp_c": 11, "sky": "overcast"}),), "11 °C."),),
        True, "an admissible city spelling; the optional unit left out"),
    Run("weather-paris", (Turn("What's the weather in Paris right now, in celsius?",
                               (Call("get_weather", {"city": "Lyon", "unit": "celsius"},
                                     {"temp_c": 9, "sky": "rain"}),), "9 °C and rain."),),
        False, "wrong city"),
    Run("refund-order-1042", (Turn("Order 1042 arrived broken. Please refund the $35.50 I paid.",
                                   (Call("lookup_order", {"order_id": "1042"}, {"total": 35.5}),
                                    Call("refund", {"order_id": "1042", "amount": 355.0,
                                                    "reason": "damaged"}, {"refunded": 355.0})),
                                   "Refunded $355.00."),),
        False, "refund amount off by 10x (a destructive tool, an important argument)",
        tokens=(910, 61)),
    Run("refund-order-1042", (Turn("Order 1042 arrived broken. Please refund the $35.50 I paid.",
                                   (Call("lookup_order", {"order_id": "1042"}, {"total": 35.5}),
                                    Call("refund", {"order_id": "1042", "amount": 35.5,
                                                    "reason": "damaged"}, {"refunded": 35.5})),
                                   "Refunded $35.50."),),
        True, "exact", tokens=(905, 58)),
    Run("joke-no-tool", (Turn("Tell me a joke about umbrellas.", (),
                              "Why did the umbrella break up? It felt used."),),
        True, "no call expected, none made", tokens=(150, 22)),
    Run("joke-no-tool", (Turn("Tell me a joke about umbrellas.",
                              (Call("get_weather", {"city": "Seattle"}, {"sky": "rain"}),),
                              "It's raining in Seattle: umbrellas are busy."),),
        False, "a spurious call", tokens=(180, 30)),
    Run("flight-booking", (Turn("Find me a flight from SFO to JFK on 2026-12-20.",
                                (Call("search_flights", {"origin": "SFO", "destination": "JFK",
                                                         "date": "2026-12-20"},
                                      [{"flight": "UA 512", "dep": "08:05"}]),),
                                "UA 512 leaves at 08:05."),
                           Turn("Book UA 512, window seat please.",
                                (Call("book_flight", {"flight": "UA 512", "seat": "window"},
                                      {"confirmation": "K7Q2ZD"}),), "Booked: K7Q2ZD.")),
        True, "two turns, exact", tokens=(640, 45)),
    Run("flight-booking", (Turn("Find me a flight from SFO to JFK on 2026-12-20.",
                                (Call("search_flights", {"origin": "SFO", "destination": "JFK",
                                                         "date": "2026-12-20"},
                                      [{"flight": "UA 512", "dep": "08:05"}]),),
                                "UA 512 leaves at 08:05."),
                           Turn("Book UA 512, window seat please.",
                                (Call("book_flight", {"flight": "UA 513", "seat": "window"},
                                      {"confirmation": "P9X4LM"}),), "Booked: P9X4LM.")),
        False, "booked the wrong flight", tokens=(655, 47)),
    Run("weather-tokyo", (Turn("And in Tokyo?", (Call("get_weather", {"city": "Tokyo"},
                                                      {"temp_c": 14}),), "14 °C."),),
        False, "a task id that is not in examples/tasks.jsonl: listed as unmatched"),
)


class SeededIds(IdGenerator):
    """Deterministic trace and span ids, so the example dump is reproducible."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1


def _output_message(turn: Turn, calls: tuple, ids: list) -> str:
    if calls:
        parts = [{"type": "tool_call", "id": call_id, "name": c.tool, "arguments": c.args}
                 for c, call_id in zip(calls, ids)]
        return json.dumps([{"role": "assistant", "parts": parts, "finish_reason": "tool_call"}])
    return json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": turn.answer}],
                        "finish_reason": "stop"}])


def _record_run(tracer, run: Run, index: int) -> None:
    clock = [START_NS + index * 60_000_000_000]

    def tick(ms: int) -> int:
        clock[0] += ms * 1_000_000
        return clock[0]

    root = tracer.start_span(
        "invoke_agent support-agent",
        kind=SpanKind.INTERNAL,
        start_time=tick(0),
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "support-agent",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": MODEL,
            "gen_ai.conversation.id": f"conv-{index:03d}",
            "ek.task.id": run.task_id,
            **run.attributes,
        },
    )
    context = trace_api.set_span_in_context(root)
    call_number = 0
    model_call = 0
    for turn in run.turns:
        messages = [{"role": "user", "parts": [{"type": "text", "content": turn.user}]}]
        for phase in ("calls", "answer") if turn.calls else ("answer",):
            calls = turn.calls if phase == "calls" else ()
            ids = [f"call_{index:02d}{call_number + i:02d}" for i in range(len(calls))]
            model_call += 1
            chat = tracer.start_span(
                f"chat {MODEL}",
                context=context,
                kind=SpanKind.CLIENT,
                start_time=tick(5),
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": MODEL,
                    "gen_ai.request.temperature": 0.0,
                    "gen_ai.response.model": RESPONSE_MODEL,
                    "gen_ai.response.id": f"chatcmpl-{index:02d}{model_call:02d}",
                    "gen_ai.response.finish_reasons": ["tool_calls" if calls else "stop"],
                    "gen_ai.usage.input_tokens": run.tokens[0] + 40 * model_call,
                    "gen_ai.usage.output_tokens": run.tokens[1],
                    "gen_ai.input.messages": json.dumps(messages),
                    "gen_ai.output.messages": _output_message(turn, calls, ids),
                },
            )
            chat.end(end_time=tick(700))
            for call, call_id in zip(calls, ids):
                call_number += 1
                tool = tracer.start_span(
                    f"execute_tool {call.tool}",
                    context=context,
                    kind=SpanKind.INTERNAL,
                    start_time=tick(3),
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": call.tool,
                        "gen_ai.tool.type": "function",
                        "gen_ai.tool.call.id": call_id,
                        "gen_ai.tool.call.arguments": json.dumps(call.args),
                        "gen_ai.tool.call.result": json.dumps(call.result),
                    },
                )
                tool.set_status(Status(StatusCode.OK))
                tool.end(end_time=tick(120))
            messages.append({"role": "assistant", "parts": [{"type": "text", "content": "..."}]})
    root.end(end_time=tick(10))


def make_dump(out: Path) -> int:
    """Record every run with the SDK and write the OTLP JSON Lines dump; returns the span count."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "support-agent", "service.version": "1.4.0",
                                  "service.instance.id": "example-host-1"}),
        id_generator=SeededIds(20261130),
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("example.support_agent", "1.4.0")
    for index, run in enumerate(RUNS):
        _record_run(tracer, run, index)
    provider.shutdown()
    spans = list(exporter.get_finished_spans())
    lines = [_to_json_line(spans[i:i + SPANS_PER_LINE]) for i in range(0, len(spans), SPANS_PER_LINE)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(spans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    count = make_dump(args.out)
    right = sum(1 for r in RUNS if r.right)
    print(f"wrote {count} spans of {len(RUNS)} runs ({right} right) to {args.out}")


if __name__ == "__main__":
    main()
