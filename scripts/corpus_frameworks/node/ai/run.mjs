// The Vercel AI SDK (`ai` 7) with its OpenTelemetry integration (@ai-sdk/otel), in the
// corpus's tool loop against the fake OpenAI server (ek_otel/testing/fake_openai.py).
//
// Driven by scripts/corpus_frameworks/vercel_ai.py (run `npm ci` here first):
//
//   node run.mjs CONFIG_JSON
//
// CONFIG_JSON: {"baseURL": fake server /v1 URL, "otlp": capture server URL, "taskId": ...,
//   "integration": "otel" | "legacy", "call": "generate" | "stream",
//   "api": "chat" | "responses", "recordInputs": bool, "recordOutputs": bool,
//   "otelOptions": OpenTelemetry constructor options (e.g. {"usage": true}),
//   "tools": [[name, description, JSON schema], ...]}
//
// Every span goes to TWO real OTLP/HTTP exporters of the OpenTelemetry JS SDK at once, the
// protobuf one and the JSON one, so both corpus forms hold the very same spans.
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createOpenAI } from "@ai-sdk/openai";
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import * as ai from "ai";
import { config, runVercelAI } from "../common.mjs";

await runVercelAI({
  otel: { api, AsyncLocalStorageContextManager, ProtoExporter, JsonExporter,
          resourceFromAttributes, BasicTracerProvider, BatchSpanProcessor },
  ai,
  createOpenAI,
  // ai 7: a registered integration writes the spans; the per-call option is `telemetry`
  telemetry: {
    key: "telemetry",
    register: () => ai.registerTelemetry(config.integration === "legacy"
      ? new LegacyOpenTelemetry()
      : new OpenTelemetry(config.otelOptions ?? {})),
  },
});
