// Send GenAI agent runs to an OTLP endpoint with the OpenTelemetry JS SDK's own exporters.
//
// Used to (re)generate the fixtures in tests/serve/fixtures/js-*.{pb,json}: real bodies of
// another SDK, replayed against `ek-otel serve` by tests/serve/test_js_exporters.py.
//
//   npm install   (in this directory; package.json pins the versions)
//   node send_genai.js PROTOCOL ENDPOINT [RUNS] [SEED]
//
// PROTOCOL: proto (OTLP/HTTP protobuf), json (OTLP/HTTP JSON), grpc (OTLP/gRPC).
// ENDPOINT: http://127.0.0.1:4318 (HTTP) or http://127.0.0.1:4317 (gRPC).
// Each run i is one trace: invoke_agent (ek.task.id=task-i) -> chat (usage 100+i / 10)
// -> execute_tool get_weather({"city": "city-i"}); plus one gen_ai log event per run
// (HTTP protocols) carrying the run's trace context. Ids are deterministic; SEED (a number)
// goes into every trace id, so runs sent with different seeds are different traces.
"use strict";

const api = require("@opentelemetry/api");
const { BasicTracerProvider, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { LoggerProvider, SimpleLogRecordProcessor } = require("@opentelemetry/sdk-logs");

const [protocol, endpoint, runsArg, seedArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const seed = Number(seedArg || 0);

function hex(n, width) {
  return n.toString(16).padStart(width, "0");
}

let next = 0;
const idGenerator = {
  generateTraceId: () => "4a53" + hex(seed, 4) + "0000000000000000" + hex(++next, 8),
  generateSpanId: () => "5b00" + hex(++next, 12),
};

function traceExporter() {
  const url = protocol === "grpc" ? endpoint : endpoint + "/v1/traces";
  if (protocol === "proto") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
    return new OTLPTraceExporter({ url });
  }
  if (protocol === "json") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url });
  }
  const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-grpc");
  return new OTLPTraceExporter({ url });
}

function logExporter() {
  const url = endpoint + "/v1/logs";
  if (protocol === "proto") {
    const { OTLPLogExporter } = require("@opentelemetry/exporter-logs-otlp-proto");
    return new OTLPLogExporter({ url });
  }
  if (protocol === "json") {
    const { OTLPLogExporter } = require("@opentelemetry/exporter-logs-otlp-http");
    return new OTLPLogExporter({ url });
  }
  return null;
}

async function main() {
  const resource = resourceFromAttributes({ "service.name": "js-agent" });
  const provider = new BasicTracerProvider({
    resource, idGenerator, spanProcessors: [new SimpleSpanProcessor(traceExporter())],
  });
  const tracer = provider.getTracer("js.genai.agent", "1.0.0");
  const logs = logExporter();
  const loggerProvider = logs
    ? new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] })
    : null;
  const logger = loggerProvider ? loggerProvider.getLogger("js.genai.agent") : null;
  const t0 = 1795910400000; // ms
  for (let i = 0; i < runs; i++) {
    const start = t0 + i * 60000;
    const root = tracer.startSpan("invoke_agent helper", {
      startTime: start,
      attributes: {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
        "ek.task.id": `task-${i}`,
      },
    });
    const ctx = api.trace.setSpan(api.context.active(), root);
    const chat = tracer.startSpan("chat gpt-4o-mini", {
      kind: api.SpanKind.CLIENT, startTime: start + 5,
      attributes: {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.response.id": `chatcmpl-${i}`, "gen_ai.request.temperature": 0.5,
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.usage.input_tokens": 100 + i, "gen_ai.usage.output_tokens": 10,
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{
          type: "tool_call", id: `call_${i}`, name: "get_weather",
          arguments: { city: `city-${i}` } }], finish_reason: "tool_call" }]),
      },
    }, ctx);
    if (logger) {
      logger.emit({
        context: api.trace.setSpan(ctx, chat), timestamp: start + 6,
        eventName: "gen_ai.client.inference.operation.details",
        severityNumber: 9, body: { note: `run ${i}` },
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini" },
      });
    }
    chat.end(start + 700);
    const tool = tracer.startSpan("execute_tool get_weather", {
      startTime: start + 710,
      attributes: {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.type": "function", "gen_ai.tool.call.id": `call_${i}`,
        "gen_ai.tool.call.arguments": JSON.stringify({ city: `city-${i}` }),
        "gen_ai.tool.call.result": JSON.stringify({ temp_c: 11 }),
      },
    }, ctx);
    tool.setStatus({ code: api.SpanStatusCode.OK });
    tool.end(start + 800);
    root.end(start + 900);
  }
  await provider.forceFlush();
  await provider.shutdown();
  if (loggerProvider) {
    await loggerProvider.forceFlush();
    await loggerProvider.shutdown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
