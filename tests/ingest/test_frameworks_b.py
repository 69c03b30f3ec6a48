"""Agent frameworks' spans (smolagents, LlamaIndex, Semantic Kernel, AutoGen, MCP, CrewAI)
become the episodes the fake server scripted, wherever the package recorded them.

The corpus folders were made by ``scripts/regen_corpus.py`` with the plug-ins in
``scripts/corpus_frameworks/`` (the real framework, pinned, against
``ek_otel.testing.fake_openai``); ``expected.json`` holds the script's calls and usage and,
under ``records``, what the package records or loses (see that folder's README). Every
test reads the files through the project's real dump reader, in both forms.
"""

from __future__ import annotations

import pytest

from ek_otel.ingest import semconv as sc
from ek_otel.testing.fake_openai import DEFAULT_SCRIPT

from .test_real_packages import SCENARIOS, episodes_of, expected, read

FRAMEWORKS = ("smolagents", "LlamaIndex", "Semantic Kernel", "AutoGen", "MCP", "CrewAI")
OURS = [s for s in SCENARIOS
        if expected(s)["records"].get("checked_by") == "tests/ingest/test_frameworks_b.py"]
SUPPORT_FIELDS = ("tool_names", "arguments", "call_ids", "input_tokens", "output_tokens",
                  "cached_tokens", "reasoning_tokens")
SUPPORT_VALUES = ("read", "not_recorded", "not_read")


def spans_of(scenario: str) -> list:
    records, _ = read(scenario, "pb")
    return [r for r in records if hasattr(r, "parent_span_id")]


def by_framework(name: str) -> list:
    return [s for s in OURS if expected(s)["framework"] == name]


def test_every_framework_and_mode_is_in_the_corpus():
    assert {expected(s)["framework"] for s in OURS} == set(FRAMEWORKS)
    modes = {(expected(s)["framework"], expected(s)["mode"]) for s in OURS}
    assert len(modes) == len(OURS) >= 13


@pytest.mark.parametrize("scenario", OURS)
def test_metadata_says_what_is_read_and_what_fixes_each_gap(scenario):
    exp = expected(scenario)
    records = exp["records"]
    assert records["framework"] == exp["framework"] in FRAMEWORKS
    assert records["mode"] == exp["mode"] and records["framework_version"]
    support = records["support"]
    assert set(support) == set(SUPPORT_FIELDS)
    assert set(support.values()) <= set(SUPPORT_VALUES)
    gaps = {field for field, value in support.items() if value != "read"}
    not_recorded = {field for field, value in support.items() if value == "not_recorded"}
    assert not_recorded <= set(records["fixes"]) <= gaps  # every package gap names its fix
    assert all(isinstance(fix, str) and fix for fix in records["fixes"].values())
    # the test flags agree with the support table
    assert records["args"] == (support["arguments"] == "read")
    assert records["cached"] == (support["cached_tokens"] == "read")
    assert records["reasoning"] == (support["reasoning_tokens"] == "read")


@pytest.mark.parametrize("form", ["pb", "jsonl"])
@pytest.mark.parametrize("scenario", OURS)
def test_episode_equals_the_ground_truth(scenario, form):
    exp = expected(scenario)
    records = exp["records"]
    (episode,) = episodes_of(scenario, form)
    assert episode.task_id == exp["task_id"]
    ids = records.get("call_ids", True)
    truth = [dict(c, call_id=c["call_id"] if ids else None) for c in exp["calls"]]
    got = [{"tool": s.tool, "args": dict(s.args), "call_id": s.call_id}
           for s in episode.trajectory]
    if records.get("no_model_spans"):  # only executions: in the executor's order
        key = lambda c: c["tool"]  # noqa: E731
        got, truth = sorted(got, key=key), sorted(truth, key=key)
    if records.get("calls_recorded", True) is False:
        assert got == []
    elif records["args"]:
        assert got == truth
        assert all(s.args_captured for s in episode.trajectory)
        assert episode.provenance.args_captured is True
    else:  # names (and ids) only: nothing invented
        assert got == [dict(c, args={}) for c in truth]
        assert not any(s.args_captured for s in episode.trajectory)
        assert episode.provenance.args_captured is False
    usage = exp["usage"]
    cost = episode.cost
    if records.get("no_usage"):
        assert (cost.input_tokens, cost.output_tokens) == (0, 0)
    else:
        assert (cost.input_tokens, cost.output_tokens) == (usage["input_tokens"],
                                                           usage["output_tokens"])
    assert cost.cached_input_tokens == (usage["cached_input_tokens"] if records["cached"] else 0)
    assert cost.reasoning_tokens == (usage["reasoning_tokens"] if records["reasoning"] else 0)
    assert cost.retries == 0
    if records.get("no_model_spans"):
        assert episode.meta["model_calls"] == 0 and episode.run.model == ""
    else:
        assert episode.meta["model_calls"] == exp["turns"]
        assert episode.run.model == records.get("model", exp["response_model"])
    if records.get("agent"):
        assert episode.provenance.agent_name == records["agent"]
    assert episode.provenance.service_name == "weather-agent"
    assert episode.meta["bad_spans"] == 0


# --- smolagents -------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", by_framework("smolagents"))
def test_smolagents_final_answer_is_a_call_the_framework_makes(scenario):
    """final_answer is recorded as any tool call (requested by the model, then run): the
    episode keeps it, and expected.json names it framework-internal, for --ignore-tool."""
    exp = expected(scenario)
    assert exp["records"]["internal_tools"] == exp["internal_tools"] == ["final_answer"]
    (episode,) = episodes_of(scenario, "pb")
    last = episode.trajectory[-1]
    assert last.tool == "final_answer"
    assert dict(last.args) == {"answer": DEFAULT_SCRIPT[-1].text}
    assert last.observation == DEFAULT_SCRIPT[-1].text
    assert episode.output == DEFAULT_SCRIPT[-1].text  # the agent span's output
    assert episode.provenance.agent_name == "WeatherAgent"


@pytest.mark.parametrize("scenario", by_framework("smolagents"))
def test_smolagents_agent_span_repeats_the_totals_which_count_once(scenario):
    spans = spans_of(scenario)
    (agent,) = [s for s in spans if sc.span_role(s) == sc.AGENT]
    totals = sc.usage_of(agent.attributes)
    exp = expected(scenario)
    assert (totals.input_tokens, totals.output_tokens) == (exp["usage"]["input_tokens"],
                                                           exp["usage"]["output_tokens"])
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]


def test_smolagents_with_the_client_instrumentor_reads_the_leaf_calls():
    """smolagents' LLM span and the openai client span inside it are one call: its usage
    (with the cache and reasoning details only the client span has) once, and the
    response model that only the client span records."""
    scenario = "smolagents-1.26.0-openinference-0.1.43-and-client"
    spans = spans_of(scenario)
    models = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(models) == 2 * len(DEFAULT_SCRIPT)
    (episode,) = episodes_of(scenario, "jsonl")
    assert episode.meta["model_calls"] == len(DEFAULT_SCRIPT)
    assert episode.run.model == expected(scenario)["response_model"]


# --- LlamaIndex -------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", by_framework("LlamaIndex"))
def test_llamaindex_request_preparation_spans_are_no_model_calls(scenario):
    """LlamaIndex traces ``OpenAI._prepare_chat_with_tools`` as an LLM span too (its output
    is the request being built): it is no call, so model calls are the three real ones."""
    spans = spans_of(scenario)
    prepare = [s for s in spans if s.name.endswith("._prepare_chat_with_tools")]
    assert len(prepare) == len(DEFAULT_SCRIPT)
    assert all(s.attributes.get("openinference.span.kind") == "LLM" for s in prepare)
    assert all(sc.span_role(s) == sc.OTHER for s in prepare)
    (episode,) = episodes_of(scenario, "pb")
    assert episode.meta["model_calls"] == len(DEFAULT_SCRIPT)


def test_llamaindex_streaming_without_usage_says_which_calls_lack_it():
    (episode,) = episodes_of("llamaindex-0.14.25-openinference-4.6.1-stream", "pb")
    assert episode.meta["model_calls_without_usage"] == len(DEFAULT_SCRIPT)
    (fixed,) = episodes_of("llamaindex-0.14.25-openinference-4.6.1-stream-usage", "pb")
    assert fixed.meta["model_calls_without_usage"] == 0


# --- Semantic Kernel --------------------------------------------------------------------


def test_semantic_kernel_sensitive_calls_come_from_its_log_events():
    """The chat spans carry no message; the requested calls are in gen_ai.choice log
    records (body: JSON with the message), joined to the execute_tool spans by id."""
    scenario = "semantic-kernel-1.45.0-sensitive"
    spans = spans_of(scenario)
    assert not any("gen_ai.output.messages" in s.attributes for s in spans)
    records, _ = read(scenario, "pb")
    choices = [r for r in records if getattr(r, "event_name", "") == "gen_ai.choice"]
    assert len(choices) == len(DEFAULT_SCRIPT)
    (episode,) = episodes_of(scenario, "pb")
    tools = {s.span_id for s in spans if sc.span_role(s) == sc.TOOL}
    assert {s.span_id for s in episode.trajectory} == tools
    assert episode.output == DEFAULT_SCRIPT[-1].text


def test_semantic_kernel_without_sensitive_data_counts_the_unrecorded_calls():
    """Its finish reason (``gen_ai.response.finish_reason = 'FinishReason.TOOL_CALLS'``) is
    read: two model calls asked for tools whose requests were not recorded, and the last
    one's answer (finish reason STOP) was not recorded either."""
    (episode,) = episodes_of("semantic-kernel-1.45.0-no_sensitive", "pb")
    assert episode.meta["uncaptured_tool_calls"] == 2
    assert episode.meta["unrecorded_model_outputs"] == 1
    assert episode.output is None


# --- AutoGen ----------------------------------------------------------------------------


def test_autogen_alone_traces_no_model_call():
    (episode,) = episodes_of("autogen-agentchat-0.7.5", "pb")
    assert episode.meta["model_calls"] == 0
    assert episode.provenance.agent_name == "WeatherAgent"
    assert {s.agent for s in episode.trajectory} == {"WeatherAgent"}


# --- MCP --------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", by_framework("MCP"))
def test_mcp_tool_calls_seen_from_client_and_server_are_one_call_each(scenario):
    """Each tools/call is traced on the client and, joined by the trace context the client
    sends in ``_meta``, on the server: one step per call, joined to the requested call."""
    spans = spans_of(scenario)
    by_id = {s.span_id: s for s in spans}
    calls = [c["tool"] for c in expected(scenario)["calls"]]
    for tool in calls:
        mine = [s for s in spans if tool in s.name]
        client = [s for s in mine if not any(_descends(s, other, by_id) for other in mine)]
        assert len(client) == 1  # the client's request, the server's handling under it
        server = [s for s in spans if _descends(s, client[0], by_id)]
        assert server, f"no server-side span under the {tool} client span"
    (episode,) = episodes_of(scenario, "pb")
    assert [s.tool for s in episode.trajectory] == calls
    assert len({s.span_id for s in episode.trajectory}) == len(calls)


def test_mcp_server_side_tool_span_is_the_same_execution():
    """FastMCP's server-side ``{tool}.tool`` span sits (through ``mcp.server``) under the
    client's ``{tool}.tool`` span: two TOOL spans, one execution, one step."""
    scenario = "mcp-fastmcp-2.12.5-traceloop-0.62.4"
    spans = spans_of(scenario)
    tools = [s for s in spans if sc.span_role(s) == sc.TOOL]
    assert len(tools) == 2 * len(expected(scenario)["calls"])
    (episode,) = episodes_of(scenario, "jsonl")
    assert len(episode.trajectory) == len(expected(scenario)["calls"])


def _descends(span, ancestor, by_id) -> bool:
    seen = set()
    while span.parent_span_id in by_id and span.span_id not in seen:
        seen.add(span.span_id)
        span = by_id[span.parent_span_id]
        if span.span_id == ancestor.span_id:
            return True
    return False


# --- CrewAI -----------------------------------------------------------------------------


def test_crewai_openinference_usage_is_the_runs_total_once():
    """No model span: the run's usage is read from the kickoff span's CrewOutput JSON
    (token_usage), every kind, and only there (the agent span's output holds none)."""
    (episode,) = episodes_of("crewai-1.15.30-openinference-1.1.21", "pb")
    usage = expected("crewai-1.15.30-openinference-1.1.21")["usage"]
    assert (episode.cost.input_tokens, episode.cost.cached_input_tokens,
            episode.cost.reasoning_tokens) == (usage["input_tokens"],
                                               usage["cached_input_tokens"],
                                               usage["reasoning_tokens"])


def test_crewai_traceloop_data_left_in_python_reprs_is_not_read():
    """Traceloop's crewai spans hold the calls and usage only as Python reprs: nothing is
    guessed from them (an empty trajectory and no tokens)."""
    spans = spans_of("crewai-1.15.30-traceloop-0.62.4")
    text = " ".join(str(v) for s in spans for v in s.attributes.values())
    assert "TaskOutput(" in text and "prompt_tokens=590" in text
    assert "call_weather_1" in text  # the calls are there, inside the repr
    (episode,) = episodes_of("crewai-1.15.30-traceloop-0.62.4", "pb")
    assert episode.trajectory == () or len(episode.trajectory) == 0
    assert episode.cost.input_tokens == 0


def test_crewai_run_totals_beside_client_spans_count_once():
    """With the openai instrumentor, each call's usage is on its LLM span and the kickoff
    still records the run's totals (token_usage): the calls' usage counts, once."""
    scenario = "crewai-1.15.30-openinference-1.1.21-and-client"
    spans = spans_of(scenario)
    per_call = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)
    totals = [s for s in spans if '"token_usage"' in str(s.attributes.get("output.value"))]
    usage = expected(scenario)["usage"]
    assert per_call == usage["input_tokens"] and len(totals) == 1
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == usage["input_tokens"]
    assert episode.cost.cached_input_tokens == usage["cached_input_tokens"]
