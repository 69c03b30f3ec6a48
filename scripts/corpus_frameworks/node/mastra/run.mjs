// Mastra (an Agent with three tools, @ai-sdk/openai's createOpenAI({baseURL}).chat model) with
// its own OpenTelemetry exporter (@mastra/otel-exporter), against the fake OpenAI server
// (ek_otel/testing/fake_openai.py).
//
// Driven by scripts/corpus_frameworks/mastra.py (run `npm ci` here first):
//
//   node run.mjs CONFIG_JSON
//
// CONFIG_JSON: {"baseURL": fake server /v1 URL, "otlp": capture server URL, "taskId": ...,
//   "call": "generate" | "stream", "hide": bool (tracingOptions hideInput/hideOutput),
//   "tools": [[name, description, JSON schema], ...]}
//
// Mastra's spans go to TWO OtelExporters at once, OTLP/HTTP protobuf and OTLP/HTTP JSON (the
// "custom" provider), so both corpus forms hold the very same spans. Mastra traces are its
// own (not children of an application span): the task id travels as Mastra trace metadata
// (tracingOptions.metadata), exported as mastra.metadata.task_id on the root span.
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { createTool } from "@mastra/core/tools";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { config, PROMPT, SYSTEM, toolResult } from "../common.mjs";


// The tool's JSON schema (strings and numbers only) as the zod schema Mastra tools take
function zodOf(schema) {
  const required = new Set(schema.required ?? []);
  return z.object(Object.fromEntries(Object.entries(schema.properties).map(([key, spec]) => {
    const type = spec.type === "number" ? z.number() : z.string();
    return [key, required.has(key) ? type : type.optional()];
  })));
}

const tools = Object.fromEntries(config.tools.map(([name, description, schema]) => [
  name,
  createTool({
    id: name,
    description,
    inputSchema: zodOf(schema),
    execute: async (input) => toolResult(name, input),
  }),
]));

const openai = createOpenAI({ baseURL: config.baseURL, apiKey: "sk-fake" });
const agent = new Agent({
  id: "weather-agent",
  name: "WeatherAgent",
  instructions: SYSTEM,
  model: openai.chat("gpt-4o-mini"),
  tools,
});

const exporter = (protocol) => new OtelExporter({
  provider: { custom: { endpoint: config.otlp, protocol } },
  resourceAttributes: { "service.version": "1.2.3" },
  signals: { logs: false },
});
const mastra = new Mastra({
  agents: { weatherAgent: agent },
  logger: false,
  observability: new Observability({
    configs: {
      otel: {
        serviceName: "weather-agent",
        exporters: [exporter("http/protobuf"), exporter("http/json")],
      },
    },
  }),
});

const weather = mastra.getAgent("weatherAgent");
const options = {
  maxSteps: 5,
  modelSettings: { temperature: 0.2, seed: 7, maxRetries: 0 },
  tracingOptions: {
    metadata: { task_id: config.taskId },
    hideInput: Boolean(config.hide),
    hideOutput: Boolean(config.hide),
  },
};
const prompt = PROMPT;
if (config.call === "stream") {
  const result = await weather.stream(prompt, options);
  for await (const _ of result.fullStream) { /* drain */ }
  console.log("final text:", await result.text);
} else {
  const result = await weather.generate(prompt, options);
  console.log("final text:", result.text);
}
await mastra.shutdown?.();
