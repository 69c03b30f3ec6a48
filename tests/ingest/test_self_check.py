"""A self-check over every trace the tests read: the corpus (spans of real packages), the
other projects' trace sets under ``../shared/foreign/external`` (when present), the bundled
example and the generated dumps of ``ek_otel.testing``.

Two promises, checked on each episode and its doctor diagnosis:

- **an episode never contradicts itself**: tokens or an answer imply at least one model
  call (traced, or said untraced: ``meta["untraced_model_calls"]``), and a run with any of
  them is not called "not an agent run";
- **doctor never claims a gap that the same trace fills**: no token gap while a span of the
  trace carries a positive count under a known token key, no arguments gap for a call
  whose own span carries arguments under a known key, no call-id gap while a tool span
  carries an id under a known key.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ek_otel.ingest import semconv as sc
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.diagnose import diagnose_episode
from ek_otel.ingest.records import SpanRecord
from ek_otel.pipeline import read_episodes

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "ingest" / "corpus"


def _foreign_external() -> list:
    base = Path(os.environ.get("EK_OTEL_FOREIGN", ROOT.parent / "shared" / "foreign"))
    external = base / "external"
    return sorted(external.glob("*/traces.json")) if external.is_dir() else []


def _sets() -> list:
    sets = [(f"corpus/{p.name}", sorted(str(f) for f in p.glob("*.pb")))
            for p in sorted(CORPUS.iterdir()) if any(p.glob("*.pb"))]
    sets += [(f"foreign/{p.parent.name}", [str(p)]) for p in _foreign_external()]
    sets.append(("examples/traces.jsonl", [str(ROOT / "examples" / "traces.jsonl")]))
    return sets


SETS = _sets()


def _spans_of(paths: list) -> dict:
    """trace id -> spans, read as the pipeline reads them."""
    from ek_otel.ingest.dumps import read_dump

    spans: dict = {}
    for record in read_dump(paths, report=BadInputReport()):
        if isinstance(record, SpanRecord):
            spans.setdefault(record.trace_id, []).append(record)
    return spans


def _positive(span: SpanRecord, keys: tuple) -> bool:
    return any(isinstance(span.attributes.get(k), (int, float))
               and not isinstance(span.attributes.get(k), bool) and span.attributes[k] > 0
               for k in keys)


def contradictions(paths: list) -> list:
    found = []
    by_trace = _spans_of(paths)
    for episode in read_episodes(paths, report=BadInputReport()):
        trace = episode.provenance.trace_id
        tokens = episode.cost.input_tokens + episode.cost.output_tokens
        said_not_a_run = episode.meta.get("not_an_agent_run")
        if (tokens or episode.output) and not episode.meta.get("model_calls") and not (
                episode.meta.get("unrecorded_model_outputs") or episode.meta.get(
                    "uncaptured_tool_calls") or episode.meta.get("untraced_model_calls")):
            found.append((trace, "tokens or an answer, and no model call"))
        if (tokens or episode.output or episode.trajectory) and said_not_a_run:
            found.append((trace, f"a run's signals, called {said_not_a_run!r}"))
        spans = [s for tid in episode.meta.get("trace_ids", [trace]) for s in by_trace.get(tid, [])]
        if said_not_a_run:
            continue
        diagnosis = diagnose_episode(episode, spans)
        for item, keys in (("input_tokens", sc.INPUT_TOKEN_KEYS),
                           ("output_tokens", sc.OUTPUT_TOKEN_KEYS)):
            if diagnosis.gap(item) and any(_positive(s, keys) for s in spans):
                found.append((trace, f"{item} gap while a span carries a count"))
        by_id = {s.span_id: s for s in spans}
        for step in episode.trajectory:
            own = by_id.get(step.span_id or "")
            if own is None or step.args_captured:
                continue
            if diagnosis.gap("arguments") and any(
                    own.attributes.get(k) not in (None, "", "{}") for k in sc.TOOL_ARGS_KEYS):
                found.append((trace, f"arguments gap while span {own.name!r} has them"))
        if diagnosis.gap("call_ids") and any(
                sc.span_role(s) == sc.TOOL and sc.tool_call_id_of(s.attributes) for s in spans):
            found.append((trace, "call-id gap while a tool span has an id"))
    return found


def test_there_are_trace_sets_to_check():
    assert len([n for n, _ in SETS if n.startswith("corpus/")]) >= 100


@pytest.mark.parametrize("name,paths", SETS, ids=[n for n, _ in SETS])
def test_no_episode_contradicts_itself_and_no_gap_is_filled_elsewhere(name, paths):
    assert contradictions(paths) == []


def test_generated_dumps_pass_the_self_check(tmp_path):
    """The example dump made anew by its generator (the real SDK's spans)."""
    import subprocess
    import sys

    path = tmp_path / "dump.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_example_traces.py"), "-o",
                    str(path)], check=True, capture_output=True)
    assert contradictions([str(path)]) == []
