"""Spans from the REAL instrumentation packages become the episodes the fake server scripted.

The corpus (tests/ingest/corpus/<scenario>/) was produced by ``scripts/regen_corpus.py``:
the real ``openai`` client (and the real OpenAI Agents SDK, LangChain, LangGraph), the real
``anthropic`` and ``google-genai`` clients, instrumented by real packages, talking to
``ek_otel.testing.fake_openai`` / ``fake_anthropic`` / ``fake_gemini`` and exported with the
OTel SDK's real OTLP encoders (protobuf ``.pb`` and the json-file exporter's JSON Lines).
``expected.json`` holds what the fake server returned and what the package is known to
record. Every test reads the files through the project's real dump reader.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel.ingest import semconv as sc
from ek_otel.ingest.assemble import group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.episodes import build_episodes, is_agent_run
from ek_otel.testing import fake_anthropic, fake_gemini
from ek_otel.testing.fake_openai import DEFAULT_SCRIPT, expected_summary, named_script

CORPUS = Path(__file__).parent / "corpus"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").exists())
FORMS = {"pb": ("traces.pb", "logs.pb"), "jsonl": ("traces.jsonl", "logs.jsonl")}


def expected(scenario: str) -> dict:
    return json.loads((CORPUS / scenario / "expected.json").read_text())


def server_summary(scenario: str) -> dict:
    """What the fake server the scenario ran against returns today."""
    server = expected(scenario).get("server")
    if server == "anthropic":
        return fake_anthropic.expected_summary(script_of(scenario))
    if server == "gemini":
        return fake_gemini.expected_summary()
    return expected_summary(named_script(expected(scenario).get("script", "default")))


def script_of(scenario: str) -> tuple:
    exp = expected(scenario)
    if exp.get("server") == "anthropic" and exp.get("script") == "hosted":
        return fake_anthropic.ANTHROPIC_HOSTED_SCRIPT
    return {"anthropic": fake_anthropic.ANTHROPIC_SCRIPT, "gemini": fake_gemini.GEMINI_SCRIPT}.get(
        exp.get("server"), named_script(exp.get("script", "default")))


def calls_recorded(scenario: str) -> list:
    """The script's calls the package records: hosted ones only when it records them."""
    exp = expected(scenario)
    if exp["records"].get("hosted") == "not_recorded":
        return [c for c in exp["calls"] if not c.get("hosted")]
    return exp["calls"]


def tool_turns(scenario: str) -> int:
    return sum(1 for t in script_of(scenario) if t.calls)


def read(scenario: str, form: str) -> tuple:
    folder = CORPUS / scenario
    paths = [str(folder / name) for name in FORMS[form] if (folder / name).exists()]
    report = BadInputReport()
    records = list(read_dump(paths, report=report))
    return records, report


def all_episodes_of(scenario: str, form: str) -> list:
    records, report = read(scenario, form)
    assert report.ok, report.summary()
    return list(build_episodes(group_traces(records), source=scenario))


def episodes_of(scenario: str, form: str) -> list:
    """The scenario's agent runs (an MCP session's protocol traces are not: see
    tests/ingest/test_nonruns.py)."""
    return [e for e in all_episodes_of(scenario, form) if is_agent_run(e)]


HOSTED = [s for s in SCENARIOS if expected(s).get("script") == "hosted"]


def test_the_corpus_covers_hosted_tools_of_openai_anthropic_and_the_agents_sdk():
    read = {s for s in HOSTED if expected(s)["records"]["hosted"] == "read"}
    assert {"openinference-openai-0.1.66-hosted", "agents-openinference-hosted",
            "anthropic-openinference-3.1.0-hosted", "anthropic-sdk-2.14.0-native-hosted"} <= read


@pytest.mark.parametrize("scenario", HOSTED)
def test_hosted_calls_are_steps_marked_hosted_with_their_arguments(scenario):
    """The provider ran them: steps of their own (never joined to a client tool span),
    marked hosted, with the queries / code the model gave; --ignore-tool @hosted drops them
    and a gold task can expect them."""
    from ek_otel.core.episode import TaskSpec
    from ek_otel.core.evaluate import score_episode
    from ek_otel.core.ignore import HOSTED as HOSTED_PATTERN

    (episode,) = episodes_of(scenario, "pb")
    hosted = [s for s in episode.trajectory if s.hosted]
    want = [c for c in expected(scenario)["calls"] if c.get("hosted")]
    if expected(scenario)["records"]["hosted"] == "not_recorded":
        assert hosted == []  # nothing invented
        return
    assert [(s.tool, dict(s.args), s.call_id) for s in hosted] == [
        (c["tool"], c["args"], c["call_id"]) for c in want]
    assert all(s.observation is not None for s in hosted if s.tool != "web_search"
               or expected(scenario).get("server") == "anthropic")
    gold = TaskSpec("weather-paris", gold=[(c["tool"], c["args"]) for c in expected(scenario)["calls"]])
    assert score_episode(episode, gold).f1 == 1.0
    clients = TaskSpec("weather-paris", gold=[(c["tool"], c["args"])
                                              for c in expected(scenario)["calls"] if not c.get("hosted")])
    assert score_episode(episode, clients, ignore_tools=(HOSTED_PATTERN,)).f1 == 1.0
    assert score_episode(episode, clients).f1 < 1.0


def test_the_corpus_covers_every_required_package():
    required = {"openai-v2-2.4b0-span_only", "openai-v2-2.4b0-span_and_event",
                "openai-v2-2.4b0-no_content", "openinference-openai-0.1.66",
                "traceloop-0.62.4", "traceloop-0.52.6", "agents-openinference-alone",
                "agents-openinference-with-client", "agents-otel-v2-alone",
                "agents-otel-v2-with-client", "agents-traceloop-alone",
                "agents-traceloop-with-client", "logfire-chat", "logfire-agents"}
    assert required <= set(SCENARIOS)


#: The client-instrumentation scenarios; framework scenarios (``records.framework``) are
#: checked item by item, with their own support records, in test_frameworks*.py.
CLIENT_SCENARIOS = [s for s in SCENARIOS if not expected(s)["records"].get("framework")]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_corpus_matches_the_fake_server_script(scenario):
    """expected.json was written from the same script the server runs today (not stale)."""
    exp = expected(scenario)
    now = server_summary(scenario)
    assert (exp["calls"], exp["usage"], exp["response_ids"]) == (
        now["calls"], now["usage"], now["response_ids"])



@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_episode_has_exactly_the_requested_calls_and_returned_tokens(scenario, form):
    exp = expected(scenario)
    records = exp["records"]
    if records.get("overwrites_parent") or records.get("package_bugs"):
        pytest.skip("the package loses calls or tokens: see its own test")
    (episode,) = episodes_of(scenario, form)
    assert episode.task_id == exp["task_id"]
    if records["args"]:
        prefix = records.get("call_id_prefix", "")  # a package that records another id
        assert [{"tool": s.tool, "args": dict(s.args), "call_id": s.call_id,
                 **({"hosted": True} if s.hosted else {})}
                for s in episode.trajectory] == [
                    dict(c, call_id=(prefix + c["call_id"] if c["call_id"] and not c.get(
                        "hosted") else c["call_id"]))
                    for c in calls_recorded(scenario)]
        assert all(s.args_captured for s in episode.trajectory)
        assert episode.provenance.args_captured is True
        assert episode.output == exp["final_text"]
    elif records.get("tool_names"):  # content off, but executed-tool spans name the tools
        tools, want = [s.tool for s in episode.trajectory], [c["tool"] for c in exp["calls"]]
        if records.get("order_unrecorded"):  # parallel calls whose order nothing records
            tools, want = sorted(tools), sorted(want)
        assert tools == want
        assert all(not s.args_captured and dict(s.args) == {} for s in episode.trajectory)
        assert episode.provenance.args_captured is False
        # automatic function calling: the model span shows only the final answer
        assert episode.meta["uncaptured_tool_calls"] == (0 if records.get("afc")
                                                         else tool_turns(scenario))
    elif records.get("silent_finish"):  # content off and no finish reason tells of tools
        assert episode.calls == ()
        assert episode.provenance.args_captured is False
        assert episode.meta["uncaptured_tool_calls"] == 0
        assert episode.meta["unrecorded_model_outputs"] == len(script_of(scenario))
    else:  # content capture off: no call is invented, and the episode says so
        assert episode.calls == ()
        assert episode.provenance.args_captured is False
        assert episode.meta["uncaptured_tool_calls"] == tool_turns(scenario)
    usage = exp["usage"]
    if records.get("afc"):  # one span for the whole loop: the last turn's usage only
        usage = fake_gemini.expected_summary(script_of(scenario)[-1:])["usage"]
    cost = episode.cost
    # a package's known miscount, as recorded (see EXPECT in scripts/regen_corpus.py)
    assert (cost.input_tokens, cost.output_tokens) == (
        usage["input_tokens"], usage["output_tokens"] + records.get("output_tokens_extra", 0))
    assert cost.cached_input_tokens == (usage["cached_input_tokens"] if records["cached"] else 0)
    assert cost.reasoning_tokens == (usage["reasoning_tokens"] if records["reasoning"] else 0)
    assert cost.retries == 0
    assert cost.latency_s > 0
    assert episode.run.model == records.get("model", exp["response_model"])
    assert episode.provenance.service_name == "weather-agent"
    assert episode.provenance.service_version == "1.2.3"
    assert episode.meta["bad_spans"] == 0


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("agents-")])
def test_agent_scenarios_scope_steps_to_the_agent(scenario):
    (episode,) = episodes_of(scenario, "jsonl")
    assert {s.agent for s in episode.trajectory} == {"WeatherAgent"}
    assert len({s.agent_span_id for s in episode.trajectory}) == 1
    assert episode.provenance.agent_name == "WeatherAgent"
    # executed tool spans were joined to the requested calls: one step per call
    assert len(episode.trajectory) == len(expected(scenario)["calls"])


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.endswith("-with-client")])
def test_agent_plus_client_instrumentor_really_reports_each_call_twice(scenario):
    """The corpus holds the double report (so the single count above is a real dedup):
    each model call is a client span nested under the agent instrumentor's model span."""
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "span_id") and hasattr(r, "parent_span_id")]
    model_spans = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(model_spans) == 2 * len(DEFAULT_SCRIPT)
    assert len({s.scope_name for s in model_spans}) == 2
    by_id = {s.span_id: s for s in model_spans}
    nested = [s for s in model_spans if s.parent_span_id in by_id]
    assert len(nested) == len(DEFAULT_SCRIPT)
    naive = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in model_spans) if u)
    # usage on both spans of a call, except with Traceloop, where one of the two carries it
    times = {"agents-openinference-with-client": 2, "agents-otel-v2-with-client": 2,
             "agents-traceloop-with-client": 1}[scenario]
    assert naive == times * expected(scenario)["usage"]["input_tokens"]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("logfire-agents")])
def test_logfire_agents_report_usage_three_times_and_it_is_counted_once(scenario):
    """Per model call, per turn, and a run total on the task span: a naive sum is 3x."""
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    naive = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)
    assert naive == 3 * expected(scenario)["usage"]["input_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == expected(scenario)["usage"]["input_tokens"]


def test_old_openai_v2_has_tool_calls_only_in_log_events():
    records, _ = read("openai-v2-2.3b0-events", "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    assert not any("gen_ai.output.messages" in s.attributes for s in spans)
    traces_only = list(build_episodes(group_traces(spans)))
    assert traces_only[0].calls == ()  # an evaluator reading traces alone sees no calls
    (with_logs,) = episodes_of("openai-v2-2.3b0-events", "pb")
    assert len(with_logs.calls) == len(expected("openai-v2-2.3b0-events")["calls"])


def test_agents_otel_v2_tool_calls_come_from_python_repr_text():
    records, _ = read("agents-otel-v2-alone", "jsonl")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    messages = " ".join(str(s.attributes.get("gen_ai.output.messages", "")) for s in spans)
    assert "ResponseFunctionToolCall(" in messages
    assert not any(s.attributes.get("gen_ai.tool.call.id") for s in spans)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_protobuf_and_json_forms_give_the_same_episode(scenario):
    (from_pb,) = episodes_of(scenario, "pb")
    (from_json,) = episodes_of(scenario, "jsonl")
    assert from_pb.calls == from_json.calls
    assert from_pb.cost == from_json.cost
    assert from_pb.provenance == from_json.provenance


def test_langfuse_export_points_at_a_parent_it_never_sends():
    records, _ = read("langfuse-openai-5.0.4", "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    ids = {s.span_id for s in spans}
    assert spans and all(s.parent_span_id and s.parent_span_id not in ids for s in spans)
    (episode,) = episodes_of("langfuse-openai-5.0.4", "pb")
    earliest = min(spans, key=lambda s: s.start_ns)
    assert episode.provenance.root_span_id == earliest.span_id
    # latency covers the whole exported trace, not only the first generation
    assert episode.cost.latency_s * 1e9 >= max(s.end_ns for s in spans) - earliest.start_ns - 1
    assert episode.task_id == "weather-paris"  # Langfuse metadata is JSON-encoded
    assert episode.provenance.conversation_id == "sess-1"


ANTHROPIC = [s for s in SCENARIOS if expected(s).get("server") == "anthropic"
             and not expected(s)["records"].get("package_bugs")]
LANGCHAIN = [s for s in SCENARIOS if s.startswith(("langchain-", "langgraph-"))
             and expected(s)["records"]["args"]]


def test_the_corpus_covers_anthropic_and_langchain():
    assert {"anthropic-sdk-2.14.0-native", "anthropic-traceloop-0.62.4",
            "anthropic-traceloop-0.62.4-stream", "anthropic-openinference-3.1.0",
            "anthropic-openinference-3.1.0-stream", "langchain-openinference-0.1.80",
            "langchain-traceloop-0.62.4"} <= set(SCENARIOS)


@pytest.mark.parametrize("scenario", ANTHROPIC)
def test_anthropic_input_tokens_include_the_cache(scenario):
    """Anthropic's input_tokens exclude cached tokens; every package records the OTel sense
    (input + cache read + cache creation), and so does the episode."""
    exp = expected(scenario)
    raw = exp["anthropic_usage"]
    total = (raw["input_tokens"] + raw["cache_read_input_tokens"]
             + raw["cache_creation_input_tokens"])
    assert total == exp["usage"]["input_tokens"] != raw["input_tokens"]
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    # each turn has its own output count (hidden outputs leave no response id to go by)
    per_call = {t.usage.output_tokens: t.usage for t in script_of(scenario)}
    extra = exp["records"].get("output_tokens_extra", 0) // len(per_call)
    for span in spans:
        usage = sc.usage_of(span.attributes)
        if usage is None:
            continue
        turn = per_call[usage.output_tokens - extra]
        assert usage.input_tokens == turn.total_input_tokens
        assert usage.cached_input_tokens == turn.cache_read_input_tokens
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == total
    assert episode.cost.cached_input_tokens == raw["cache_read_input_tokens"]


@pytest.mark.parametrize("scenario", ["anthropic-traceloop-0.62.4",
                                      "anthropic-openinference-3.1.0-stream"])
def test_anthropic_sdk_and_instrumentor_sibling_spans_count_once(scenario):
    """anthropic 2.x traces each API call itself, BESIDE (not under) the instrumentor's span;
    OpenInference's has no gen_ai.response.id (only the dumped response in output.value)."""
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    model_spans = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(model_spans) == 2 * len(fake_anthropic.ANTHROPIC_SCRIPT)
    assert "com.anthropic.sdk.python" in {s.scope_name for s in model_spans}
    by_id = {s.span_id for s in model_spans}
    assert not any(s.parent_span_id in by_id for s in model_spans)  # siblings, not nested
    assert {sc.response_id_of(s.attributes) for s in model_spans} == set(
        expected(scenario)["response_ids"])
    naive = sum(sc.usage_of(s.attributes).input_tokens for s in model_spans)
    assert naive == 2 * expected(scenario)["usage"]["input_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == expected(scenario)["usage"]["input_tokens"]
    assert episode.meta["model_calls"] == len(fake_anthropic.ANTHROPIC_SCRIPT)
    assert episode.meta["uncaptured_tool_calls"] == 0  # the SDK span's calls are elsewhere


def test_anthropic_sdk_native_spans_without_content_say_calls_were_not_captured():
    (episode,) = episodes_of("anthropic-sdk-2.14.0-native", "pb")
    assert episode.calls == () and episode.provenance.args_captured is False
    assert episode.meta["uncaptured_tool_calls"] == 2  # from anthropic.message.stop_reason
    assert episode.cost.input_tokens == expected("anthropic-sdk-2.14.0-native")["usage"][
        "input_tokens"]


def test_traceloop_anthropic_stream_over_reports_output_tokens():
    """A Traceloop 0.62.4 bug, kept visible: its stream wrapper adds message_delta's
    cumulative output_tokens to message_start's (1 per call)."""
    exp = expected("anthropic-traceloop-0.62.4-stream")
    (episode,) = episodes_of("anthropic-traceloop-0.62.4-stream", "pb")
    assert exp["records"]["output_tokens_extra"] == len(fake_anthropic.ANTHROPIC_SCRIPT)
    assert episode.cost.output_tokens == exp["usage"]["output_tokens"] + len(
        fake_anthropic.ANTHROPIC_SCRIPT)


@pytest.mark.parametrize("scenario", LANGCHAIN)
def test_langchain_tool_runs_join_the_requested_calls_by_id(scenario):
    """The TOOL runs carry the call id only inside their recorded input/output; it is read,
    so each executed tool is joined to its requested call by id (one step per call)."""
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    tools = [s for s in spans if sc.span_role(s) == sc.TOOL]
    exp = expected(scenario)
    assert sorted(sc.tool_call_id_of(s.attributes) for s in tools) == sorted(
        c["call_id"] for c in exp["calls"])
    (episode,) = episodes_of(scenario, "pb")
    assert {s.span_id for s in episode.trajectory} == {s.span_id for s in tools}
    assert all(s.observation is not None for s in episode.trajectory)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.startswith("langgraph-")])
def test_langgraph_agent_steps_belong_to_the_agent(scenario):
    """LangChain 1.x create_agent: graph-node CHAIN/task spans between the agent and its
    model and tool runs; every step is scoped to the named agent, one step per call."""
    (episode,) = episodes_of(scenario, "jsonl")
    assert {s.agent for s in episode.trajectory} == {"WeatherAgent"}
    assert len({s.agent_span_id for s in episode.trajectory}) == 1
    assert episode.provenance.agent_name == "WeatherAgent"
    assert len(episode.trajectory) == len(expected(scenario)["calls"])
    if expected(scenario)["records"]["args"]:
        assert all(s.observation is not None for s in episode.trajectory)


def test_google_genai_invented_call_ids_are_not_ids():
    """The instrumentor names each Gemini call ``{name}_{part index}`` (Gemini gives no id):
    the corpus has them, and the episode keeps no such id (see test_episodes)."""
    records, _ = read("google-genai-1.3b0", "pb")
    text = " ".join(str(r.attributes.get("gen_ai.output.messages", ""))
                    for r in records if hasattr(r, "parent_span_id"))
    assert '"id":"get_weather_0"' in text and '"id":"convert_temperature_0"' in text
    (episode,) = episodes_of("google-genai-1.3b0", "pb")
    assert [s.call_id for s in episode.trajectory] == [None, None, None]


def test_gemini_output_tokens_include_thoughts():
    """Gemini's candidatesTokenCount excludes thoughtsTokenCount; the instrumentor adds
    them (output in the OTel/OpenAI sense) and reports them as reasoning too."""
    exp = expected("google-genai-1.3b0")
    raw = exp["gemini_usage"]
    (episode,) = episodes_of("google-genai-1.3b0", "pb")
    assert episode.cost.output_tokens == raw["candidates_tokens"] + raw["thoughts_tokens"]
    assert episode.cost.reasoning_tokens == raw["thoughts_tokens"]


def test_litellm_in_an_app_span_keeps_only_its_last_call():
    """litellm 1.110.2's OTel callback, called inside the app's span, writes each call's
    gen_ai.* attributes onto THAT span: the last call overwrites the others (and leaves
    stale gen_ai.completion.N keys of earlier calls beside it). The per-call data is left
    only as Python reprs on raw_gen_ai_request children. Pinned here so that a litellm
    that stops doing this is noticed; the episode can hold only the last call's usage."""
    exp = expected("litellm-1.110.2")
    records, _ = read("litellm-1.110.2", "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    (root,) = [s for s in spans if not s.parent_span_id]
    last = DEFAULT_SCRIPT[-1]
    assert root.attributes["gen_ai.response.id"] == last.response_id
    assert sc.usage_of(root.attributes).input_tokens == last.usage.input_tokens
    raw = [s for s in spans if s.name == "raw_gen_ai_request"]
    assert sorted(s.attributes["llm.openai.id"] for s in raw) == exp["response_ids"]
    assert all(s.parent_span_id == root.span_id for s in raw)
    (episode,) = episodes_of("litellm-1.110.2", "pb")
    assert episode.cost.input_tokens == last.usage.input_tokens  # not the run's total


def test_old_traceloop_anthropic_stream_loses_usage_and_parallel_calls():
    """opentelemetry-instrumentation-anthropic 0.44.3, messages.create(stream=True): no token
    counts at all, and of two parallel tool_use blocks only the last (both are written as
    gen_ai.completion.0.tool_calls.0). The episode says so: no invented call or count, and
    meta counts the model calls without usage."""
    exp = expected("anthropic-traceloop-0.44.3-stream")
    (episode,) = episodes_of("anthropic-traceloop-0.44.3-stream", "pb")
    assert [s.call_id for s in episode.trajectory] == [c["call_id"] for c in exp["calls"][1:]]
    assert episode.cost.input_tokens == episode.cost.output_tokens == 0
    assert episode.meta["model_calls_without_usage"] == len(fake_anthropic.ANTHROPIC_SCRIPT)
    (plain,) = episodes_of("anthropic-traceloop-0.44.3", "pb")  # not streamed: all recorded
    assert len(plain.trajectory) == len(exp["calls"]) and plain.cost.input_tokens == 590
    assert plain.meta["model_calls_without_usage"] == 0
