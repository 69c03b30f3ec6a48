"""Mastra scenarios: a Mastra ``Agent`` with the corpus's three tools, the model
``@ai-sdk/openai``'s ``createOpenAI({baseURL}).chat(...)`` against the fake OpenAI server,
traced by Mastra's own exporter (``@mastra/observability`` + ``@mastra/otel-exporter``, the
"custom" OTLP/HTTP provider).

Mastra's traces are its own (the exporter converts Mastra's spans; they are no children of
an application span), so the task id travels as Mastra trace metadata
(``tracingOptions.metadata``), exported as ``mastra.metadata.task_id`` on the root span.

Node runs here only on regeneration; CI reads the committed spans. See _node.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))
import _node  # noqa: E402
import _support  # noqa: E402

FOLDER = _node.NODE_ROOT / "mastra"
MASTRA_VERSION = "1.71.0"  # @mastra/core; @mastra/otel-exporter 1.4.0

ENVIRONMENTS: dict = {}

_SETTINGS: dict = {
    "mastra-1.71.0-generate": {"call": "generate"},
    "mastra-1.71.0-stream": {"call": "stream"},
    "mastra-1.71.0-hidden": {"call": "generate", "hide": True},
    "mastra-1.71.0-stream-hidden": {"call": "stream", "hide": True},
}

#: scenario -> (environment, app, instrumentors, settings): the shape regen_corpus.py lists
SCENARIOS: dict = {name: ("node:mastra", "mastra", ["@mastra/otel-exporter"], settings)
                   for name, settings in _SETTINGS.items()}

_CHUNKS = ("the model's requested tool calls are only in model_chunk child spans of its chat "
           "span (mastra.model_chunk.output, toolInput a JSON string inside JSON when "
           "streamed); gen_ai.output.messages of a chat span that called tools is an empty text")
_TASK_ID = ("Mastra traces are not children of the application's span: a task id is Mastra "
            "trace metadata (tracingOptions.metadata.task_id -> mastra.metadata.task_id)")
_REPEATS = ("the model_generation span repeats every tool call of the run "
            "(mastra.model_generation.output) and each agent_step span its step's calls; "
            "neither is a model call")

_LEAK = ("hideInput/hideOutput do not hide the raw provider response that agent_step spans "
         "record for a non-streamed call (mastra.metadata.body): the requested calls, their "
         "arguments and the answer text are read from there")

def _expect(mode: str, **changes) -> dict:
    return _support.expect("Mastra", MASTRA_VERSION, mode, **changes)


EXPECT: dict = {
    "mastra-1.71.0-generate": _expect("OtelExporter, agent.generate()",
                                      notes=[_CHUNKS, _REPEATS, _TASK_ID]),
    "mastra-1.71.0-stream": _expect("OtelExporter, agent.stream()",
                                    notes=[_CHUNKS, _REPEATS, _TASK_ID]),
    # hideInput/hideOutput empty the inputs, outputs and chunks, but agent_step spans keep the
    # raw provider response (mastra.metadata.body) of a non-streamed call: calls, arguments
    # and text are still recorded there
    "mastra-1.71.0-hidden": _expect(
        "OtelExporter, agent.generate(), tracingOptions hideInput/hideOutput",
        notes=[_LEAK, _TASK_ID]),
    # streamed, nothing is left but the tool spans' names and ids
    "mastra-1.71.0-stream-hidden": _expect(
        "OtelExporter, agent.stream(), tracingOptions hideInput/hideOutput",
        args=False, tool_names=True, order_unrecorded=True, notes=[_TASK_ID],
        support={"arguments": "not_recorded"},
        fixes={"arguments": "tracingOptions hideInput/hideOutput false (the default)"}),
}


def run_scenario(scenario: str, out: Path, kit) -> None:
    raise SystemExit(f"{scenario} is a Node scenario: regenerate() runs it")


def regenerate(scenario: str, kit) -> Path:
    """Run the node script; write the scenario's corpus folder."""
    return _node.regenerate(kit, scenario, FOLDER, _SETTINGS[scenario])
