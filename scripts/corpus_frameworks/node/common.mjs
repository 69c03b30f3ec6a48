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
