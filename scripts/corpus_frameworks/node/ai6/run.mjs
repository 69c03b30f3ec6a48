// The Vercel AI SDK 6 (`ai` 6) with its built-in OpenTelemetry telemetry
// (`experimental_telemetry`, the ai.* attributes), in the corpus's tool loop against the fake
// OpenAI server (ek_otel/testing/fake_openai.py).
//
// Driven by scripts/corpus_frameworks/vercel_ai.py (run `npm ci` here first):
//
//   node run.mjs CONFIG_JSON
//
// CONFIG_JSON: as ../ai/run.mjs ("integration" and "otelOptions" do not apply: ai 6 has one).
//
// Every span goes to TWO real OTLP/HTTP exporters of the OpenTelemetry JS SDK at once, the
// protobuf one and the JSON one, so both corpus forms hold the very same spans.
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { config, PROMPT, SYSTEM, toolResult } from "../common.mjs";


context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": "weather-agent", "service.version": "1.2.3" }),
  spanProcessors: [
    new BatchSpanProcessor(new ProtoExporter({ url: config.otlp + "/v1/traces" })),
    new BatchSpanProcessor(new JsonExporter({ url: config.otlp + "/v1/traces" })),
  ],
});
trace.setGlobalTracerProvider(provider);

const tools = Object.fromEntries(config.tools.map(([name, description, schema]) => [
  name,
  tool({ description, inputSchema: jsonSchema(schema), execute: async (args) => toolResult(name, args) }),
]));

const openai = createOpenAI({ baseURL: config.baseURL, apiKey: "sk-fake" });
const model = config.api === "responses" ? openai.responses("gpt-4o-mini") : openai.chat("gpt-4o-mini");
const request = {
  model,
  system: SYSTEM,
  prompt: PROMPT,
  tools,
  temperature: 0.2,
  seed: 7,
  maxRetries: 0,
  stopWhen: stepCountIs(5),
  experimental_telemetry: {
    isEnabled: true,
    recordInputs: config.recordInputs,
    recordOutputs: config.recordOutputs,
    functionId: "WeatherAgent",
  },
};

const tracer = trace.getTracer("ek-otel.corpus.app");
await tracer.startActiveSpan("weather task", { attributes: { "ek.task.id": config.taskId } }, async (span) => {
  try {
    if (config.call === "stream") {
      const result = streamText(request);
      for await (const _ of result.fullStream) { /* drain */ }
      console.log("final text:", await result.text);
    } else {
      const result = await generateText(request);
      console.log("final text:", result.text);
    }
  } finally {
    span.end();
  }
});
await provider.forceFlush();
await provider.shutdown();
