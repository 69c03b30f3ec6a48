"""Traces other projects' test suites hold (logfire's integration tests, the Vercel AI SDK's
telemetry snapshots, Langfuse's OTel mapping tests, agentevals' and OpenInference's
fixtures), converted to OTLP JSON by ``scripts/external_fixtures.py``. The traces are other
projects' data, so they live outside the repository, in ``../shared/foreign/external/<name>/``
(``traces.json``, ``SOURCE.json``, and the data file itself where the origin is one); what
is ours stays here: each fixture's episode, written by hand from the raw spans, in
``tests/ingest/external/<name>/expected.json`` (an answer longer than 60 characters by its
length and SHA-256, never quoted).

1. the converter, re-run offline on each origin that is a data file, reproduces its
   ``traces.json`` byte for byte, and lists exactly the liberties ``SOURCE.json`` records
   (an origin that is another project's test code is kept nowhere: only its conversion);
2. each episode is the expected one: runs and non-runs, tool calls with their arguments,
   call ids, ``hosted`` and errors, tokens by kind, the answer, the number of model calls;
3. ``ek-otel doctor`` reports exactly the real gaps: a gap marked ``real`` must be reported
   as certain, one marked ``possible`` (the package does not record the item, and the spans
   cannot say whether the run had any) as possible, and nothing else. ``tally()`` counts
   the false and missed gaps (``python -m tests.ingest.test_doctor_truth`` prints them with
   the corpus's).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.pipeline import diagnose_dumps, read_episodes
from tests.outside import FOREIGN_MISSING, find_foreign, foreign_folder

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "external"
FIXTURES = sorted(p.name for p in EXPECTED.iterdir() if (p / "expected.json").is_file())
#: The longest answer ``expected.json`` may quote; a longer one is given by length and hash.
QUOTE_LIMIT = 60
#: The formats whose origin is another project's test code (no extract of it is kept).
CODE_FORMATS = {"logfire-snapshot", "otlp-js", "vitest-inline"}


def _converter():
    spec = importlib.util.spec_from_file_location("external_fixtures",
                                                  ROOT / "scripts" / "external_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_of(name: str) -> dict:
    return json.loads((EXPECTED / name / "expected.json").read_text())


def _folder(name: str) -> Path:
    """The fixture's folder of ``../shared/foreign/external`` (the test skips without it)."""
    folder = foreign_folder() / "external" / name
    assert (folder / "traces.json").is_file(), f"{folder}: no traces.json"
    return folder


def _source(name: str) -> dict:
    return json.loads((_folder(name) / "SOURCE.json").read_text())


def _traces(name: str) -> list:
    return [str(_folder(name) / "traces.json")]


def answer_view(answer):
    """An answer as ``expected.json`` gives it: itself up to :data:`QUOTE_LIMIT` characters,
    else its length and SHA-256 (other projects' texts are not quoted at length).

    >>> answer_view("Sunny.")
    'Sunny.'
    >>> answer_view("x" * 61)["length"]
    61
    """
    if not isinstance(answer, str) or len(answer) <= QUOTE_LIMIT:
        return answer
    return {"length": len(answer), "sha256": hashlib.sha256(answer.encode()).hexdigest()}


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
        "answer": answer_view(episode.output),
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
    """``(fixtures, false, missed)`` over every external fixture (it needs the foreign folder).
    """
    if find_foreign() is None:
        raise SystemExit(FOREIGN_MISSING)
    false, missed = [], []
    for name in FIXTURES:
        f, m = gap_errors(name)
        false += f
        missed += m
    return len(FIXTURES), false, missed


def test_there_are_the_named_sources_and_more_than_ten_others():
    sources = {(_source(n)["repository"], _source(n)["path"]) for n in FIXTURES}
    named = {("pydantic/logfire", "tests/otel_integrations/test_google_genai.py"),
             ("pydantic/logfire", "tests/otel_integrations/test_openai_agents.py"),
             ("pydantic/logfire", "tests/otel_integrations/test_openai_agents_mcp.py"),
             ("langfuse/langfuse", "web/src/__tests__/server/api/otel/otelMapping.servertest.ts")}
    assert named <= sources
    assert len(FIXTURES) >= 3 + 10


def test_every_folder_of_the_foreign_traces_has_its_expected_episode_here():
    found = find_foreign()
    if found is None:
        foreign_folder()  # skips (fails in CI)
    folders = sorted(p.name for p in (found / "external").iterdir()
                     if (p / "SOURCE.json").is_file())
    assert folders == FIXTURES


def test_the_doc_lists_every_fixture():
    doc = (ROOT / "docs" / "traces-from-elsewhere.md").read_text()
    assert [name for name in FIXTURES if f"| `{name}` |" not in doc] == []
    assert f"the {len(FIXTURES)} external fixtures" in doc


@pytest.mark.parametrize("name", FIXTURES)
def test_expected_quotes_no_answer_longer_than_the_limit(name):
    for trace, run in expected_of(name)["runs"].items():
        answer = run["answer"]
        assert answer is None or (isinstance(answer, str) and len(answer) <= QUOTE_LIMIT) or (
            set(answer) == {"length", "sha256"} and answer["length"] > QUOTE_LIMIT
            and len(answer["sha256"]) == 64), (name, trace)


@pytest.mark.parametrize("name", FIXTURES)
def test_source_names_its_repository_path_commit_and_lines(name):
    meta = _source(name)
    assert meta["repository"].count("/") == 1 and meta["path"] and meta["case"]
    assert len(meta["commit"]) == 40 and int(meta["commit"], 16) >= 0
    ranges = meta["lines"] if isinstance(meta["lines"][0], list) else [meta["lines"]]
    assert all(0 < first <= last for first, last in ranges)
    extract = _folder(name) / _converter().SOURCE_NAMES[meta["format"]]
    if meta["format"] in CODE_FORMATS:  # another project's code is kept nowhere
        assert not extract.exists(), extract
    else:  # a data file: its lines, as they are there
        lines = extract.read_text().splitlines()
        assert len(lines) == sum(last - first + 1 for first, last in ranges)


def _data_origins() -> list:
    """The fixtures whose origin is a data file (all of them, each skipping, without the
    foreign folder)."""
    if find_foreign() is None:
        return FIXTURES
    return [n for n in FIXTURES if _source(n)["format"] not in CODE_FORMATS]


@pytest.mark.parametrize("name", _data_origins())
def test_the_converter_reproduces_the_otlp_json_and_liberties(name):
    folder = _folder(name)
    text, liberties = _converter().convert(folder)
    assert text == (folder / "traces.json").read_text(), (
        "stale: python scripts/external_fixtures.py --check says which")
    assert liberties == _source(name)["liberties"]


def _convert_one(folder: Path, meta: dict, extract: str, text: str) -> tuple:
    """``(the one span, liberties)`` of a fixture folder written here from its parts."""
    folder.mkdir()
    (folder / "SOURCE.json").write_text(json.dumps(meta))
    (folder / extract).write_text(text)
    converted, liberties = _converter().convert(folder)
    (span,) = json.loads(converted)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return span, liberties


def test_the_converter_reads_test_code_snapshots_written_here(tmp_path):
    """The forms whose origins are other projects' test code, on snippets written here: a
    logfire inline snapshot (dirty-equals placeholders) and a protobuf.js OTLP object."""
    span, liberties = _convert_one(
        tmp_path / "logfire", {"format": "logfire-snapshot", "scope": {"name": "logfire.x"}},
        "source.py.txt",
        "    assert exporter.exported_spans_as_dict() == snapshot([\n"
        "        {'name': 'chat m', 'context': {'trace_id': 1, 'span_id': 3},\n"
        "         'parent': {'trace_id': 1, 'span_id': 2}, 'start_time': 5,\n"
        "         'end_time': IsInt(), 'attributes': {'a': IsStr(), 'n': [1, 2]}}])\n")
    assert (span["traceId"], span["spanId"], span["parentSpanId"]) == ("0" * 31 + "1",
                                                                        "0" * 15 + "3",
                                                                        "0" * 15 + "2")
    assert span["attributes"] == [{"key": "a", "value": {"stringValue": "IsStr()"}},
                                  {"key": "n", "value": {"stringValue": "[1,2]"}}]
    assert span["endTimeUnixNano"] == "0"  # 1 s before the earliest time, floored at 0
    assert "span 'chat m': end_time IsInt() in the snapshot; 0 written (1 s before the " \
           "earliest time)" in liberties
    span, liberties = _convert_one(
        tmp_path / "js", {"format": "otlp-js"}, "source.ts.txt",
        'const traceId = "0af7651916cd43dd8448eb211c80319c";\n'
        "const req = {scopeSpans: [{scope: {name: 's'}, spans: [{\n"
        '  traceId: Buffer.from(traceId, "hex"), spanId: {type: "Buffer", data: [1, 2, 3, 4, 5, 6, 7, 8]},\n'
        "  parentSpanId: '', name: 'x', startTimeUnixNano: {low: 1, high: 1, unsigned: true},\n"
        "  attributes: [{key: 'k', value: {stringValue: JSON.stringify({a: 1})}}],\n"
        "}]}]};\n")
    assert span["traceId"] == "0af7651916cd43dd8448eb211c80319c"
    assert span["spanId"] == "0102030405060708" and "parentSpanId" not in span
    assert span["startTimeUnixNano"] == str(2 ** 32 + 1)
    assert span["attributes"][0]["value"] == {"stringValue": '{"a":1}'}
    assert "span 'x': no endTimeUnixNano; left out" in liberties


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
