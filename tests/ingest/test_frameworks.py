"""Agent frameworks' own telemetry becomes the episode the fake server scripted.

The framework scenarios of the corpus (``scripts/corpus_frameworks/*.py``: pydantic-ai,
Strands Agents, Google ADK, ...) ran the real framework against the fake OpenAI server; each
``expected.json`` says, under ``records.support``, what the package records and whether
ek-otel reads it (see scripts/corpus_frameworks/README.md). The common test checks every
item against the episode, in both the protobuf and the JSON form:

- ``read``: the episode holds exactly what the fake server returned;
- ``not_recorded`` / ``not_read``: the episode holds nothing invented (no arguments and
  ``args_captured`` false, no call ids, a zero token count).

Then come the pitfalls each framework sets, checked on the raw spans, so that a framework
that stops doing them is noticed.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from ek_otel.ingest import semconv as sc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_real_packages import (CORPUS, FORMS, SCENARIOS, episodes_of, expected,  # noqa: E402
                                read)

#: (scenarios with ``records.checked_by`` are checked by that file: fw-b's, whose packages
#: trace no model call, end in a framework tool, or leave only reprs, in ways this generic
#: test does not model yet)
FRAMEWORK_SCENARIOS = [s for s in SCENARIOS if "framework" in expected(s)["records"]
                       and not expected(s)["records"].get("checked_by")]
SUPPORT_ITEMS = ("tool_names", "arguments", "call_ids", "input_tokens", "output_tokens",
                 "cached_tokens", "reasoning_tokens")
SUPPORT_VALUES = ("read", "not_recorded", "not_read")
#: support item -> (Cost field, expected.json usage key)
TOKEN_ITEMS = {"input_tokens": ("input_tokens", "input_tokens"),
               "output_tokens": ("output_tokens", "output_tokens"),
               "cached_tokens": ("cached_input_tokens", "cached_input_tokens"),
               "reasoning_tokens": ("reasoning_tokens", "reasoning_tokens")}


def spans_of(scenario: str, form: str = "pb") -> list:
    records, _ = read(scenario, form)
    return [r for r in records if hasattr(r, "parent_span_id")]


def test_the_corpus_covers_my_frameworks_and_their_modes():
    names = set(FRAMEWORK_SCENARIOS)
    for version in (2, 3, 4, 5, 6):  # every InstrumentationSettings(version=...) of 2.68.0
        assert {f"pydantic-ai-2.68.0-v{version}",
                f"pydantic-ai-2.68.0-v{version}-no_content"} <= names
    # 1.x: Agent(instrument=...), format 1 (events in an attribute or as log records)
    assert {"pydantic-ai-1.107.10-v1-attributes", "pydantic-ai-1.107.10-v1-logs",
            "pydantic-ai-1.107.10-v1-no_content-attributes", "pydantic-ai-1.107.10-v2"} <= names
    assert {"pydantic-ai-2.68.0-v5-plain_usage_names", "strands-1.62.0",
            "strands-1.62.0-latest_experimental", "adk-2.13.0-litellm",
            "adk-2.13.0-litellm-latest_experimental", "adk-2.13.0-litellm-legacy",
            "pydantic-ai-2.68.0-v5-stream", "adk-2.13.0-litellm-latest_experimental-sse",
            "strands-1.62.0-latest_experimental-attributes_only", "adk-2.13.0-gemini",
            "adk-2.13.0-gemini-latest_experimental", "adk-2.13.0-gemini-event_only",
            "adk-2.13.0-gemini-legacy", "adk-2.13.0-gemini-legacy-no_content",
            "adk-2.13.0-gemini-latest_experimental-sse", "adk-2.13.0-gemini-span_only"} <= names


def _regen_corpus():
    """scripts/regen_corpus.py, loaded by path (it loads the framework plug-ins)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "regen_corpus.py"
    spec = importlib.util.spec_from_file_location("ek_regen_corpus_for_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_expected_json_is_what_the_plugins_say_now():
    """Every framework scenario's expected.json holds its plug-in's EXPECT entry and
    environment as they are today (an edited EXPECT needs its scenario regenerated)."""
    kit = _regen_corpus()
    for scenario in FRAMEWORK_SCENARIOS:
        exp = expected(scenario)
        assert scenario in kit.PLUGINS, f"{scenario}: no plug-in makes it"
        env_name, _app, _instr, extra_env = kit.SCENARIOS[scenario]
        assert exp["records"] == json.loads(json.dumps(kit.EXPECT[scenario])), scenario
        if env_name in kit.ENVIRONMENTS:  # a Python venv (Node scenarios pin by lockfile)
            assert (exp["env"], exp["environment"]) == (extra_env, env_name), scenario
            assert exp["requirements"] == kit.ENVIRONMENTS[env_name], scenario


@pytest.mark.parametrize("scenario", FRAMEWORK_SCENARIOS)
def test_support_record_is_complete(scenario):
    """What doctor and docs/frameworks.md read: every item, a known value, a fix per gap."""
    records = expected(scenario)["records"]
    assert records["framework"] and records["framework_version"] and records["mode"]
    assert set(records["support"]) == set(SUPPORT_ITEMS)
    assert set(records["support"].values()) <= set(SUPPORT_VALUES)
    assert set(records.get("fixes", {})) <= {k for k, v in records["support"].items()
                                             if v != "read"}
    assert set(records.get("miscounted", {})) <= set(SUPPORT_ITEMS)
    assert bool(records.get("output_tokens_extra")) == ("output_tokens" in records.get(
        "miscounted", {}))
    # the keys the common corpus test reads agree with the matrix
    assert records["args"] == (records["support"]["arguments"] == "read")
    assert records["cached"] == (records["support"]["cached_tokens"] == "read")
    assert records["reasoning"] == (records["support"]["reasoning_tokens"] == "read")


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("scenario", FRAMEWORK_SCENARIOS)
def test_framework_episode_equals_the_ground_truth(scenario, form):
    exp = expected(scenario)
    records = exp["records"]
    support = records["support"]
    (episode,) = episodes_of(scenario, form)
    assert episode.task_id == exp["task_id"]
    steps = episode.trajectory
    calls = exp["calls"]
    # one step per call the model asked for: nothing invented (no grouping span as a call)
    if support["tool_names"] == "read":
        assert [s.tool for s in steps] == [c["tool"] for c in calls]
    else:
        assert steps == ()
    if support["arguments"] == "read":
        assert [dict(s.args) for s in steps] == [c["args"] for c in calls]
        assert all(s.args_captured for s in steps)
        assert episode.provenance.args_captured is True
        assert episode.output == exp["final_text"]
    else:
        assert all(not s.args_captured and dict(s.args) == {} for s in steps)
        assert episode.provenance.args_captured is False
    if support["call_ids"] == "read":
        assert [s.call_id for s in steps] == [c["call_id"] for c in calls]
    else:
        assert all(s.call_id is None for s in steps)
    # every executed tool span was joined to its requested call (one step, both sides)
    if support["tool_names"] == "read":
        assert all(s.span_id for s in steps)
    # usage counted once per model call, whatever repeats it
    for item, (field, key) in TOKEN_ITEMS.items():
        want = exp["usage"][key] if support[item] == "read" else 0
        if item == "output_tokens":
            want += records.get("output_tokens_extra", 0)  # a package's own miscount
        assert getattr(episode.cost, field) == want, item
    assert episode.meta["model_calls"] == exp["turns"]
    assert episode.meta["model_calls_without_usage"] == 0
    assert episode.cost.retries == 0 and episode.cost.latency_s > 0
    assert episode.run.model == records.get("model", exp["response_model"])
    assert episode.run.temperature == 0.2 or episode.run.temperature is None
    agent = records.get("agent", "WeatherAgent")  # a package that records its own name
    assert episode.provenance.agent_name == agent
    assert {s.agent for s in steps} <= {agent}
    assert episode.provenance.service_name == "weather-agent"
    assert episode.meta["bad_spans"] == 0


#: A value that only a tool call's arguments (or its result) hold in the fake's script: the
#: user's prompt says "Paris", never the time zone.
ARGUMENT_MARK = b"Europe/Paris"


def raw_telemetry(scenario: str) -> bytes:
    folder = CORPUS / scenario
    return b"".join((folder / name).read_bytes() for name in ("traces.jsonl", "logs.jsonl")
                    if (folder / name).exists())


@pytest.mark.parametrize("scenario", FRAMEWORK_SCENARIOS)
def test_what_a_package_does_not_record_is_nowhere_in_its_telemetry(scenario):
    """The matrix's "not_recorded" is a fact about the package, checked on its raw output
    (and "not_read" the opposite: the package has it, ek-otel misses it)."""
    support = expected(scenario)["records"]["support"]
    raw = raw_telemetry(scenario)
    if support["arguments"] == "not_recorded":
        assert ARGUMENT_MARK not in raw
    elif support["arguments"] == "not_read":
        assert ARGUMENT_MARK in raw
    if support["reasoning_tokens"] == "not_recorded":
        assert b"reasoning" not in raw.lower() and b"thought" not in raw.lower()
    if support["cached_tokens"] == "not_recorded":
        assert b"cache" not in raw.lower()


#: A scenario with a gap -> the same run with the setting its ``fixes`` names
FIXED_BY = {
    "pydantic-ai-2.68.0-v5-no_content": "pydantic-ai-2.68.0-v5",
    "pydantic-ai-1.107.10-v1-no_content-attributes": "pydantic-ai-1.107.10-v1-attributes",
    "adk-2.13.0-gemini": "adk-2.13.0-gemini-span_only",
    "adk-2.13.0-litellm": "adk-2.13.0-litellm-latest_experimental",
    "adk-2.13.0-gemini-legacy-no_content": "adk-2.13.0-gemini-legacy",
}


@pytest.mark.parametrize("gap", sorted(FIXED_BY))
def test_the_setting_named_as_a_fix_closes_the_gap(gap):
    """What doctor will tell users is proven: the run with the named setting reads it."""
    fixed = FIXED_BY[gap]
    fixes = expected(gap)["records"]["fixes"]
    assert fixes
    for item, setting in fixes.items():
        assert expected(fixed)["records"]["support"][item] == "read"
        name, _, value = setting.partition("=")
        if name.isupper():  # an environment variable: the fixed run sets it (or its default)
            env = expected(fixed)["env"]
            if value.endswith("(the default)"):
                assert name not in env and name in expected(gap)["env"]
            else:
                assert env[name] == value
        else:  # an InstrumentationSettings keyword: its default, or the fixed run's mode
            keyword = setting.split("(", 1)[1].rstrip(")")
            assert keyword in expected(fixed)["records"]["mode"] or keyword == (
                "include_content=True")  # pydantic-ai's default


# ---------------------------------------------------------------------------
# pydantic-ai
# ---------------------------------------------------------------------------

PYDANTIC = [s for s in FRAMEWORK_SCENARIOS if s.startswith("pydantic-ai-")]


@pytest.mark.parametrize("scenario", PYDANTIC)
def test_pydantic_ai_agent_span_repeats_the_totals(scenario):
    """The agent span carries the run's totals beside each chat span's own usage; with
    use_aggregated_usage_attribute_names=False (the 1.x default) under the very same
    gen_ai.usage.* names, so that a naive sum counts every token twice."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    (agent,) = [s for s in spans if sc.span_role(s) == sc.AGENT]
    prefix = exp["records"]["agent_usage_prefix"]  # 1.x default and 2.x opt-out: plain
    plain = prefix == "gen_ai.usage."
    assert plain == (scenario.endswith("-plain_usage_names") or "-1.107.10-" in scenario)
    assert agent.attributes[prefix + "input_tokens"] == exp["usage"]["input_tokens"]
    assert agent.attributes[prefix + "details.reasoning_tokens"] == exp["usage"][
        "reasoning_tokens"]
    naive = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)
    assert naive == (2 if plain else 1) * exp["usage"]["input_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]


def test_pydantic_ai_reasoning_is_only_a_usage_detail():
    """Reasoning tokens are gen_ai.usage.details.reasoning_tokens (no standard name)."""
    spans = spans_of("pydantic-ai-2.68.0-v5")
    chats = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert [s.attributes.get("gen_ai.usage.details.reasoning_tokens") for s in chats] == [
        16, 8, 0]
    assert not any("gen_ai.usage.reasoning.output_tokens" in s.attributes for s in chats)


@pytest.mark.parametrize("scenario", [s for s in PYDANTIC if s.endswith("-no_content")])
def test_pydantic_ai_without_content_keeps_names_and_ids_only(scenario):
    """include_content=False: tool names and call ids stay, arguments and texts go."""
    spans = spans_of(scenario)
    tools = [s for s in spans if sc.span_role(s) == sc.TOOL]
    assert sorted(s.attributes["gen_ai.tool.call.id"] for s in tools) == sorted(
        c["call_id"] for c in expected(scenario)["calls"])  # parallel calls: any order
    assert not any("gen_ai.tool.call.arguments" in s.attributes for s in tools)
    # the answers keep their tool_call parts (name and id), without arguments or text
    outputs = [s.attributes["gen_ai.output.messages"] for s in spans
               if "gen_ai.output.messages" in s.attributes]
    assert len(outputs) == expected(scenario)["turns"]
    assert not any('"arguments"' in o or '"content"' in o for o in outputs)


# ---------------------------------------------------------------------------
# Strands Agents
# ---------------------------------------------------------------------------

STRANDS = [s for s in FRAMEWORK_SCENARIOS if s.startswith("strands-")]


def test_strands_default_has_tool_arguments_only_in_span_events():
    spans = spans_of("strands-1.62.0")
    tools = [s for s in spans if sc.span_role(s) == sc.TOOL]
    assert tools and not any("gen_ai.tool.call.arguments" in s.attributes for s in tools)
    assert all(any(e.name == "gen_ai.tool.message" for e in s.events) for s in tools)
    models = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert not any("gen_ai.output.messages" in s.attributes for s in models)


def test_strands_latest_experimental_has_messages_only_in_span_events():
    spans = spans_of("strands-1.62.0-latest_experimental")
    models = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert not any("gen_ai.output.messages" in s.attributes for s in models)
    assert all(any("gen_ai.output.messages" in (e.attributes or {}) for e in s.events)
               for s in models)


@pytest.mark.parametrize("scenario", STRANDS)
def test_strands_totals_on_the_agent_span_count_once(scenario):
    exp = expected(scenario)
    spans = spans_of(scenario)
    (agent,) = [s for s in spans if sc.span_role(s) == sc.AGENT]
    assert sc.usage_of(agent.attributes).input_tokens == exp["usage"]["input_tokens"]
    naive = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)
    assert naive == 2 * exp["usage"]["input_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]


# ---------------------------------------------------------------------------
# Google ADK
# ---------------------------------------------------------------------------

ADK = [s for s in FRAMEWORK_SCENARIOS if s.startswith("adk-")]


@pytest.mark.parametrize("scenario", ADK)
def test_adk_merged_tools_span_is_no_call(scenario):
    """Parallel calls get an extra execute_tool span over their merged results; it names
    no tool, and its call id is an event id no model asked for."""
    spans = spans_of(scenario)
    (merged,) = [s for s in spans if s.attributes.get("gen_ai.tool.name") == "(merged tools)"]
    assert merged.attributes["gen_ai.operation.name"] == "execute_tool"
    assert sc.span_role(merged) == sc.OTHER
    (episode,) = episodes_of(scenario, "pb")
    assert merged.span_id not in {s.span_id for s in episode.trajectory}
    assert "(merged tools)" not in {s.tool for s in episode.trajectory}


@pytest.mark.parametrize("scenario", [s for s in ADK if "-litellm" in s])
def test_adk_output_tokens_include_reasoning_twice(scenario):
    """LiteLlm maps OpenAI's completion_tokens (which include reasoning) to
    candidates_token_count and ADK adds thoughts_token_count: the package's own miscount,
    read as recorded, reasoning tokens read apart."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    leaves = [s for s in spans if s.name.startswith("generate_content")]
    assert [s.attributes["gen_ai.usage.output_tokens"] for s in leaves] == [56, 33, 18]
    assert exp["records"]["output_tokens_extra"] == exp["usage"]["reasoning_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.reasoning_tokens == exp["usage"]["reasoning_tokens"]


@pytest.mark.parametrize("scenario", [s for s in ADK if "-gemini" in s])
def test_adk_gemini_output_tokens_include_thoughts_once(scenario):
    """With Gemini (candidates exclude thoughts) ADK's candidates + thoughts is right."""
    exp = expected(scenario)
    raw = exp["gemini_usage"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.output_tokens == raw["candidates_tokens"] + raw["thoughts_tokens"]
    assert episode.cost.reasoning_tokens == raw["thoughts_tokens"]


@pytest.mark.parametrize("scenario", [s for s in ADK if "-gemini" in s])
def test_adk_gemini_call_ids_are_the_frameworks_not_the_models(scenario):
    """Gemini gives no ids; ADK's own 'adk-<uuid>' ids on the tool spans are kept out of
    the episode (as google-genai's '{name}_{index}' are)."""
    spans = spans_of(scenario)
    ids = [s.attributes["gen_ai.tool.call.id"] for s in spans if sc.span_role(s) == sc.TOOL]
    assert len(ids) == 3 and all(i.startswith("adk-") for i in ids)
    (episode,) = episodes_of(scenario, "pb")
    assert [s.call_id for s in episode.trajectory] == [None, None, None]


@pytest.mark.parametrize("scenario", [s for s in ADK if s.endswith("-legacy")])
def test_adk_legacy_reports_each_call_twice_and_elides_log_content(scenario):
    """Legacy schema: a call_llm span over a generate_content span, both with the usage; the
    gen_ai.choice log events hold '<elided>', which is no answer."""
    exp = expected(scenario)
    spans = spans_of(scenario)
    models = [s for s in spans if sc.span_role(s) == sc.MODEL]
    assert len(models) == 2 * exp["turns"]
    naive = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in models) if u)
    assert naive == 2 * exp["usage"]["input_tokens"]
    records, _ = read(scenario, "pb")
    logs = [r for r in records if not hasattr(r, "parent_span_id")]
    assert any("<elided>" in str(r.body) for r in logs if r.event_name == "gen_ai.choice")
    (episode,) = episodes_of(scenario, "pb")
    assert episode.output == exp["final_text"]
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]


@pytest.mark.parametrize("scenario", [s for s in ADK if s.endswith("-sse")])
def test_adk_streamed_partial_responses_merge_into_the_answer(scenario):
    """SSE mode: each model span records every partial response as an output message
    (finish_reason "") before the complete one. With LiteLlm they repeat the complete one
    (a call first without arguments, the text); with Gemini the first of two parallel calls
    is only in a partial. Read without the tool spans, the model answers alone give each
    call once, in order, with its arguments, and the final text once."""
    import test_real_packages as corpus

    exp = expected(scenario)
    spans = spans_of(scenario)
    outputs = [s.attributes["gen_ai.output.messages"] for s in spans
               if sc.span_role(s) == sc.MODEL]
    assert '"finish_reason":""' in outputs[0]
    if "-litellm" in scenario:
        assert '"arguments":null' in outputs[0]
    else:
        assert outputs[0].count('"type":"tool_call"') == 2  # one in a partial, one after
    models_only = [s for s in spans if sc.span_role(s) != sc.TOOL]
    (episode,) = corpus.build_episodes(corpus.group_traces(models_only))
    assert [(s.tool, dict(s.args), s.call_id) for s in episode.trajectory] == [
        (c["tool"], c["args"], c["call_id"]) for c in exp["calls"]]
    assert episode.output == exp["final_text"]


def _without_model_usage(spans: list) -> list:
    """The spans, with every token count taken off the model-call spans."""
    from dataclasses import replace

    return [replace(s, attributes={k: v for k, v in s.attributes.items()
                                   if not k.startswith("gen_ai.usage.")})
            if sc.span_role(s) == sc.MODEL else s for s in spans]


@pytest.mark.parametrize("scenario", ["pydantic-ai-2.68.0-v5", "pydantic-ai-1.107.10-v2",
                                      "strands-1.62.0"])
def test_agent_totals_stand_in_for_model_calls_without_usage(scenario):
    """When no model span carries usage, the agent span's run totals are read instead
    (pydantic-ai's gen_ai.aggregated_usage.* included), once: every kind it records."""
    import test_real_packages as corpus

    exp = expected(scenario)
    records = exp["records"]
    spans = _without_model_usage(spans_of(scenario))
    (episode,) = corpus.build_episodes(corpus.group_traces(spans))
    usage = exp["usage"]
    assert episode.cost.input_tokens == usage["input_tokens"]
    assert episode.cost.output_tokens == usage["output_tokens"]
    assert episode.cost.cached_input_tokens == usage["cached_input_tokens"]
    assert episode.cost.reasoning_tokens == (usage["reasoning_tokens"]
                                             if records["reasoning"] else 0)
    assert episode.meta["model_calls_without_usage"] == exp["turns"]


def test_adk_event_only_answers_come_from_log_records_that_repeat_the_usage():
    """EVENT_ONLY: the answers only in inference-details log records, which repeat each
    call's usage beside the span's: read for the answers, never counted."""
    scenario = "adk-2.13.0-gemini-event_only"
    exp = expected(scenario)
    records, _ = read(scenario, "pb")
    spans = [r for r in records if hasattr(r, "parent_span_id")]
    logs = [r for r in records if not hasattr(r, "parent_span_id")]
    assert not any("gen_ai.output.messages" in s.attributes for s in spans)
    assert all("gen_ai.output.messages" in r.attributes for r in logs)
    span_usage = sum(u.input_tokens for u in (sc.usage_of(s.attributes) for s in spans) if u)
    log_usage = sum(u.input_tokens for u in (sc.usage_of(r.attributes) for r in logs) if u)
    assert span_usage == log_usage == exp["usage"]["input_tokens"]
    (episode,) = episodes_of(scenario, "pb")
    assert episode.cost.input_tokens == exp["usage"]["input_tokens"]
    assert [dict(s.args) for s in episode.trajectory] == [c["args"] for c in exp["calls"]]


def test_adk_legacy_without_content_writes_empty_json_that_is_no_arguments():
    """ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false: '{}' as every tool span's arguments and
    result; read as not captured (args_captured false), never as a call without arguments."""
    scenario = "adk-2.13.0-gemini-legacy-no_content"
    tools = [s for s in spans_of(scenario) if sc.span_role(s) == sc.TOOL]
    assert {s.attributes["gcp.vertex.agent.tool_call_args"] for s in tools} == {"{}"}
    (episode,) = episodes_of(scenario, "pb")
    assert [s.tool for s in episode.trajectory] == [c["tool"] for c in expected(scenario)[
        "calls"]]
    assert not any(s.args_captured for s in episode.trajectory)
