"""Real OTLP bodies for the reader tests, produced by the real opentelemetry-sdk.

Spans and log records come from a ``TracerProvider`` / ``LoggerProvider`` with in-memory
exporters; protobuf bodies from the OTLP exporters' own encoders
(``opentelemetry-exporter-otlp-proto-common``), JSON bodies from the SDK's OTLP JSON
encoder (``opentelemetry-exporter-otlp-json-common``, what the json-file and json-http
exporters write).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs as encode_logs_json
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans as encode_spans_json
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs as encode_logs_pb
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_spans_pb
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

TOOL_ARGS = {"city": "Paris", "unit": "celsius", "days": 3}


@dataclass(frozen=True)
class SdkTelemetry:
    """What the SDK produced: readable spans and log records, and their OTLP encodings."""

    spans: tuple
    logs: tuple

    def traces_pb(self, spans=None) -> bytes:
        return encode_spans_pb(list(self.spans if spans is None else spans)).SerializeToString()

    def traces_json(self, spans=None) -> str:
        return json.dumps(encode_spans_json(list(self.spans if spans is None else spans)).to_dict())

    def logs_pb(self, logs=None) -> bytes:
        return encode_logs_pb(list(self.logs if logs is None else logs)).SerializeToString()

    def logs_json(self, logs=None) -> str:
        return json.dumps(encode_logs_json(list(self.logs if logs is None else logs)).to_dict())

    def trace_ids(self) -> set:
        return {format(s.context.trace_id, "032x") for s in self.spans}


def produce_agent_telemetry(n_traces: int = 3) -> SdkTelemetry:
    """Run a small instrumented "agent" ``n_traces`` times through the real SDK."""
    span_exporter = InMemorySpanExporter()
    resource = Resource.create({"service.name": "weather-agent", "service.version": "1.2.3"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    tracer = tracer_provider.get_tracer("ek-otel-tests", "0.1")

    log_exporter = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    logger = logger_provider.get_logger("ek-otel-tests.events", "0.1")

    for i in range(n_traces):
        with tracer.start_as_current_span(
            "invoke_agent weather",
            kind=SpanKind.INTERNAL,
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
                        "ek.task.id": f"task-{i}"},
        ) as root:
            with tracer.start_as_current_span(
                "chat gpt-4o",
                kind=SpanKind.CLIENT,
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.usage.input_tokens": 120 + i,
                    "gen_ai.usage.output_tokens": 17,
                    "gen_ai.request.temperature": 0.25,
                    "gen_ai.response.finish_reasons": ["tool_calls"],
                    "ek.test.flags": [True, False],
                    "ek.test.ints": [1, 2, 3],
                    "ek.test.floats": [0.5, 1.5],
                    "gen_ai.output.messages": json.dumps([{
                        "role": "assistant",
                        "parts": [{"type": "tool_call", "id": f"call_{i}", "name": "get_weather",
                                   "arguments": TOOL_ARGS}],
                    }]),
                },
            ) as chat:
                chat.add_event("gen_ai.content.completion", {"gen_ai.completion": "calling tool"})
                logger.emit(
                    event_name="gen_ai.choice",
                    body={"index": 0, "finish_reason": "tool_calls",
                          "message": {"tool_calls": [{"id": f"call_{i}",
                                                      "function": {"name": "get_weather"}}]}},
                    attributes={"gen_ai.system": "openai"},
                )
            with tracer.start_as_current_span(
                "execute_tool get_weather",
                links=[Link(root.get_span_context(), {"ek.link": "root"})],
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                            "gen_ai.tool.call.id": f"call_{i}",
                            "gen_ai.tool.call.arguments": json.dumps(TOOL_ARGS)},
            ) as tool:
                tool.set_status(Status(StatusCode.ERROR, "timeout"))
        # A log record outside any span (no trace id), with the event name as an attribute.
        logger.emit(body=b"\x00raw", attributes={"event.name": "ek.test.orphan"})
    tracer_provider.shutdown()
    logger_provider.shutdown()
    return SdkTelemetry(tuple(span_exporter.get_finished_spans()), tuple(log_exporter.get_finished_logs()))


@pytest.fixture(scope="session")
def telemetry() -> SdkTelemetry:
    """Three runs of the small agent (3 spans and 2 log records each)."""
    return produce_agent_telemetry(3)


def hex_trace_id(sdk_span) -> str:
    return format(sdk_span.context.trace_id, "032x")


def hex_span_id(sdk_span) -> str:
    return format(sdk_span.context.span_id, "016x")


@pytest.fixture(scope="session")
def sdk_ids():
    """Helpers turning SDK span contexts into the hex ids the records carry."""
    return hex_trace_id, hex_span_id

