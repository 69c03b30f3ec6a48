"""The span-by-span reader of large OTLP JSON documents gives what the plain path gives
(one orjson parse of the whole text): the same records, to the type, the same bad-input
report and the same shard clock."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ek_otel.ingest import json_document
from ek_otel.ingest.assemble import group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.json_document import _pairs, check_json, decode_document, scan_document
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
    assert scan_document(body).spans == 3_000  # read span by span, not the plain way


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/traces.jsonl")), ids=lambda p: p.parent.name)
def test_real_sdk_exports_give_identical_records(path):
    """Every request the real exporters wrote (tests/ingest/corpus), read lazily and plainly."""
    scanned = 0
    for line in path.read_bytes().splitlines():
        if line.strip():
            assert_same(line)
            document = scan_document(line)
            if document is not None:
                scanned += 1
                assert [json.loads(line[a:b]) for a, b in _pairs(document)] == [
                    span for batch in json.loads(line)["resourceSpans"]
                    for scoped in batch["scopeSpans"] for span in scoped["spans"]]
    assert scanned, "no request of this export was read span by span"


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


def _spans_request(spans_text: bytes) -> bytes:
    return b'{"resourceSpans": [{"scopeSpans": [{"scope": {"name": "s"}, "spans": ' + spans_text + b"}]}]}"


@pytest.mark.parametrize("body", [
    # links and events: candidate ends inside a span (a nested object starting with a span field)
    _body(_request([_span(links=[{"traceId": TRACE, "spanId": "eee19b7ec3c1b174"}] * 5,
                          events=[{"name": "e", "timeUnixNano": "5"}] * 5), _span(spanId="1111111111111111")])),
    # a span whose first key is no span field: the piece holds two spans, cut where orjson says
    _spans_request(b'[{"zzz": 1, "traceId": "%s", "spanId": "eee19b7ec3c1b174", "name": "a"},'
                   b'{"yyy": 2, "traceId": "%s", "spanId": "1111111111111111", "name": "b"}]' % (
                       TRACE.encode(), TRACE.encode())),
    # strings holding what the scan looks for: escaped JSON of spans, brackets, markers' look-alikes
    _body(_request([_span(name='x"},{"traceId": "t"}, "spans": [{"name": "y"}] ] } {',
                          attributes=[{"key": "m", "value": {"stringValue": json.dumps(
                              {"spans": [{"traceId": TRACE}, {"name": "\\"}]})}}])])),
    # pretty-printed, with non-ASCII text before a cut, and several batches and scopes
    json.dumps({"resourceSpans": [
        {"resource": {"attributes": []}, "scopeSpans": [
            {"scope": {"name": "caf\u00e9"}, "spans": [_span(name="\u00e9t\u00e9"), _span(spanId="2222222222222222")]},
            {"scope": {"name": "two"}, "spans": []}]},
        {"scopeSpans": [{"spans": [_span(spanId="3333333333333333", name="\u65e5\u672c")]}]}]},
        indent=2, ensure_ascii=False).encode(),
    # a "spans" key that is not a request's spans list: in a span, in a resource, a key ending in "spans"
    _body(_request([_span(extra={"spans": [{"traceId": TRACE}]})])),
    _body(_request([_span()], resource={"spans": [1], "attributes": []})),
    b'{"resourceSpans": [{"scopeSpans": [{"x\\"spans": [{"name": "a"}], "spans": [' + _body(_span()) + b"]}]}]}",
    # two keys spelling one list, a repeated spans key (orjson keeps the last)
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [' + _body(_span()) + b'], "spans": ['
    + _body(_span(spanId="4444444444444444")) + b"]}]}]}",
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [' + _body(_span()) + b']}], "scope_spans": [{"spans": ['
    + _body(_span(spanId="4444444444444444")) + b"]}]}]}",
    # a NUL escape (the markers' character) and a marker's text
    _body(_request([_span(name="a\u0000b")])),
    _body(_request([_span(name="\u0000ek-spans:0")])),
    # a span nested near orjson's limit where it stands: just below, just above
    _spans_request(b'[{"traceId": "%s", "spanId": "eee19b7ec3c1b174", "x": %s}]' % (
        TRACE.encode(), b"[" * 1017 + b"]" * 1017)),
    _spans_request(b'[{"traceId": "%s", "spanId": "eee19b7ec3c1b174", "x": %s}]' % (
        TRACE.encode(), b"[" * 1018 + b"]" * 1018)),
    # invalid text in a later span, an element that is not an object, an unclosed list
    _spans_request(b"[" + _body(_span()) + b"," + _body(_span()).replace(b'"chat"', b'"ca\xff"', 1) + b"]"),
    _spans_request(b"[" + _body(_span()) + b", 3]"),
    _spans_request(b"[" + _body(_span()) + b", " + _body(_span())[:-1] + b"]"),
    _spans_request(b"[" + _body(_span()) + b"  ]  "),
    _spans_request(b"[" + _body(_span()) + b" , ]"),
])
def test_what_the_scan_looks_for_in_odd_places_gives_the_same_records_and_report(body):
    assert_same(body)


def test_the_scan_cuts_each_span_where_orjson_ends_it():
    spans = [_span(links=[{"traceId": TRACE}] * 3), _span(spanId="1111111111111111", name="\u00e9")]
    body = _body(_request(spans))
    document = scan_document(body)
    assert [json.loads(body[a:b]) for a, b in _pairs(document)] == spans


def test_a_span_longer_than_the_first_window_is_read_whole(monkeypatch):
    monkeypatch.setattr(json_document, "_WINDOW", 64)
    spans = [_span(attributes=[{"key": f"k{i}", "value": {"stringValue": "v" * i}} for i in range(40)]),
             _span(spanId="1111111111111111")]
    body = _body(_request(spans))
    assert [json.loads(body[a:b]) for a, b in _pairs(scan_document(body))] == spans
    assert_same(body)


def test_a_span_of_many_events_takes_a_few_tries_not_one_per_event(monkeypatch):
    """A candidate end between two events (an object whose first key is "name") gives an
    incomplete piece: the next try is at least twice as long, so tries grow as a logarithm."""
    spans = [_span(events=[{"name": f"chunk {i}", "timeUnixNano": "5"} for i in range(500)]),
             _span(spanId="1111111111111111", events=[{"name": "e"}] * 300)]
    body = _body(_request(spans))
    tries = []
    real_loads = json_document._orjson.loads

    class Counting:
        JSONDecodeError = json_document._orjson.JSONDecodeError

        @staticmethod
        def loads(text):
            tries.append(len(text))
            return real_loads(text)

    monkeypatch.setattr(json_document, "_orjson", Counting)
    assert [json.loads(body[a:b]) for a, b in _pairs(scan_document(body))] == spans
    assert len(tries) < 40, len(tries)
    assert sum(tries) < 4 * len(body)


def test_without_orjson_the_plain_path_is_taken(monkeypatch):
    body = _body(_request([_span()]))
    expected = _read(body, None, False)
    monkeypatch.setattr(json_document, "_orjson", None)
    assert scan_document(body) is None
    assert _read(body, None, True) == expected
    check_json(body)


def _dump_records(path: str) -> tuple:
    report = BadInputReport()
    groups = [(g.trace_id, [repr(s) for s in g.spans]) for g in group_traces(read_dump([path], report=report))]
    return groups, report.counts, [str(c) for c in report.cases]


@pytest.mark.parametrize("pretty", [False, True])
def test_read_dump_of_a_large_document_is_the_same_read_span_by_span_and_whole(tmp_path, monkeypatch, pretty):
    """The dumps hook: one large request (one line, or pretty-printed) read both ways."""
    sys.path.insert(0, str(BENCH))
    import ingest

    spans = list(ingest.generate_spans(400))
    body = ingest.batch_to_json(spans)
    path = tmp_path / "request.json"
    path.write_bytes(json.dumps(json.loads(body), indent=1).encode() if pretty else body)
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1000)
    scanned = []
    real_scan = json_document.scan_document
    monkeypatch.setattr(json_document, "scan_document", lambda b: scanned.append(real_scan(b)) or scanned[-1])
    lazy = _dump_records(str(path))
    assert len(scanned) == 1 and scanned[0].spans == 400 and lazy[0] and not lazy[1]  # scanned once
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1 << 40)
    assert _dump_records(str(path)) == lazy


def test_a_large_first_line_that_is_not_a_whole_document_is_read_as_json_lines(tmp_path, monkeypatch):
    """check_json refuses it as parse_json does: the file is then read line by line."""
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 10)
    good = _body(_request([_span()]))
    path = tmp_path / "d.jsonl"
    path.write_bytes(good + b"\n" + good[:-5] + b"\n" + _body(_request([_span(spanId="1111111111111111")])) + b"\n")
    lazy = _dump_records(str(path))
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1 << 40)
    assert _dump_records(str(path)) == lazy
    assert lazy[1] == {"invalid JSON": 1}


def test_a_nul_escape_in_a_span_is_scanned_and_one_in_the_skeleton_is_not():
    """The markers' NUL matters only where markers stand: in the skeleton."""
    in_span = _body(_request([_span(name="a\u0000b"), _span(name="\u0000ek-spans:0")]))
    assert scan_document(in_span) is not None
    assert_same(in_span)
    in_resource = _body(_request([_span()], resource={"attributes": [
        {"key": "m", "value": {"stringValue": "\u0000ek-spans:0"}}]}))
    after_spans = _body({"resourceSpans": [{"scopeSpans": [{"spans": [_span()]}], "schemaUrl": "\u0000"}]})
    for body in (in_resource, after_spans):
        assert scan_document(body) is None
        assert_same(body)


def test_a_scan_made_ahead_is_taken_once_by_the_same_body(monkeypatch):
    body = _body(_request([_span(), _span(spanId="1111111111111111")]))
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 100)
    scans = []
    real_scan = json_document.scan_document
    monkeypatch.setattr(json_document, "scan_document", lambda b: scans.append(1) or real_scan(b))
    json_document.scan_ahead(body)
    equal = bytes(bytearray(body))  # an equal body that is another object: scanned on its own
    check_json(body)
    records = [repr(r) for r in decode_document(body)]
    assert len(scans) == 1 and len(records) == 2
    check_json(equal)
    assert len(scans) == 2 and not json_document._ahead
    json_document.scan_ahead(body)
    json_document.drop_scans_ahead()
    assert not json_document._ahead


_KEYS = ("traceId", "spanId", "name", "kind", "attributes", "zz", "other", "x")


@st.composite
def _generated_request(draw) -> bytes:
    """A request of many resourceSpans entries (one span each, or none, or a few), spans
    whose first key is a span field or not, strings holding what the scan looks for."""
    filler = st.sampled_from(["", "},{\"name\": 1", "}, {\"traceId\"", "\"spans\": [", "]}", "é"])
    batches = []
    for _ in range(draw(st.integers(1, 12))):
        spans = []
        for _ in range(draw(st.integers(0, 3))):
            keys = draw(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=4, unique=True))
            span = {key: draw(filler) for key in keys}
            span.update(_span(spanId=draw(st.sampled_from(["eee19b7ec3c1b174", "1111111111111111"]))))
            first = {keys[0]: span.pop(keys[0])}
            spans.append({**first, **span})
        batches.append(_request(spans)["resourceSpans"][0])
    compact = draw(st.booleans())
    return json.dumps({"resourceSpans": batches}, separators=(",", ":") if compact else None).encode()


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(_generated_request())
def test_generated_requests_give_the_same_records_scanned_and_whole(body):
    assert_same(body)


class _Counting:
    """The span-start regex, counting the bytes its searches start before the body's end."""

    def __init__(self, pattern):
        self.pattern, self.scanned = pattern, 0

    def search(self, body, pos):
        self.scanned += len(body) - pos
        return self.pattern.search(body, pos)


def test_the_scan_searches_the_body_about_once_not_once_per_span(monkeypatch):
    # one resourceSpans entry per span, the next span never after '},': each span's search
    # for the next one used to run to the end of the body (quadratic: 74 s for 8.9 MB)
    body = _body({"resourceSpans": [_request([_span(spanId="%016x" % i)])["resourceSpans"][0]
                                    for i in range(2000)]})
    counting = _Counting(json_document._NEXT_SPAN)
    monkeypatch.setattr(json_document, "_NEXT_SPAN", counting)
    assert scan_document(body).spans == 2000
    assert 0 < counting.scanned <= 2 * len(body)
