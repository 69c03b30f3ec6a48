"""The lazy (simdjson) reader of large OTLP JSON documents gives what the plain path gives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ek_otel.ingest import json_document
from ek_otel.ingest.assemble import group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.json_document import check_json, decode_document
from ek_otel.ingest.records import Origin
from ek_otel.ingest.shard import Shard

CORPUS = Path(__file__).parent / "corpus"
BENCH = Path(__file__).parents[2] / "bench"

TRACE = "5b8efff798038103d269b633813fc60c"
SHARDINGS = (None, (0, 2), (1, 2), (0, 3), (2, 3))


def _read(body: bytes, sharding, lazy: bool) -> tuple:
    """(records as repr, the report, the shard clock): all that must agree, to the type."""
    shard = Shard(*sharding) if sharding else None
    report = shard if shard is not None else BadInputReport()
    records = [repr(r) for r in decode_document(body, Origin("d.json", 1), report, shard, lazy=lazy)]
    if shard is not None:
        return records, shard.state(), shard.clock
    return records, (report.counts, [str(c) for c in report.cases]), None


def assert_same(body: bytes) -> None:
    for sharding in SHARDINGS:
        assert _read(body, sharding, True) == _read(body, sharding, False), sharding


def _span(**extra) -> dict:
    span = {"traceId": TRACE, "spanId": "eee19b7ec3c1b174", "name": "chat", "kind": 3,
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "n", "value": {"intValue": "7"}}, {"key": "x", "value": {"doubleValue": 1.0}}]}
    span.update(extra)
    return span


def _request(spans: list, resource: object = None) -> dict:
    batch = {"resource": resource if resource is not None else {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent"}}]},
        "scopeSpans": [{"scope": {"name": "s", "version": "1"}, "spans": spans}]}
    return {"resourceSpans": [batch]}


def _body(obj: object) -> bytes:
    return json.dumps(obj).encode()


def test_the_bench_agent_runs_give_identical_records_reports_and_clocks():
    sys.path.insert(0, str(BENCH))
    import ingest  # bench/ingest.py: the generator of the bench dumps

    body = ingest.batch_to_json(list(ingest.generate_spans(3_000)))
    assert_same(body)
    assert len(_read(body, None, True)[0]) == 3_000


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/traces.jsonl")), ids=lambda p: p.parent.name)
def test_real_sdk_exports_give_identical_records(path):
    """Every request the real exporters wrote (tests/ingest/corpus), read lazily and plainly."""
    for line in path.read_bytes().splitlines():
        if line.strip():
            assert_same(line)


@pytest.mark.parametrize("body", [
    _body(_request([_span(traceId="zz")])),                                  # invalid id
    _body(_request([_span(), ["not", "a", "span"], 7, None])),              # spans that are not objects
    _body(_request([_span(attributes={"key": "a"})])),                      # attributes not a list
    _body(_request([_span(attributes=[{"key": "a", "value": {"intValue": "x"}}])])),
    _body(_request([_span(status={"code": "STATUS_CODE_ERROR", "message": "boom"})])),
    _body(_request([_span(status=[1])])),
    _body(_request([_span(kind="SPAN_KIND_CLIENT", name=5)])),
    _body(_request([_span(events=[{"name": "e", "timeUnixNano": "5", "attributes": [
        {"key": "k", "value": {"stringValue": "v"}}]}], links=[{"traceId": TRACE, "spanId": "eee19b7ec3c1b174"}])])),
    _body(_request([_span(events={"name": "e"})])),
    _body(_request([_span()], resource={"attributes": [{"key": "bad", "value": {"arrayValue": 3}}]})),
    _body(_request([_span()], resource=[1])),
    _body({"resourceSpans": {"not": "a list"}}),
    _body({"resourceSpans": [3]}),
    _body({"resourceSpans": [{"scopeSpans": [3]}]}),
    _body({"resourceSpans": [{"scopeSpans": [{"spans": {"a": 1}}]}]}),
    _body({"resource_spans": [{"scope_spans": [{"scope": {"name": "snake"}, "spans": [_span(trace_id=TRACE)]}]}]}),
    _body({"resourceSpans": [{"instrumentationLibrarySpans": [{"instrumentationLibrary": {"name": "old"},
                                                               "spans": [_span()]}]}]}),
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [' + _body(_span())[:-1] + b', "name": "dup"}]}]}]}',
    b'{"resourceSpans": [], "resourceSpans": [{"scopeSpans": [{"spans": [' + _body(_span()) + b"]}]}]}",
    b'\xef\xbb\xbf' + _body(_request([_span()])),                            # a byte order mark
    _body(_request([_span(attributes=[{"key": "big", "value": {"intValue": 18446744073709551616}}])])),
    _body(_request([_span(name="caf\u00e9 \ud83d\ude00")])),
    _body(_request([_span()])).replace(b'"chat"', b'"ca\xff"', 1),          # invalid UTF-8: repaired
    _body(_request([_span()])) + b" trailing",                              # invalid JSON
    b'{"resourceSpans": [' + b"[" * 1100 + b"]" * 1100 + b"]}",             # nesting too deep
    _body([_request([_span()]), _request([_span(spanId="1111111111111111")])]),  # an array of requests
    _body({**_request([_span()]), "resourceLogs": []}),                     # traces and logs
    _body({"resourceMetrics": []}),
    _body({"nothing": 1}),
])
def test_bad_and_odd_input_gives_the_same_records_and_report(body):
    assert_same(body)


def test_a_light_read_skips_attributes_only_for_other_shards_traces():
    body = _body(_request([_span()]))
    owner = next(i for i in range(2) if Shard(i, 2).owns(TRACE))
    (full,), _, _ = _read(body, (owner, 2), True)
    (light,), _, _ = _read(body, (1 - owner, 2), True)
    assert "gen_ai.operation.name" in full and "gen_ai.operation.name" not in light


def test_without_simdjson_the_plain_path_is_taken(monkeypatch):
    body = _body(_request([_span()]))
    expected = _read(body, None, False)
    monkeypatch.setattr(json_document, "_simdjson", None)
    assert _read(body, None, None) == expected
    with pytest.raises(RuntimeError, match="pip install pysimdjson"):
        list(decode_document(body, lazy=True))
    check_json(body)


def _dump_records(path: str) -> tuple:
    report = BadInputReport()
    groups = [(g.trace_id, [repr(s) for s in g.spans]) for g in group_traces(read_dump([path], report=report))]
    return groups, report.counts, [str(c) for c in report.cases]


@pytest.mark.parametrize("pretty", [False, True])
def test_read_dump_of_a_large_document_is_the_same_with_and_without_simdjson(tmp_path, monkeypatch, pretty):
    """The dumps hook: one large request (one line, or pretty-printed) read both ways."""
    sys.path.insert(0, str(BENCH))
    import ingest

    spans = list(ingest.generate_spans(400))
    body = ingest.batch_to_json(spans)
    path = tmp_path / "request.json"
    path.write_bytes(json.dumps(json.loads(body), indent=1).encode() if pretty else body)
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1000)
    parsed = []
    real_parse = json_document._parse
    monkeypatch.setattr(json_document, "_parse", lambda b: parsed.append(len(b)) or real_parse(b))
    lazy = _dump_records(str(path))
    assert parsed and lazy[0] and not lazy[1]
    monkeypatch.setattr(json_document, "_simdjson", None)
    assert _dump_records(str(path)) == lazy


def test_a_large_first_line_that_is_not_a_whole_document_is_read_as_json_lines(tmp_path, monkeypatch):
    """check_json refuses it as parse_json does: the file is then read line by line."""
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 10)
    good = _body(_request([_span()]))
    path = tmp_path / "d.jsonl"
    path.write_bytes(good + b"\n" + good[:-5] + b"\n" + _body(_request([_span(spanId="1111111111111111")])) + b"\n")
    lazy = _dump_records(str(path))
    monkeypatch.setattr(json_document, "_simdjson", None)
    assert _dump_records(str(path)) == lazy
    assert lazy[1] == {"invalid JSON": 1}
