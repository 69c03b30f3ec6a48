// What the Node corpus scripts share (no package imports: each script's folder pins its own
// packages). The pretend tools and the prompt are those of ek_otel/testing/_fake_server.py
// and fake_openai.run_chat_loop.

export const SYSTEM = "You are a weather assistant.";
export const PROMPT = "Weather and time in Paris, in Fahrenheit?";

/** The script's settings: the JSON of its first argument. */
export const config = JSON.parse(process.argv[2]);

/** What the client's (pretend) tools return, as JSON text (tool_result in _fake_server.py). */
export function toolResult(name, args) {
  if (name === "get_weather") return JSON.stringify({ city: args.city ?? null, temperature_c: 18.5 });
  if (name === "get_time") return JSON.stringify({ timezone: args.timezone ?? null, time: "14:00" });
  return JSON.stringify({ value: 65.3, unit: "fahrenheit" });
}

/**
 * Run the corpus's tool loop with the Vercel AI SDK inside the application's "weather task"
 * span (ek.task.id), every span going to the OTLP/HTTP protobuf AND JSON exporters at once.
 * The packages come from the calling script's folder (each pins its own `ai` major):
 * `otel` = {api, AsyncLocalStorageContextManager, ProtoExporter, JsonExporter,
 * resourceFromAttributes, BasicTracerProvider, BatchSpanProcessor}, `ai` = the `ai` module,
 * `createOpenAI`; `telemetry` = {key: the request's telemetry option name, register: called
 * once the tracer provider is global}.
 */
export async function runVercelAI({ otel, ai, createOpenAI, telemetry }) {
  const { context, trace } = otel.api;
  context.setGlobalContextManager(new otel.AsyncLocalStorageContextManager().enable());
  const provider = new otel.BasicTracerProvider({
    resource: otel.resourceFromAttributes({ "service.name": "weather-agent", "service.version": "1.2.3" }),
    spanProcessors: [
      new otel.BatchSpanProcessor(new otel.ProtoExporter({ url: config.otlp + "/v1/traces" })),
      new otel.BatchSpanProcessor(new otel.JsonExporter({ url: config.otlp + "/v1/traces" })),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  telemetry.register?.();

  const tools = Object.fromEntries(config.tools.map(([name, description, schema]) => [
    name,
    ai.tool({ description, inputSchema: ai.jsonSchema(schema), execute: async (args) => toolResult(name, args) }),
  ]));
  const openai = createOpenAI({ baseURL: config.baseURL, apiKey: "sk-fake" });
  const request = {
    model: config.api === "responses" ? openai.responses("gpt-4o-mini") : openai.chat("gpt-4o-mini"),
    system: SYSTEM,
    prompt: PROMPT,
    tools,
    temperature: 0.2,
    seed: 7,
    maxRetries: 0,
    stopWhen: ai.stepCountIs(5),
    [telemetry.key]: {
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
        const result = ai.streamText(request);
        for await (const _ of result.fullStream) { /* drain */ }
        console.log("final text:", await result.text);
      } else {
        const result = await ai.generateText(request);
        console.log("final text:", result.text);
      }
    } finally {
      span.end();
    }
  });
  await provider.forceFlush();
  await provider.shutdown();
}
