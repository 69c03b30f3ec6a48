"""MLflow tracing exported over OTLP: ``mlflow.openai.autolog()`` around the corpus's
Chat Completions tool loop, the tools and the task traced with ``@mlflow.trace`` /
``mlflow.start_span`` as an MLflow user writes them.

MLflow sends its spans to an OpenTelemetry collector instead of a tracking server when
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set (``mlflow/tracing/utils/otlp.py``; protocols
``grpc`` and ``http/protobuf`` only, so no JSON). It writes its own ``mlflow.*`` attributes,
every value JSON-encoded (inputs, outputs, usage: JSON strings, strings inside them quoted
once more); with ``MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true`` its processor translates each span
to the OTel GenAI conventions before export (``mlflow/tracing/export/genai_semconv``).

The capture: traces.pb is what MLflow's own OTLP/HTTP exporter put on the wire (a loopback
capture server, see _capture.py); traces.jsonl is the same spans through the SDK's OTLP JSON
file exporter, teed off MLflow's exporter (MLflow itself cannot send JSON).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))
import _support  # noqa: E402

MLFLOW_VERSION = "3.17.2"  # mlflow-tracing, the tracing-only MLflow distribution

_SDK = ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
        "opentelemetry-exporter-otlp-proto-http==1.45.2"]
ENVIRONMENTS: dict = {
    # mlflow-tracing 3.17.2 imports PyYAML and sqlparse without requiring them: without them
    # autolog logs "Failed to start span Completions: No module named 'yaml'" and traces
    # nothing (it looks for ./mlruns through the file store, which imports both)
    "mlflow-tracing": _SDK + [f"mlflow-tracing=={MLFLOW_VERSION}", "openai==3.57.0",
                              "httpx==0.28.1", "pyyaml==6.0.4", "sqlparse==0.6.1"],
}
#: the JSON file exporter pins otlp-common 0.66b1, mlflow-tracing brings 0.66b2 (it works
#: with it): installed afterwards without dependencies, as regen_corpus.py does for Logfire
NO_DEPS: dict = {"mlflow-tracing": ["opentelemetry-exporter-otlp-json-file==0.66b1",
                                    "opentelemetry-exporter-otlp-json-common==0.66b1",
                                    "opentelemetry-proto-json==0.66b1"]}

_SEMCONV = {"MLFLOW_ENABLE_OTEL_GENAI_SEMCONV": "true"}
SCENARIOS: dict = {
    f"mlflow-{MLFLOW_VERSION}-openai": ("mlflow-tracing", "chat", ["mlflow_openai"], {}),
    f"mlflow-{MLFLOW_VERSION}-openai-stream": (
        "mlflow-tracing", "chat_stream", ["mlflow_openai"], {}),
    f"mlflow-{MLFLOW_VERSION}-openai-genai_semconv": (
        "mlflow-tracing", "chat", ["mlflow_openai"], _SEMCONV),
    f"mlflow-{MLFLOW_VERSION}-openai-responses": (
        "mlflow-tracing", "responses", ["mlflow_openai"], {}),
    f"mlflow-{MLFLOW_VERSION}-openai-genai_semconv-stream": (
        "mlflow-tracing", "chat_stream", ["mlflow_openai"], _SEMCONV),
}

_JSON = ("every mlflow.* value is JSON-encoded: the span type '\"CHAT_MODEL\"', usage "
         "mlflow.chat.tokenUsage (input, output, cached; no reasoning), the whole OpenAI "
         "response in mlflow.spanOutputs (reasoning tokens in its usage), tool arguments in "
         "mlflow.spanInputs")
_NO_TOOL_IDS = ("@mlflow.trace tool spans carry no tool-call id: they are joined to the "
                "requested calls by name and order")
_STREAM = ("streamed: mlflow.spanOutputs is rebuilt from the chunks without the tool calls "
           "(finish_reason 'stop', empty text); the calls are only in the span's "
           "mlflow.chunk.item.N events (chat.completion.chunk deltas)")
_STREAM_SEMCONV = ("streamed, the translated gen_ai.output.messages say 'stop' with an empty text; "
                   "the mlflow.chunk.item.N events stay untranslated: the calls and the last "
                   "chunk's usage (cached and reasoning counts too) are read there")
_SEMCONV_DROPS = ("the GenAI translation keeps gen_ai.usage.input/output_tokens (as strings) "
                  "and drops the cached and reasoning counts")

def _expect(mode: str, **changes) -> dict:
    return _support.expect("MLflow", MLFLOW_VERSION, mode, **changes)


EXPECT: dict = {
    f"mlflow-{MLFLOW_VERSION}-openai": _expect(
        "mlflow.openai.autolog(), OTLP export", notes=[_JSON, _NO_TOOL_IDS]),
    f"mlflow-{MLFLOW_VERSION}-openai-stream": _expect(
        "mlflow.openai.autolog(), OTLP export, stream=True",
        notes=[_JSON, _NO_TOOL_IDS, _STREAM]),
    f"mlflow-{MLFLOW_VERSION}-openai-responses": _expect(
        "mlflow.openai.autolog(), OTLP export, client.responses.create",
        notes=[_JSON, _NO_TOOL_IDS]),
    # the translated output messages lose the calls as MLflow's own outputs do; the chunk
    # events stay, with the calls and the whole usage (cached and reasoning too)
    f"mlflow-{MLFLOW_VERSION}-openai-genai_semconv-stream": _expect(
        "mlflow.openai.autolog(), OTLP export, MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true, "
        "stream=True", notes=[_NO_TOOL_IDS, _STREAM_SEMCONV]),
    f"mlflow-{MLFLOW_VERSION}-openai-genai_semconv": _expect(
        "mlflow.openai.autolog(), OTLP export, MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true",
        cached=False, reasoning=False, notes=[_SEMCONV_DROPS, _NO_TOOL_IDS],
        support={"cached_tokens": "not_recorded", "reasoning_tokens": "not_recorded"},
        fixes={"cached_tokens": "MLFLOW_ENABLE_OTEL_GENAI_SEMCONV unset (mlflow.* attributes)",
               "reasoning_tokens": "MLFLOW_ENABLE_OTEL_GENAI_SEMCONV unset (mlflow.* "
                                   "attributes)"}),
}


class _Tee:
    """A span exporter that hands each batch to MLflow's OTLP exporter and to the SDK's
    OTLP JSON file exporter."""

    def __init__(self, real, json_path: Path):
        from opentelemetry.exporter.otlp.json.file import FileSpanExporter

        self._real = real
        self._json = FileSpanExporter(str(json_path))

    def export(self, spans):
        self._json.export(spans)
        return self._real.export(spans)

    def shutdown(self):
        self._json.shutdown()
        self._real.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._real.force_flush(timeout_millis)


def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: run the tool loop under MLflow's autolog, exporting to a loopback
    capture server; write traces.pb (the captured bodies) and traces.jsonl (the tee)."""
    import os

    import _capture

    _env, app, _instr, _extra = SCENARIOS[scenario]
    with _capture.capture_server() as (otlp, bodies):
        os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = otlp + "/v1/traces"
        os.environ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"
        os.environ["OTEL_SERVICE_NAME"] = "weather-agent"
        os.environ["OTEL_RESOURCE_ATTRIBUTES"] = "service.version=1.2.3"
        import mlflow
        import mlflow.tracing.provider as provider
        from openai import OpenAI

        real_exporter = provider.get_otlp_exporter
        provider.get_otlp_exporter = lambda: _Tee(real_exporter(), out / "traces.jsonl")
        mlflow.openai.autolog()

        fake = kit._load_fake_server()
        result_of = fake.tool_result

        @mlflow.trace(span_type="TOOL")
        def get_weather(city: str, unit: str = "celsius") -> str:
            return result_of("get_weather", {"city": city, "unit": unit})

        @mlflow.trace(span_type="TOOL")
        def get_time(timezone: str) -> str:
            return result_of("get_time", {"timezone": timezone})

        @mlflow.trace(span_type="TOOL")
        def convert_temperature(value: float, to: str) -> str:
            return result_of("convert_temperature", {"value": value, "to": to})

        tools = {f.__name__: f for f in (get_weather, get_time, convert_temperature)}
        fake.tool_result = lambda name, args: tools[name](**args)  # the loop runs them
        with fake.FakeOpenAI() as server:
            client = OpenAI(base_url=server.base_url, api_key="sk-fake", max_retries=0)
            with mlflow.start_span(name="WeatherAgent", span_type="AGENT") as span:
                span.set_attribute("ek.task.id", kit.TASK_ID)
                if app == "responses":
                    kit._run_responses(server.base_url)
                else:
                    fake.run_chat_loop(client, stream=(app == "chat_stream"))
        tracer_provider = provider.provider.get()  # MLflow's own (isolated) provider
        tracer_provider.force_flush()
        tracer_provider.shutdown()
    count = _capture.write_pb(out, bodies)
    spans = sum(len(s.get("spans", ())) for line in (out / "traces.jsonl").read_text().splitlines()
                for r in json.loads(line).get("resourceSpans", ()) for s in r.get("scopeSpans", ()))
    print(f"{scenario}: {spans} spans in {count} OTLP bodies -> {out}")
