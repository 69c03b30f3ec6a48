"""Jaeger JSON and Tempo trace JSON as dump formats, found from the content, on files that
Jaeger's and Tempo's own repositories ship as test data: other projects' files, read from
``../shared/foreign/ingest`` (its README names each one's repository, path and commit),
never copied into the tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.episode_dict import episode_to_dict
from ek_otel.ingest.formats import JAEGER, TEMPO, foreign_json_kind
from ek_otel.pipeline import read_episodes

FILES = ("jaeger/otlp2jaeger-in.json", "jaeger/otlp2jaeger-out.json", "jaeger/trace_success.json",
         "jaeger/ui_01.json", "tempo/trace.json", "tempo/vulture-trace.json")


@pytest.fixture
def shipped(foreign):
    """``../shared/foreign/ingest`` (the test skips without it)."""
    return foreign / "ingest"


def records(path: Path) -> list:
    report = BadInputReport()
    found = list(read_dump([str(path)], report=report))
    assert report.ok, report.summary()
    return found


def by_id(found: list) -> dict:
    return {(r.trace_id, r.span_id, r.name): r for r in found}


def test_the_foreign_folder_holds_these_files(shipped):
    assert sorted(str(p.relative_to(shipped)) for p in shipped.glob("*/*.json")) == list(FILES)


@pytest.mark.parametrize("name, kind", [
    ("jaeger/ui_01.json", JAEGER), ("jaeger/trace_success.json", JAEGER),
    ("jaeger/otlp2jaeger-out.json", JAEGER), ("jaeger/otlp2jaeger-in.json", ""),
    ("tempo/trace.json", TEMPO), ("tempo/vulture-trace.json", ""),
])
def test_the_format_is_found_from_the_content(name, kind, shipped):
    assert foreign_json_kind(json.loads((shipped / name).read_text())) == kind


def test_jaegers_own_otlp_and_jaeger_forms_of_one_trace_give_the_same_spans_and_episode(shipped):
    otlp, jaeger = (records(shipped / "jaeger" / f"otlp2jaeger-{side}.json")
                    for side in ("in", "out"))
    assert len(otlp) == len(jaeger) == 2
    for a, b in zip(otlp, jaeger):
        assert (a.trace_id, a.span_id, a.parent_span_id, a.name, a.kind, a.start_ns,
                a.end_ns, a.scope_name, dict(a.attributes), a.resource) == (
            b.trace_id, b.span_id, b.parent_span_id, b.name, b.kind, b.start_ns, b.end_ns,
            b.scope_name, dict(b.attributes), b.resource)
    episodes = [[dict(episode_to_dict(e), provenance=dict(episode_to_dict(e)["provenance"],
                                                         source=""))
                 for e in read_episodes([str(shipped / "jaeger" / f"otlp2jaeger-{side}.json")],
                                        report=BadInputReport())]
                for side in ("in", "out")]
    assert episodes[0] == episodes[1] and len(episodes[0]) == 1


def test_jaeger_references_tags_processes_logs_and_microseconds(shipped):
    spans = records(shipped / "jaeger" / "ui_01.json")
    one = "0" * 31 + "1"
    assert {s.trace_id for s in spans} == {one}  # 64-bit ids padded to 128 bits
    first = spans[0]
    assert (first.span_id, first.start_ns, first.end_ns) == (
        "0" * 15 + "2", 1485467191639875000, 1485467191639880000)
    assert [e.name for e in first.events] == ["some-event", "log"]
    assert first.events[1].attributes == {"x": "y"}
    assert first.resource == {"service.name": "service-x"}
    tagged = spans[1]
    assert (tagged.attributes["peer.ipv4"], tagged.attributes["temperature"],
            tagged.attributes["blob"], tagged.status_code) == (23456, 72.5, b"\x00\x0009", 2)
    ref = next(s for s in spans if s.name == "reference-test")
    # CHILD_OF within the trace is the parent; another trace's span and FOLLOWS_FROM: links
    assert ref.parent_span_id == "0" * 15 + "2"
    assert sorted((link.trace_id[-2:], link.span_id[-2:]) for link in ref.links) == [
        ("01", "02"), ("ff", "ff")]


def test_jaeger_spans_with_their_own_process_and_a_string_bool_error(shipped):
    spans = records(shipped / "jaeger" / "trace_success.json")
    assert [s.resource["service.name"] for s in spans] == ["16af988c443cff37", "3c220036602f839e"]
    assert [s.kind for s in spans] == [2, 3] and spans[1].status_code == 2


def test_tempo_batches_and_base64_ids(shipped):
    (span,) = records(shipped / "tempo" / "trace.json")
    assert span.trace_id == "5b8efff798038103d269b633813fc60c"
    assert (span.scope_name, span.scope_version, span.resource["service.name"]) == (
        "my.library", "1.0.0", "my.service")
    vulture = records(shipped / "tempo" / "vulture-trace.json")
    assert len({s.trace_id for s in vulture}) == 1 and len(vulture) > 5


def test_episodes_and_doctor_read_them_from_the_command_line(shipped):
    runner = CliRunner()
    for name in ("jaeger/otlp2jaeger-out.json", "tempo/trace.json", "jaeger/ui_01.json"):
        result = runner.invoke(cli, ["episodes", str(shipped / name)])
        assert result.exit_code == 0 and "not an OTLP" not in result.output, result.output
    assert runner.invoke(cli, ["doctor", str(shipped / "tempo" / "trace.json")]).exit_code == 0
