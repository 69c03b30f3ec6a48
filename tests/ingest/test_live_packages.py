"""Live: the real client instrumentors run IN the test suite against the fake OpenAI server.

The three client instrumentors of design.md share one environment (pinned in the ``test``
extra), so here they run for real: the real ``openai`` client, one instrumentor at a time,
spans and log records captured with the SDK's in-memory exporters, encoded with the SDK's
OTLP protobuf encoders, read back with the project's reader, and built into episodes that
must hold exactly the calls and tokens the server returned. (The agent instrumentors, the
older versions, Logfire and Langfuse need other environments: see test_real_packages.py.)
"""

from __future__ import annotations

import pytest

openai = pytest.importorskip("openai")

from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import (  # noqa: E402
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from ek_otel.ingest.assemble import group_traces  # noqa: E402
from ek_otel.ingest.bad_input import BadInputReport  # noqa: E402
from ek_otel.ingest.otlp import decode  # noqa: E402
from ek_otel.ingest.episodes import build_episodes  # noqa: E402
from ek_otel.ingest.records import Origin  # noqa: E402
from ek_otel.testing.fake_openai import FakeOpenAI, expected_summary, run_chat_loop  # noqa: E402

EXPECTED = expected_summary()
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def _instrumentor(name: str):
    if name == "openai-v2":
        module = pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    elif name == "openinference":
        module = pytest.importorskip("openinference.instrumentation.openai")
    else:
        module = pytest.importorskip("opentelemetry.instrumentation.openai")
    return module.OpenAIInstrumentor()


def run_live(name: str, *, streams: tuple = (False,)) -> tuple:
    """Run the scripted chat under one instrumentor (one trace per entry of ``streams``,
    with one instrumentation: Traceloop double-wraps streams when instrumented twice in a
    process); return (episodes, report, raw spans)."""
    resource = Resource.create({"service.name": "live-agent", "service.version": "0.9"})
    span_exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    log_exporter = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    instrumentor = _instrumentor(name)
    kwargs = {"tracer_provider": tracer_provider}
    if name == "openai-v2":
        kwargs["logger_provider"] = logger_provider
    instrumentor.instrument(**kwargs)
    try:
        tracer = tracer_provider.get_tracer("live.app")
        with FakeOpenAI() as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="sk-fake", max_retries=0)
            for stream in streams:
                task = "live-1-stream" if stream else "live-1"
                with tracer.start_as_current_span("live task", attributes={"ek.task.id": task}):
                    run_chat_loop(client, stream=stream)
    finally:
        instrumentor.uninstrument()
    spans = span_exporter.get_finished_spans()
    logs = log_exporter.get_finished_logs()
    report = BadInputReport()
    records = list(decode(encode_spans(spans).SerializeToString(), origin=Origin("live-traces"),
                          report=report, strict=False))
    if logs:
        records += list(decode(encode_logs(logs).SerializeToString(), origin=Origin("live-logs"),
                               report=report, strict=False))
    return list(build_episodes(group_traces(records))), report, spans


def assert_calls_and_tokens(episode, *, cached: bool, reasoning: bool) -> None:
    assert episode.task_id.startswith("live-1")
    assert [{"tool": s.tool, "args": dict(s.args), "call_id": s.call_id}
            for s in episode.trajectory] == EXPECTED["calls"]
    assert episode.provenance.args_captured is True
    usage = EXPECTED["usage"]
    assert (episode.cost.input_tokens, episode.cost.output_tokens) == (
        usage["input_tokens"], usage["output_tokens"])
    assert episode.cost.cached_input_tokens == (usage["cached_input_tokens"] if cached else 0)
    assert episode.cost.reasoning_tokens == (usage["reasoning_tokens"] if reasoning else 0)
    assert episode.run.model == EXPECTED["response_model"]
    assert episode.output == EXPECTED["final_text"]
    assert episode.provenance.service_name == "live-agent"


@pytest.mark.parametrize("mode", ["span_only", "span_and_event", "event_only"])
def test_openai_v2_with_content_capture(monkeypatch, mode):
    monkeypatch.setenv(CAPTURE, mode)
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    (episode,), report, _ = run_live("openai-v2")
    assert report.ok, report.summary()
    assert_calls_and_tokens(episode, cached=False, reasoning=False)  # 2.4b0 drops them


def test_openai_v2_without_content_capture_invents_nothing(monkeypatch):
    monkeypatch.delenv(CAPTURE, raising=False)
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    (episode,), report, spans = run_live("openai-v2")
    assert report.ok
    assert not any("gen_ai.output.messages" in (s.attributes or {}) for s in spans)
    assert episode.calls == ()
    assert episode.provenance.args_captured is False
    assert episode.meta["uncaptured_tool_calls"] == 2
    assert episode.cost.input_tokens == EXPECTED["usage"]["input_tokens"]


def test_openinference_openai():
    (episode,), report, _ = run_live("openinference")
    assert report.ok
    assert_calls_and_tokens(episode, cached=True, reasoning=True)


def test_traceloop_openai_plain_and_streamed():
    episodes, report, _ = run_live("traceloop", streams=(False, True))
    assert report.ok
    by_task = {e.task_id: e for e in episodes}
    assert sorted(by_task) == ["live-1", "live-1-stream"]
    assert_calls_and_tokens(by_task["live-1"], cached=True, reasoning=True)
    # Traceloop 0.62 loses reasoning tokens when streaming (semconv.md)
    assert_calls_and_tokens(by_task["live-1-stream"], cached=True, reasoning=False)


def test_openinference_stream_without_usage_is_advised_in_its_own_words():
    """A streamed call under openinference-instrumentation-openai that did not ask for usage
    (the real API then sends none): doctor names the provider and the request option that
    fixes it, never "add a model-client instrumentor" (the package is in use)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode
    from ek_otel.ingest.diagnose import diagnose
    from ek_otel.testing.fake_openai import CHAT_TOOLS, _collect_stream

    span_exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    instrumentor = _instrumentor("openinference")
    instrumentor.instrument(tracer_provider=tracer_provider)
    try:
        with FakeOpenAI(stream_usage="requested") as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="sk-fake", max_retries=0)
            with tracer_provider.get_tracer("live.app").start_as_current_span(
                    "live task", attributes={"ek.task.id": "live-stream"}):
                _collect_stream(client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "Paris?"}],
                    tools=CHAT_TOOLS, stream=True))
    finally:
        instrumentor.uninstrument()
    spans = span_exporter.get_finished_spans()
    records = list(decode(encode(spans).SerializeToString(), origin=Origin("live"),
                          report=BadInputReport(), strict=False))
    (episode,) = build_episodes(group_traces(records))
    (trace,) = diagnose([(episode, records, [])]).traces
    gap = trace.gap("input_tokens")
    assert gap is not None and gap.provider == "openai"
    assert gap.package == "openinference-instrumentation-openai"
    assert 'stream_options={"include_usage": True}' in gap.fix
    assert "add a model-client instrumentor" not in gap.fix
