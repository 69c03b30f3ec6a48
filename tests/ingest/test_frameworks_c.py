"""Spans from the Vercel AI SDK, Mastra and MLflow become the episodes the fake server scripted.

The corpus folders (tests/ingest/corpus/vercel-ai-*, mastra-*, mlflow-*) were made by
``scripts/regen_corpus.py`` with the plug-ins in scripts/corpus_frameworks/ (vercel_ai.py,
mastra.py, mlflow_otlp.py): the real packages, pinned (npm lockfiles for the Node ones),
against ``ek_otel.testing.fake_openai``; the ``.pb`` files are the bodies the packages' OTLP
exporters really sent. ``expected.json`` holds the script's ground truth and, under
``records``, what each package records (``support``: read / not_recorded / not_read per
item). Each episode must equal the ground truth wherever the package recorded it, and hold
nothing invented where it did not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel.ingest import semconv as sc
from ek_otel.ingest.assemble import group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.episodes import build_episodes
from ek_otel.ingest.records import SpanRecord

CORPUS = Path(__file__).parent / "corpus"
FRAMEWORKS = ("Vercel AI SDK", "Mastra", "MLflow")
FORMS = {"pb": "traces.pb", "jsonl": "traces.jsonl"}
TOKEN_KINDS = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
               "cached_tokens": "cached_input_tokens", "reasoning_tokens": "reasoning_tokens"}


def expected(scenario: str) -> dict:
    return json.loads((CORPUS / scenario / "expected.json").read_text())


SCENARIOS = sorted(
    p.name for p in CORPUS.iterdir() if (p / "expected.json").exists()
    and expected(p.name)["records"].get("framework") in FRAMEWORKS)


def spans_of(scenario: str, form: str = "pb") -> list:
    report = BadInputReport()
    records = list(read_dump([str(CORPUS / scenario / FORMS[form])], report=report))
    assert report.ok, report.summary()
    return [r for r in records if isinstance(r, SpanRecord)]


def episode_of(spans: list, scenario: str):
    (episode,) = build_episodes(group_traces(spans), source=scenario)
    return episode


def test_every_framework_and_mode_is_in_the_corpus():
    assert {
        "vercel-ai-7-otel", "vercel-ai-7-otel-usage", "vercel-ai-7-otel-stream",
        "vercel-ai-7-otel-no_content", "vercel-ai-7-legacy", "vercel-ai-7-legacy-stream",
        "vercel-ai-7-legacy-no_content", "mastra-1.71.0-generate", "mastra-1.71.0-stream",
        "mastra-1.71.0-hidden", "mastra-1.71.0-stream-hidden", "vercel-ai-7-otel-responses",
        "vercel-ai-6", "vercel-ai-6-stream", "vercel-ai-6-no_content",
        "mlflow-3.17.2-openai", "mlflow-3.17.2-openai-stream",
        "mlflow-3.17.2-openai-genai_semconv", "mlflow-3.17.2-openai-responses",
        "mlflow-3.17.2-openai-genai_semconv-stream",
    } <= set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_records_say_what_the_package_records(scenario):
    """The support matrix entries are complete and agree with the flags the common corpus
    test reads (tests/ingest/test_real_packages.py)."""
    records = expected(scenario)["records"]
    support = records["support"]
    assert set(support) == {"tool_names", "arguments", "call_ids", *TOKEN_KINDS}
    assert set(support.values()) <= {"read", "not_recorded", "not_read"}
    assert records["args"] == (support["arguments"] == "read")
    assert records["cached"] == (support["cached_tokens"] == "read")
    assert records["reasoning"] == (support["reasoning_tokens"] == "read")
    assert set(records["fixes"]) <= {k for k, v in support.items() if v == "not_recorded"}
    assert records["framework"] in FRAMEWORKS and records["mode"]


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_episode_equals_the_ground_truth(scenario, form):
    exp = expected(scenario)
    records = exp["records"]
    support = records["support"]
    episode = episode_of(spans_of(scenario, form), scenario)
    assert episode.task_id == exp["task_id"]
    args_read = support["arguments"] == "read"
    got = [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory]
    want = [(c["tool"], c["args"] if args_read else {},
             c["call_id"] if support["call_ids"] == "read" else None) for c in exp["calls"]]
    if records.get("order_unrecorded"):  # parallel calls whose order nothing records
        got, want = sorted(got, key=repr), sorted(want, key=repr)
    assert got == want
    assert all(s.args_captured == args_read for s in episode.trajectory)
    assert episode.provenance.args_captured is args_read
    assert episode.output == (exp["final_text"] if args_read else None)
    for kind, field in TOKEN_KINDS.items():
        truth = exp["usage"][field]
        assert getattr(episode.cost, field) == (truth if support[kind] == "read" else 0), kind
    assert episode.run.model == exp["response_model"]
    assert episode.run.temperature == 0.2
    # the agent: gen_ai.agent.name, the AI SDK's functionId (its legacy root span), Mastra's
    # agent, the MLflow AGENT span
    assert episode.provenance.agent_name == "WeatherAgent"
    assert {s.agent for s in episode.trajectory} <= {"WeatherAgent"}
    assert episode.meta["model_calls"] == exp["turns"]
    assert episode.meta["model_calls_without_usage"] == 0
    assert episode.meta["bad_spans"] == 0
    assert (episode.provenance.service_name, episode.provenance.service_version) == (
        "weather-agent", "1.2.3")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_protobuf_and_json_give_the_same_episode(scenario):
    from_pb = episode_of(spans_of(scenario, "pb"), scenario)
    from_json = episode_of(spans_of(scenario, "jsonl"), scenario)
    assert (from_pb.trajectory, from_pb.cost, from_pb.run, from_pb.output) == (
        from_json.trajectory, from_json.cost, from_json.run, from_json.output)
    assert from_pb.provenance == from_json.provenance


def _naive_input_tokens(spans: list) -> int:
    return sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("vercel-ai-")])
def test_vercel_root_repeats_totals_and_every_call_and_they_count_once(scenario):
    """The root ``invoke_agent`` / ``ai.generateText`` span repeats the run's usage and (``ai``
    7, with content) every tool call; the model-call spans report the same again: a naive sum
    is 2x."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    assert _naive_input_tokens(spans) == 2 * exp["usage"]["input_tokens"]
    roots = [s for s in spans if s.name in ("invoke_agent gpt-4o-mini", "ai.generateText",
                                            "ai.streamText")]
    assert len(roots) == 1
    if exp["records"]["args"] and scenario.startswith("vercel-ai-7"):
        recorded = json.dumps(roots[0].attributes)
        assert all(c["call_id"] in recorded for c in exp["calls"])
    episode = episode_of(spans, scenario)
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]
    assert len(episode.trajectory) == len(exp["calls"])


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("vercel-ai-7-otel")])
def test_vercel_grouping_spans_are_no_calls(scenario):
    """``invoke_agent`` and the ``step N`` (agent_step) spans group the model and tool spans."""
    spans = spans_of(scenario)
    groups = [s for s in spans if s.name.startswith("step ")]
    assert len(groups) == expected(scenario)["turns"]
    assert all(sc.span_role(s) not in (sc.MODEL, sc.TOOL) for s in groups)
    assert episode_of(spans, scenario).meta["model_calls"] == expected(scenario)["turns"]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("mastra-")
                                      and not s.endswith("hidden")])
def test_mastra_requested_calls_come_from_the_chunk_spans(scenario):
    """Mastra's chat spans record no tool call (an empty text); the requested calls are in
    its model_chunk spans. Without the executed-tool spans, the episode still has every
    requested call with its arguments and id."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    chats = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(chats) == exp["turns"]
    assert not any("call_" in str(s.attributes.get("gen_ai.output.messages")) for s in chats)
    requested_only = [s for s in spans if sc.span_role(s) != sc.TOOL]
    episode = episode_of(requested_only, scenario)
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        (c["tool"], c["args"], c["call_id"]) for c in exp["calls"]]
    assert all(s.observation is None for s in episode.trajectory)  # never executed


MLFLOW_OWN = [s for s in SCENARIOS if s.startswith("mlflow-") and "genai_semconv" not in s]
MLFLOW_STREAMS = [s for s in SCENARIOS if s.startswith("mlflow-") and s.endswith("stream")]


@pytest.mark.parametrize("scenario", MLFLOW_OWN)
def test_mlflow_usage_and_inputs_are_json_strings(scenario):
    spans = spans_of(scenario)
    chats = [s for s in spans if s.attributes.get("mlflow.spanType") == '"CHAT_MODEL"']
    assert len(chats) == expected(scenario)["turns"]
    assert all(isinstance(s.attributes["mlflow.chat.tokenUsage"], str) for s in chats)
    assert all(s.name in ("Completions", "Responses") for s in chats)
    tools = [s for s in spans if s.attributes.get("mlflow.spanType") == '"TOOL"']
    assert [json.loads(s.attributes["mlflow.spanInputs"]) for s in tools] == [
        c["args"] for c in expected(scenario)["calls"]]


@pytest.mark.parametrize("scenario", MLFLOW_STREAMS)
def test_mlflow_stream_loses_the_calls_in_its_outputs_but_not_in_its_chunk_events(scenario):
    """MLflow rebuilds a streamed answer without its tool calls (its own outputs and, in the
    GenAI-semconv mode, the translated output messages); the chunk events keep them, with
    the whole usage. Without the executed-tool spans, the episode still has every call."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    chats = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(chats) == exp["turns"]
    outputs = ("mlflow.spanOutputs", "gen_ai.output.messages")
    assert not any("call_" in str(s.attributes.get(key)) for s in chats for key in outputs)
    assert all(any(e.name.startswith("mlflow.chunk.item.") for e in s.events) for s in chats)
    episode = episode_of([s for s in spans if sc.span_role(s) != sc.TOOL], scenario)
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        (c["tool"], c["args"], c["call_id"]) for c in exp["calls"]]
    assert (episode.cost.cached_input_tokens, episode.cost.reasoning_tokens) == (
        exp["usage"]["cached_input_tokens"], exp["usage"]["reasoning_tokens"])


def test_mastra_hidden_content_still_has_the_raw_response_of_each_call():
    """hideInput/hideOutput empty Mastra's inputs, outputs and chunks, but not the provider
    response its agent_step spans keep (mastra.metadata.body): the calls are read there."""
    scenario = "mastra-1.71.0-hidden"
    exp = expected(scenario)
    spans = spans_of(scenario)
    assert not any(s.attributes.get("mastra.model_chunk.output") for s in spans)
    assert not any("gen_ai.output.messages" in s.attributes or "gen_ai.tool.call.arguments"
                   in s.attributes for s in spans)
    bodies = [s.attributes["mastra.metadata.body"] for s in spans
              if "mastra.metadata.body" in s.attributes]
    assert len(bodies) == exp["turns"]
    episode = episode_of([s for s in spans if sc.span_role(s) != sc.TOOL], scenario)
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        (c["tool"], c["args"], c["call_id"]) for c in exp["calls"]]
    assert episode.output == exp["final_text"]


# ---------------------------------------------------------------------------
# The same rules on hand-made spans: the shapes these packages write, and their edges
# ---------------------------------------------------------------------------

T = "ab" * 16


def _span(span_id: int, parent: int = 0, name: str = "s", start: int = 1, events=(),
          **attributes) -> SpanRecord:
    from ek_otel.ingest.records import SpanEvent

    return SpanRecord(T, f"{span_id:016x}", f"{parent:016x}" if parent else None, name,
                      start_ns=start, end_ns=start + 10, attributes=attributes,
                      events=tuple(SpanEvent(n, time_ns=start, attributes=a) for n, a in events))


def test_mlflow_span_types_are_json_strings():
    assert [sc.span_role({"mlflow.spanType": v}) for v in (
        '"CHAT_MODEL"', '"LLM"', '"TOOL"', '"AGENT"', '"CHAIN"', '"RETRIEVER"', "CHAT_MODEL")] == [
        sc.MODEL, sc.MODEL, sc.TOOL, sc.AGENT, sc.OTHER, sc.OTHER, sc.OTHER]


def test_vercel_legacy_usage_details_are_read():
    usage = sc.usage_of({"ai.usage.inputTokens": 100, "ai.usage.outputTokens": 9,
                         "ai.usage.cachedInputTokens": 40, "ai.usage.reasoningTokens": 5})
    assert (usage.cached_input_tokens, usage.reasoning_tokens) == (40, 5)
    details = sc.usage_of({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 9,
                           "ai.usage.inputTokenDetails.cacheReadTokens": 30,
                           "ai.usage.outputTokenDetails.reasoningTokens": 4})
    assert (details.cached_input_tokens, details.reasoning_tokens) == (30, 4)


def test_mlflow_usage_blob_and_response_object_fill_each_other():
    usage = sc.usage_of({
        "mlflow.chat.tokenUsage": '{"input_tokens": 50, "output_tokens": 7, "cache_read_input_tokens": 20}',
        "mlflow.spanOutputs": json.dumps({"object": "chat.completion", "choices": [], "usage": {
            "prompt_tokens": 50, "completion_tokens": 7,
            "completion_tokens_details": {"reasoning_tokens": 3}}})})
    assert usage == sc.Usage(50, 7, 20, 3)
    # a tool's output that merely holds a "usage" key is no response object
    assert sc.usage_of({"mlflow.spanOutputs": '{"usage": {"input_tokens": 5}}'}) is None


def test_streamed_chunk_events_make_one_answer_whatever_the_fragment_order():
    """Fragments of two parallel calls interleaved, an id only on each call's first
    fragment, the usage on the last chunk: one answer with both calls in index order."""
    def chunk(delta=None, usage=None):
        return ("mlflow.chunk.item.0", {"mlflow.chunk.value": json.dumps({
            "object": "chat.completion.chunk", "usage": usage,
            "choices": [{"index": 0, "delta": delta}] if delta else []})})

    def part(index, call_id=None, name=None, arguments=""):
        return {"tool_calls": [{"index": index, "id": call_id,
                                "function": {"name": name, "arguments": arguments}}]}

    events = [chunk(part(1, "c2", "b")), chunk(part(0, "c1", "a")), chunk(part(1, None, None, '{"y"')),
              chunk(part(0, None, None, '{"x": 1}')), chunk(part(1, None, None, ': 2}')),
              chunk(usage={"prompt_tokens": 9, "completion_tokens": 4,
                           "completion_tokens_details": {"reasoning_tokens": 2}})]
    root = _span(1, name="agent", **{"mlflow.spanType": '"AGENT"', "ek.task.id": '"t"'})
    chat = _span(2, 1, "Completions", start=2, events=events, **{
        "mlflow.spanType": '"CHAT_MODEL"',
        "mlflow.spanOutputs": '{"id": "x", "object": "chat.completion", "choices": [{"message": '
                              '{"role": "assistant", "content": "", "tool_calls": null}}]}'})
    (episode,) = build_episodes(group_traces([root, chat]))
    assert episode.task_id == "t"
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        ("a", {"x": 1}, "c1"), ("b", {"y": 2}, "c2")]
    assert (episode.cost.input_tokens, episode.cost.reasoning_tokens) == (9, 2)


def test_mastra_chunk_spans_hold_the_requested_calls_in_their_order():
    chat = _span(2, 1, "chat m", start=2, **{
        "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.output_tokens": 1, "gen_ai.response.finish_reasons": '["tool-calls"]',
        "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "text", "content": ""}]}]'})
    chunks = [
        _span(4, 2, "model_chunk A", start=4, **{"mastra.span.type": "model_chunk",
              "mastra.model_chunk.output": '{"toolName": "g", "toolCallId": "c2", "toolInput": "{\\"q\\": 2}"}'}),
        _span(3, 2, "model_chunk A", start=3, **{"mastra.span.type": "model_chunk",
              "mastra.model_chunk.output": '{"toolName": "f", "toolCallId": "c1", "toolInput": {"q": 1}}'}),
        _span(5, 2, "model_chunk A", start=5, **{"mastra.span.type": "model_chunk",
              "mastra.model_chunk.output": '{"text": "unrelated"}'}),
    ]
    root = _span(1, name="invoke_agent A", **{"gen_ai.operation.name": "invoke_agent",
                                               "mastra.metadata.task_id": "t9"})
    (episode,) = build_episodes(group_traces([root, chat, *chunks]))
    assert episode.task_id == "t9"
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        ("f", {"q": 1}, "c1"), ("g", {"q": 2}, "c2")]
    assert episode.meta["uncaptured_tool_calls"] == 0


def test_a_vercel_finish_reason_tool_calls_without_content_is_an_uncaptured_call():
    chat = _span(2, 1, "ai.generateText.doGenerate", start=2, **{
        "ai.usage.inputTokens": 5, "ai.usage.outputTokens": 1,
        "gen_ai.response.finish_reasons": ["tool-calls"]})
    root = _span(1, name="ai.generateText", **{"ai.telemetry.functionId": "Helper"})
    (episode,) = build_episodes(group_traces([root, chat]))
    assert episode.meta["uncaptured_tool_calls"] == 1
    assert episode.provenance.args_captured is False
    assert episode.provenance.agent_name == "Helper"
