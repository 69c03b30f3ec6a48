"""Vercel AI SDK scenarios: ``ai`` 7 with its OpenTelemetry integration (``@ai-sdk/otel``),
``@ai-sdk/openai``'s ``createOpenAI({baseURL})`` against the fake OpenAI server.

In ``ai`` 7 the spans come from a registered telemetry integration (``registerTelemetry``):
``OpenTelemetry`` writes the GenAI semantic conventions (``gen_ai.*``; spans
``invoke_agent``/``chat``/``execute_tool``), ``LegacyOpenTelemetry`` the ``ai.*`` attributes
of ``ai`` <= 6 (``ai.generateText`` > ``ai.generateText.doGenerate`` and ``ai.toolCall``).
That choice is the switch between the attribute sets. Per call, ``telemetry: {recordInputs,
recordOutputs}`` turns content off.

Node runs here only on regeneration; CI reads the committed spans. See _node.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))
import _capture  # noqa: E402
import _node  # noqa: E402

FOLDER = _node.NODE_ROOT / "ai"
AI_VERSION = "7.0.173"
OTEL_VERSION = "1.0.173"  # @ai-sdk/otel

#: Node scenarios have no Python environment: the npm lockfile pins them (see _node.py)
ENVIRONMENTS: dict = {}

#: scenario -> the node script's settings
_SETTINGS: dict = {
    "vercel-ai-7-otel": {"integration": "otel", "call": "generate", "api": "chat",
                         "recordInputs": True, "recordOutputs": True},
    "vercel-ai-7-otel-usage": {"integration": "otel", "call": "generate", "api": "chat",
                               "recordInputs": True, "recordOutputs": True,
                               "otelOptions": {"usage": True}},
    "vercel-ai-7-otel-stream": {"integration": "otel", "call": "stream", "api": "chat",
                                "recordInputs": True, "recordOutputs": True},
    "vercel-ai-7-otel-no_content": {"integration": "otel", "call": "generate", "api": "chat",
                                    "recordInputs": False, "recordOutputs": False},
    "vercel-ai-7-otel-responses": {"integration": "otel", "call": "generate",
                                   "api": "responses", "recordInputs": True,
                                   "recordOutputs": True},
    "vercel-ai-7-legacy": {"integration": "legacy", "call": "generate", "api": "chat",
                           "recordInputs": True, "recordOutputs": True},
    "vercel-ai-7-legacy-stream": {"integration": "legacy", "call": "stream", "api": "chat",
                                  "recordInputs": True, "recordOutputs": True},
    "vercel-ai-7-legacy-no_content": {"integration": "legacy", "call": "generate",
                                      "api": "chat", "recordInputs": False,
                                      "recordOutputs": False},
}

#: scenario -> (environment, app, instrumentors, settings): the shape regen_corpus.py lists
SCENARIOS: dict = {name: ("node:ai", "vercel_ai", ["@ai-sdk/otel"], settings)
                   for name, settings in _SETTINGS.items()}

_ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
             "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
             "reasoning_tokens": "read"}


def _expect(mode: str, **changes) -> dict:
    support = dict(_ALL_READ, **changes.pop("support", {}))
    fixes = changes.pop("fixes", {})
    entry = {"args": True, "cached": True, "reasoning": True, "framework": "Vercel AI SDK",
             "framework_version": AI_VERSION, "mode": mode, "support": support, "fixes": fixes}
    entry.update(changes)
    return entry


_NO_REASONING = dict(
    reasoning=False, support={"reasoning_tokens": "not_recorded"},
    fixes={"reasoning_tokens": "new OpenTelemetry({ usage: true })"})
_NO_CONTENT = dict(
    args=False, tool_names=True,
    support={"arguments": "not_recorded"},
    fixes={"arguments": "telemetry: { recordInputs: true, recordOutputs: true } (the defaults)"})
_ROOT_REPEATS = ("the root span (invoke_agent / ai.generateText) repeats the run's token totals "
                 "and every tool call of the run; it is no model call")
_PARALLEL_TIES = ("without content, parallel tool calls are known only from their tool spans, "
                  "which start in the same millisecond: their order is not recorded")

#: What each scenario records (the keys: scripts/corpus_frameworks/README.md and the comment
#: above EXPECT in regen_corpus.py); ``order_unrecorded``: the order of parallel calls is
#: not recorded (the tests compare those steps as a multiset).
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
}


def run_scenario(scenario: str, out: Path, kit) -> None:
    raise SystemExit(f"{scenario} is a Node scenario: regenerate() runs it")


def regenerate(scenario: str, kit) -> Path:
    """Run the node script against the fake OpenAI server and the capture server; write the
    scenario's corpus folder."""
    out = kit.CORPUS / scenario
    out.mkdir(parents=True, exist_ok=True)
    fake = kit._load_fake_server()
    settings = _SETTINGS[scenario]
    with fake.FakeOpenAI() as server, _capture.capture_server() as (otlp, bodies):
        config = dict(settings, baseURL=server.base_url, otlp=otlp, taskId=kit.TASK_ID,
                      tools=[list(spec) for spec in fake.tool_specs()])
        _node.run_node(FOLDER, "run.mjs", config)
    spans = _capture.write_trace_files(out, bodies)
    _node.write_versions(out, FOLDER)
    _node.write_expected(out, kit, scenario, "node:ai", _node.lock_requirements(FOLDER),
                         settings, fake)
    print(f"{scenario}: {spans} spans -> {out}")
    return out
