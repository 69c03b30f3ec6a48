"""``ek-otel doctor``'s data, on spans of the real packages (tests/ingest/corpus): the
framework recognised, and each gap the package leaves with its fix, agree with the ground
truth each scenario carries (``records`` of expected.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.diagnose import diagnose
from ek_otel.ingest.instrumentations import INSTRUMENTATIONS, SUPPORT_ITEMS, recognise
from ek_otel.pipeline import diagnose_dumps

CORPUS = Path(__file__).resolve().parent / "corpus"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())
FRAMEWORK_SCENARIOS = [s for s in SCENARIOS if "support" in json.loads(
    (CORPUS / s / "expected.json").read_text())["records"]]
BUILT_IN = [s for s in SCENARIOS if s not in FRAMEWORK_SCENARIOS]


def records(scenario: str) -> dict:
    return json.loads((CORPUS / scenario / "expected.json").read_text())["records"]


def diagnosis(scenario: str, form: str = "pb"):
    files = sorted(str(p) for p in (CORPUS / scenario).glob(f"*.{form}"))
    report = BadInputReport()
    result = diagnose_dumps(files, report=report)
    assert len(result.traces) == 1, scenario
    return result.traces[0]


def norm(name) -> str:
    return re.sub(r"[^a-z0-9]", "", (name or "").lower())


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_protobuf_and_json_forms_give_the_same_diagnosis(scenario):
    assert diagnosis(scenario, "pb").to_dict() == diagnosis(scenario, "jsonl").to_dict()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scope_of_a_package_is_recognised(scenario):
    """Every scope in the corpus but the test app's own is in the table."""
    trace = diagnosis(scenario)
    unknown = [s.name for s in trace.scopes if s.known is None and s.name != "ek-otel.corpus.app"]
    assert unknown == []
    assert trace.framework is not None


@pytest.mark.parametrize("scenario", BUILT_IN)
def test_built_in_scenarios_report_an_arguments_gap_exactly_when_arguments_were_not_recorded(scenario):
    gap = diagnosis(scenario).gap("arguments")
    assert (gap is not None) == (not records(scenario)["args"])
    if gap is not None:
        assert gap.certain and gap.fix


@pytest.mark.parametrize("scenario, needle", [
    ("openai-v2-2.4b0-no_content", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
    ("anthropic-openinference-3.1.0-hidden", "OPENINFERENCE_HIDE_INPUTS"),
    ("anthropic-traceloop-0.62.4-no_content", "TRACELOOP_TRACE_CONTENT"),
    ("langgraph-agent-traceloop-0.62.4-no_content", "TRACELOOP_TRACE_CONTENT"),
    ("anthropic-sdk-2.14.0-native", "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content"),
    ("google-genai-1.3b0-no_content", "SPAN_ONLY"),
])
def test_the_gap_names_the_setting_that_fixes_it(scenario, needle):
    assert needle in diagnosis(scenario).gap("arguments").fix


@pytest.mark.parametrize("scenario, framework", [
    ("agents-openinference-with-client", "OpenAI Agents SDK"),
    ("agents-otel-v2-alone", "OpenAI Agents SDK"),
    ("logfire-agents", "OpenAI Agents SDK"),
    ("langgraph-agent-openinference-0.1.80", "LangChain / LangGraph"),
    ("langfuse-openai-5.0.4", "Langfuse"),
    ("traceloop-0.62.4", "OpenAI client"),
    ("google-genai-1.3b0", "Google GenAI client"),
    ("litellm-1.110.2", "LiteLLM"),
])
def test_the_framework_is_the_agent_framework_before_the_client(scenario, framework):
    assert diagnosis(scenario).framework == framework


def test_a_full_trace_has_no_gap_and_names_what_it_read():
    trace = diagnosis("langgraph-agent-openinference-0.1.80")
    assert trace.gaps == ()
    assert (trace.read.model_calls, trace.read.tool_calls, trace.read.executed,
            trace.read.args_missing, trace.read.call_ids) == (3, 3, 3, 0, 3)
    assert dict(trace.unread_spans) == {"model": 3, "tools": 3}   # LangGraph's node spans


@pytest.mark.parametrize("scenario", FRAMEWORK_SCENARIOS)
def test_framework_scenarios_agree_with_their_support_record(scenario):
    """A framework scenario's ``records`` say, per item, whether the package records it; what
    it does not record (and has a fix for) is a gap of the doctor, what is read is none."""
    record = records(scenario)
    trace = diagnosis(scenario)
    assert norm(trace.framework) == norm(record["framework"])
    for item in SUPPORT_ITEMS:
        state = record["support"][item]
        gap = trace.gap(item)
        if state == "not_recorded" and item in record.get("fixes", {}):
            assert gap is not None and gap.fix, (item, trace.gaps)
        elif state == "read":
            assert gap is None or not gap.certain, (item, gap)


def test_totals_add_up_and_count_traces_per_gap():
    files = [str(p) for s in ("openai-v2-2.4b0-no_content", "traceloop-0.62.4",
                              "anthropic-openinference-3.1.0-hidden") for p in (CORPUS / s).glob("*.pb")]
    result = diagnose_dumps(files, report=BadInputReport())
    assert result.total.traces == 3
    assert result.total.read.model_calls == sum(t.read.model_calls for t in result.traces) == 9
    gaps = {(g.item, n) for g, n in result.total.gaps}
    assert ("arguments", 1) in gaps and len([g for g, _ in result.total.gaps if g.item == "arguments"]) == 2


def test_the_table_recognises_by_exact_name_or_prefix_and_agent_frameworks_come_first():
    assert recognise("ai").framework == "Vercel AI SDK"
    assert recognise("aim") is None
    assert recognise("opentelemetry.instrumentation.openai_agents").framework == "OpenAI Agents SDK"
    assert recognise("opentelemetry.instrumentation.openai.v1").framework == "OpenAI client"
    kinds = [i.kind for i in INSTRUMENTATIONS]
    assert kinds == sorted(kinds, key=lambda k: k != "framework")
    for instrumentation in INSTRUMENTATIONS:
        assert set(instrumentation.fixes) <= set(SUPPORT_ITEMS)
        assert set(instrumentation.limits) <= set(SUPPORT_ITEMS)


def test_an_empty_input_has_an_empty_total():
    result = diagnose([])
    assert (result.total.traces, result.total.gaps, result.to_dict()["traces"]) == (0, (), [])


def _one_span_dump(tmp_path, attributes: dict, scope: str) -> list:
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "openai.chat",
            "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            "attributes": [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                            else {"stringValue": v}} for k, v in attributes.items()]}
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [
        {"scope": {"name": scope, "version": "0.47.3"}, "spans": [span]}]}]}))
    (trace,) = diagnose_dumps([str(path)], report=BadInputReport()).traces
    return {gap.item: gap.certain for gap in trace.gaps}


def test_a_recorded_zero_is_no_possible_gap_whatever_the_packages_known_limits(tmp_path):
    base = {"gen_ai.system": "openai", "llm.request.type": "chat",
            "gen_ai.usage.prompt_tokens": 1820, "gen_ai.usage.completion_tokens": 13}
    scope = "opentelemetry.instrumentation.openai.v1"  # its row: reasoning not recorded
    assert _one_span_dump(tmp_path, base, scope).get("reasoning_tokens") is False  # possible
    recorded = _one_span_dump(tmp_path, {**base, "gen_ai.usage.reasoning_tokens": 0}, scope)
    assert "reasoning_tokens" not in recorded


def test_a_model_call_without_any_count_lacks_input_and_output_surely_the_rest_possibly(tmp_path):
    gaps = _one_span_dump(tmp_path, {"gen_ai.operation.name": "chat",
                                     "gen_ai.response.model": "gpt-4-0613"}, "some.scope")
    assert {k: gaps[k] for k in ("input_tokens", "output_tokens", "cached_tokens",
                                 "reasoning_tokens")} == {
        "input_tokens": True, "output_tokens": True, "cached_tokens": False,
        "reasoning_tokens": False}
