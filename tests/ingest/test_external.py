"""Traces other projects' test suites hold (``tests/ingest/external``: logfire's integration
tests, the Vercel AI SDK's telemetry snapshots, Langfuse's OTel mapping tests), converted to
OTLP JSON by ``scripts/external_fixtures.py``, each with its episode written by hand from the
raw spans (``expected.json``).

1. the converter, re-run offline on each committed extract, reproduces its ``traces.json``
   byte for byte, and lists exactly the liberties ``SOURCE.json`` records;
2. each episode is the expected one: runs and non-runs, tool calls with their arguments,
   call ids, ``hosted`` and errors, tokens by kind, the answer, the number of model calls;
3. ``ek-otel doctor`` reports exactly the real gaps: a gap marked ``real`` must be reported
   as certain, one marked ``possible`` (the package does not record the item, and the spans
   cannot say whether the run had any) as possible, and nothing else. ``tally()`` counts
   the false and missed gaps (``python -m tests.ingest.test_doctor_truth`` prints them with
   the corpus's).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.pipeline import diagnose_dumps, read_episodes

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = Path(__file__).resolve().parent / "external"
FIXTURES = sorted(p.name for p in EXTERNAL.iterdir() if (p / "SOURCE.json").is_file())


def _converter():
    spec = importlib.util.spec_from_file_location("external_fixtures",
                                                  ROOT / "scripts" / "external_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_of(name: str) -> dict:
    return json.loads((EXTERNAL / name / "expected.json").read_text())


def _traces(name: str) -> list:
    return [str(EXTERNAL / name / "traces.json")]


def episode_view(episode) -> dict:
    """What ``expected.json`` says of a run, read from an episode."""
    cost = episode.cost
    return {
        "task_id": episode.task_id or None,
        "steps": [{"tool": s.tool, "args": dict(s.args), "call_id": s.call_id,
                   "hosted": bool(getattr(s, "hosted", False)),
                   "args_captured": s.args_captured, "error": s.error}
                  for s in episode.trajectory.steps],
        "tokens": {"input": cost.input_tokens, "output": cost.output_tokens,
                   "cached": cost.cached_input_tokens, "reasoning": cost.reasoning_tokens},
        "answer": episode.output,
        "model_calls": episode.meta.get("model_calls"),
    }


def reported(name: str) -> dict:
    """trace id -> {item: "real" | "possible"}: the gaps doctor reports."""
    diagnosis = diagnose_dumps(_traces(name), report=BadInputReport())
    return {trace.trace_id: {gap.item: "real" if gap.certain else "possible"
                             for gap in trace.gaps}
            for trace in diagnosis.traces}


def gap_errors(name: str) -> tuple:
    """``(false, missed)`` of one fixture: ``(fixture, trace, item, what)`` each. A false gap is
    reported where there is none, or said certain where it is only possible; a missed gap is
    not reported, or said only possible where it is certain."""
    truth = {trace: run["gaps"] for trace, run in expected_of(name)["runs"].items()}
    said = reported(name)
    false, missed = [], []
    for trace in sorted(set(truth) | set(said)):
        real, told = truth.get(trace, {}), said.get(trace, {})
        for item in sorted(set(real) | set(told)):
            if item not in real:
                false.append((name, trace, item, "not a gap"))
            elif item not in told:
                missed.append((name, trace, item, "not reported"))
            elif real[item] == "possible" and told[item] == "real":
                false.append((name, trace, item, "said certain, only possible"))
            elif real[item] == "real" and told[item] == "possible":
                missed.append((name, trace, item, "said only possible"))
    return false, missed


def tally() -> tuple:
    """``(fixtures, false, missed)`` over every external fixture."""
    false, missed = [], []
    for name in FIXTURES:
        f, m = gap_errors(name)
        false += f
        missed += m
    return len(FIXTURES), false, missed


def test_there_are_the_named_sources_and_more_than_ten_others():
    sources = {(json.loads((EXTERNAL / n / "SOURCE.json").read_text())["repository"],
                json.loads((EXTERNAL / n / "SOURCE.json").read_text())["path"]) for n in FIXTURES}
    named = {("pydantic/logfire", "tests/otel_integrations/test_google_genai.py"),
             ("pydantic/logfire", "tests/otel_integrations/test_openai_agents.py"),
             ("pydantic/logfire", "tests/otel_integrations/test_openai_agents_mcp.py"),
             ("langfuse/langfuse", "web/src/__tests__/server/api/otel/otelMapping.servertest.ts")}
    assert named <= sources
    assert len(FIXTURES) >= 3 + 10


def test_the_doc_lists_every_fixture():
    doc = (ROOT / "docs" / "traces-from-elsewhere.md").read_text()
    assert [name for name in FIXTURES if f"| `{name}` |" not in doc] == []
    assert f"the {len(FIXTURES)} external fixtures" in doc


@pytest.mark.parametrize("name", FIXTURES)
def test_source_names_its_repository_path_commit_and_lines(name):
    meta = json.loads((EXTERNAL / name / "SOURCE.json").read_text())
    assert meta["repository"].count("/") == 1 and meta["path"] and meta["case"]
    assert len(meta["commit"]) == 40 and int(meta["commit"], 16) >= 0
    ranges = meta["lines"] if isinstance(meta["lines"][0], list) else [meta["lines"]]
    extract = (EXTERNAL / name / _converter().SOURCE_NAMES[meta["format"]]).read_text()
    assert all(0 < first <= last for first, last in ranges)
    assert len(extract.splitlines()) == sum(last - first + 1 for first, last in ranges)


@pytest.mark.parametrize("name", FIXTURES)
def test_the_converter_reproduces_the_committed_otlp_json_and_liberties(name):
    text, liberties = _converter().convert(EXTERNAL / name)
    assert text == (EXTERNAL / name / "traces.json").read_text(), (
        "stale: run python scripts/external_fixtures.py")
    assert liberties == json.loads((EXTERNAL / name / "SOURCE.json").read_text())["liberties"]


def test_a_source_the_converter_cannot_read_faithfully_is_refused(tmp_path):
    converter = _converter()
    (tmp_path / "SOURCE.json").write_text(json.dumps({"format": "logfire-snapshot",
                                                      "scope": {"name": "x"}}))
    (tmp_path / "source.py.txt").write_text("snapshot([{'name': f(x)}])\n")
    with pytest.raises(converter.ConversionError, match="line 1: not a literal: f"):
        converter.convert(tmp_path)
    (tmp_path / "SOURCE.json").write_text(json.dumps({"format": "nope"}))
    with pytest.raises(converter.ConversionError, match="unknown format 'nope'"):
        converter.convert(tmp_path)


@pytest.mark.parametrize("name", FIXTURES)
def test_each_episode_is_the_one_written_by_hand_from_the_raw_spans(name):
    expected = expected_of(name)
    episodes = list(read_episodes(_traces(name), report=BadInputReport()))
    not_runs = {e.provenance.trace_id: e.meta["not_an_agent_run"] for e in episodes
                if e.meta.get("not_an_agent_run")}
    runs = {e.provenance.trace_id: episode_view(e) for e in episodes
            if e.provenance.trace_id not in not_runs}
    assert not_runs == expected["not_runs"]
    assert runs == {trace: {k: v for k, v in run.items() if k != "gaps"}
                    for trace, run in expected["runs"].items()}


def test_one_call_in_three_conventions_is_one_episode():
    """openinference-genai's fixtures: the same chat call as OTel GenAI messages, as the
    deprecated gen_ai.prompt / gen_ai.completion attributes, and as OpenInference."""
    views = []
    for name in ("openinference-genai-chat-tool-history",
                 "openinference-genai-deprecated-chat-tool-history",
                 "openinference-llm-span-tool-history"):
        (episode,) = read_episodes(_traces(name), report=BadInputReport())
        views.append(episode_view(episode))
    assert views[0] == views[1] == views[2]
    assert views[0]["answer"] and views[0]["tokens"]["input"] == 97


def test_a_logfire_stream_read_outside_the_trace_is_advised_as_such():
    """The request asked for usage, yet logfire did not drop it: it wrote the answer and the
    usage into the 'streaming response' log, in another trace."""
    diagnosis = diagnose_dumps(_traces("logfire-openai-chat-tool-call-stream"),
                               report=BadInputReport())
    first = next(t for t in diagnosis.traces if t.trace_id.endswith("1"))
    fixes = {gap.item: gap.fix for gap in first.gaps}
    assert "'streaming response from ...' log" in fixes["input_tokens"]
    assert fixes["arguments"] == fixes["input_tokens"]


@pytest.mark.parametrize("name", FIXTURES)
def test_doctor_reports_exactly_the_real_gaps(name):
    false, missed = gap_errors(name)
    assert false == [], "false gaps"
    assert missed == [], "missed gaps"


if __name__ == "__main__":
    count, false, missed = tally()
    print(f"{count} external fixtures: {len(false)} false gaps, {len(missed)} missed gaps")
    for row in false + missed:
        print("  ", *row)
