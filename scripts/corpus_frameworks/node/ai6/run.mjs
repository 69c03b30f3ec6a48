// The Vercel AI SDK 6 (`ai` 6) with its built-in OpenTelemetry telemetry
// (`experimental_telemetry`, the ai.* attributes), in the corpus's tool loop against the fake
// OpenAI server (ek_otel/testing/fake_openai.py).
//
// Driven by scripts/corpus_frameworks/vercel_ai.py (run `npm ci` here first):
//
//   node run.mjs CONFIG_JSON
//
// CONFIG_JSON: as ../ai/run.mjs ("integration" and "otelOptions" do not apply: ai 6 has one).
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createOpenAI } from "@ai-sdk/openai";
import * as ai from "ai";
import { runVercelAI } from "../common.mjs";

await runVercelAI({
  otel: { api, AsyncLocalStorageContextManager, ProtoExporter, JsonExporter,
          resourceFromAttributes, BasicTracerProvider, BatchSpanProcessor },
  ai,
  createOpenAI,
  telemetry: { key: "experimental_telemetry" },  // ai 6: built in, enabled per call
});
