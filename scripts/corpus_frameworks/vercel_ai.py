"""Vercel AI SDK scenarios: ``ai`` 7 with its OpenTelemetry integration (``@ai-sdk/otel``),
and ``ai`` 6 with its built-in telemetry; ``@ai-sdk/openai``'s ``createOpenAI({baseURL})``
against the fake OpenAI server.

In ``ai`` 7 the spans come from a registered telemetry integration (``registerTelemetry``):
``OpenTelemetry`` writes the GenAI semantic conventions (``gen_ai.*``; spans
``invoke_agent``/``chat``/``execute_tool``), ``LegacyOpenTelemetry`` the ``ai.*`` attributes
of ``ai`` <= 6 (``ai.generateText`` > ``ai.generateText.doGenerate`` and ``ai.toolCall``).
That choice is the switch between the attribute sets. Per call, ``telemetry: {recordInputs,
recordOutputs}`` turns content off. ``ai`` 6 (``experimental_telemetry: {isEnabled: true}``
per call) writes the ``ai.*`` attributes only.

Node runs here only on regeneration; CI reads the committed spans. See _node.py. (``ai`` 7
declares node >= 22; it runs unchanged on the node 20 of this machine, as versions.txt says.)
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))
import _node  # noqa: E402
import _support  # noqa: E402

AI_VERSION = "7.0.173"  # node/ai: with @ai-sdk/otel 1.0.173
AI6_VERSION = "6.0.325"  # node/ai6: its built-in telemetry

#: Node scenarios have no Python environment: the npm lockfile pins them (see _node.py)
ENVIRONMENTS: dict = {}

def _run(integration: str = "otel", call: str = "generate", content: bool = True,
         api: str = "chat", **extra) -> dict:
    """The node script's settings (see node/ai/run.mjs); ``integration`` "ai6" runs ``ai`` 6
    (node/ai6), whose telemetry is built in."""
    settings = {"call": call, "api": api, "recordInputs": content, "recordOutputs": content,
                **extra}
    if integration == "ai6":
        return dict(settings, folder="ai6")
    return dict(settings, integration=integration)


#: scenario -> the node script's settings
_SETTINGS: dict = {
    "vercel-ai-7-otel": _run(),
    "vercel-ai-7-otel-usage": _run(otelOptions={"usage": True}),
    "vercel-ai-7-otel-stream": _run(call="stream"),
    "vercel-ai-7-otel-no_content": _run(content=False),
    "vercel-ai-7-otel-responses": _run(api="responses"),
    "vercel-ai-7-legacy": _run("legacy"),
    "vercel-ai-7-legacy-stream": _run("legacy", call="stream"),
    "vercel-ai-7-legacy-no_content": _run("legacy", content=False),
    # ai 6, what most deployments still run: experimental_telemetry, ai.* attributes only
    "vercel-ai-6": _run("ai6"),
    "vercel-ai-6-stream": _run("ai6", call="stream"),
    "vercel-ai-6-no_content": _run("ai6", content=False),
}

#: scenario -> (environment, app, instrumentors, settings): the shape regen_corpus.py lists
SCENARIOS: dict = {
    name: (f"node:{settings.get('folder', 'ai')}", "vercel_ai",
           ["ai (experimental_telemetry)" if settings.get("folder") else "@ai-sdk/otel"],
           settings)
    for name, settings in _SETTINGS.items()}

_NO_REASONING = dict(
    reasoning=False, support={"reasoning_tokens": "not_recorded"},
    fixes={"reasoning_tokens": "new OpenTelemetry({ usage: true })"})
_NO_CONTENT = dict(
    args=False, tool_names=True,
    support={"arguments": "not_recorded"},
    fixes={"arguments": "telemetry: { recordInputs: true, recordOutputs: true } (the defaults)"})
_ROOT_REPEATS = ("the root span (invoke_agent / ai.generateText) repeats the run's token totals "
                 "and every tool call of the run; it is no model call")
_ROOT_TOTALS = ("the root span (ai.generateText / ai.streamText) repeats the run's token totals; "
                "it is no model call")
_PARALLEL_TIES = ("without content, parallel tool calls are known only from their tool spans, "
                  "which start in the same millisecond: their order is not recorded")

#: What each scenario records (the keys: scripts/corpus_frameworks/README.md and the comment
#: above EXPECT in regen_corpus.py); ``order_unrecorded``: the order of parallel calls is
#: not recorded (the tests compare those steps as a multiset).
def _expect(mode: str, version: str = AI_VERSION, **changes) -> dict:
    return _support.expect("Vercel AI SDK", version, mode, **changes)


EXPECT: dict = {
    # gen_ai.* only: no reasoning tokens unless the integration's `usage` option adds
    # ai.usage.outputTokenDetails.reasoningTokens
    "vercel-ai-7-otel": _expect("registerTelemetry(new OpenTelemetry()), generateText",
                                notes=[_ROOT_REPEATS], **_NO_REASONING),
    "vercel-ai-7-otel-usage": _expect(
        "registerTelemetry(new OpenTelemetry({ usage: true })), generateText",
        notes=[_ROOT_REPEATS]),
    "vercel-ai-7-otel-stream": _expect("registerTelemetry(new OpenTelemetry()), streamText",
                                       notes=[_ROOT_REPEATS], **_NO_REASONING),
    "vercel-ai-7-otel-no_content": _expect(
        "registerTelemetry(new OpenTelemetry()), recordInputs/recordOutputs false",
        order_unrecorded=True, notes=[_ROOT_REPEATS, _PARALLEL_TIES],
        **{**_NO_CONTENT, "reasoning": False,
           "support": {**_NO_CONTENT["support"], **_NO_REASONING["support"]},
           "fixes": {**_NO_CONTENT["fixes"], **_NO_REASONING["fixes"]}}),
    "vercel-ai-7-otel-responses": _expect(
        "registerTelemetry(new OpenTelemetry()), generateText, openai.responses(...)",
        notes=[_ROOT_REPEATS], **_NO_REASONING),
    # ai.* (the attributes of ai <= 6): ai.usage.cachedInputTokens / reasoningTokens
    "vercel-ai-7-legacy": _expect("registerTelemetry(new LegacyOpenTelemetry()), generateText",
                                  notes=[_ROOT_REPEATS]),
    "vercel-ai-7-legacy-stream": _expect(
        "registerTelemetry(new LegacyOpenTelemetry()), streamText", notes=[_ROOT_REPEATS]),
    "vercel-ai-7-legacy-no_content": _expect(
        "registerTelemetry(new LegacyOpenTelemetry()), recordInputs/recordOutputs false",
        order_unrecorded=True, notes=[_ROOT_REPEATS, _PARALLEL_TIES], **_NO_CONTENT),
    "vercel-ai-6": _expect("experimental_telemetry: { isEnabled: true }, generateText",
                           AI6_VERSION, notes=[_ROOT_TOTALS]),
    "vercel-ai-6-stream": _expect("experimental_telemetry: { isEnabled: true }, streamText",
                                  AI6_VERSION, notes=[_ROOT_TOTALS]),
    "vercel-ai-6-no_content": _expect(
        "experimental_telemetry: { isEnabled: true, recordInputs: false, "
        "recordOutputs: false }", AI6_VERSION, order_unrecorded=True,
        notes=[_ROOT_TOTALS, _PARALLEL_TIES],
        **dict(_NO_CONTENT, fixes={"arguments": "experimental_telemetry: { recordInputs: "
                                                "true, recordOutputs: true } (the defaults)"})),
}


def run_scenario(scenario: str, out: Path, kit) -> None:
    raise SystemExit(f"{scenario} is a Node scenario: regenerate() runs it")


def regenerate(scenario: str, kit) -> Path:
    """Run the scenario's node script (its ``ai`` major's folder); write its corpus folder."""
    settings = _SETTINGS[scenario]
    return _node.regenerate(kit, scenario, _node.NODE_ROOT / settings.get("folder", "ai"),
                            settings)
