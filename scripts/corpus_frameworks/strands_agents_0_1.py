"""Strands Agents 0.1.9, its first attribute set, with its ``OpenAIModel`` against the fake
server: the spans the issue tracker saw from other projects' traces lose runs on.

Strands 0.1.x traces itself (tracer ``strands.telemetry.tracer``, from the global tracer
provider) with no ``gen_ai.operation.name`` on any span: the agent span is named after the
agent (``WeatherAgent``), each model call ``Model invoke`` (``gen_ai.system``,
``gen_ai.request.model``, usage as ``gen_ai.usage.prompt_tokens`` /
``completion_tokens``, the answer in ``gen_ai.completion``), each event-loop cycle
``Cycle <id>``, each tool ``Tool: <name>`` (``tool.name``, ``tool.id``,
``tool.parameters``). The agent span repeats the run's token totals.
"""

from __future__ import annotations

from pathlib import Path

VERSION = "0.1.9"
ENVIRONMENTS: dict = {
    "strands-0.1": ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
                    "opentelemetry-exporter-otlp-json-file==0.66b1",
                    "httpx==0.28.1", "openai==1.109.1", f"strands-agents[openai]=={VERSION}"],
}

FRAMEWORK = "Strands Agents"
# 0.1.x traces only when an OTLP endpoint (or console export) is configured; with an SDK
# tracer provider already global, it uses that one and adds no exporter of its own
SCENARIOS: dict = {f"strands-{VERSION}": ("strands-0.1", "strands", [],
                                          {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})}

EXPECT: dict = {
    f"strands-{VERSION}": {
        # as 1.62.0: prompt/completion tokens only (no cached or reasoning count), no
        # response id or model: the model is the request's
        "args": True, "cached": False, "reasoning": False, "model": "gpt-4o-mini",
        "framework": FRAMEWORK, "framework_version": VERSION, "mode": "default",
        # 0.1.9 names every agent "Strands Agent" in its spans, whatever Agent(name=...)
        "agent": "Strands Agent",
        "support": {"tool_names": "read", "arguments": "read", "call_ids": "read",
                    "input_tokens": "read", "output_tokens": "read",
                    "cached_tokens": "not_recorded", "reasoning_tokens": "not_recorded"},
        "fixes": {},
        "notes": ["no gen_ai.operation.name on any span: model calls are the `Model invoke` "
                  "spans that carry one call's usage", "the agent span repeats the run's "
                  "token totals as gen_ai.usage.prompt_tokens / completion_tokens"],
    },
}


def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: the same agent and run as the 1.x scenarios (this folder is on
    ``sys.path``)."""
    import strands_agents

    strands_agents.run_scenario(scenario, out, kit)
