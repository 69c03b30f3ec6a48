"""Every dump form round-trips the SDK's telemetry; bad input is reported and skipped."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import os
import subprocess
import sys

import pytest
import zstandard

from ek_otel.errors import InputError
from ek_otel.ingest.bad_input import (
    BAD_ATTRIBUTE,
    DEEP_NESTING,
    INVALID_ID,
    INVALID_JSON,
    INVALID_UTF8,
    UNDECODABLE_PROTOBUF,
    UNREADABLE_FILE,
    BadInputReport,
)
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.otlp import decode
from ek_otel.ingest.records import LogRecord, Origin, SpanRecord
from ek_otel.ingest.wire import encode_varint


def _frame(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def _without_origin(records) -> list:
    return [dataclasses.replace(r, origin=None) for r in records]


def _key(record):
    if isinstance(record, SpanRecord):
        return ("span", record.span_id)
    return ("log", record.time_ns, record.event_name)


def _expected(telemetry, spans=True, logs=True) -> list:
    out = []
    if spans:
        out += decode(telemetry.traces_pb(), "protobuf", signal="traces")
    if logs:
        out += decode(telemetry.logs_pb(), "protobuf", signal="logs")
    return sorted(out, key=_key)


def _read(paths, report=None) -> list:
    report = BadInputReport() if report is None else report
    return list(read_dump(paths, report=report))


def _assert_same(records, expected):
    assert sorted(_without_origin(records), key=_key) == expected


def _jsonl_one_span_per_line(telemetry) -> list:
    """Lines as the file exporter writes them, with each trace spread over many lines."""
    lines = [telemetry.traces_json([span]) for span in telemetry.spans]
    lines += [telemetry.logs_json([log]) for log in telemetry.logs]
    return lines


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------


def test_protobuf_bodies_traces_and_logs(tmp_path, telemetry):
    (tmp_path / "traces.pb").write_bytes(telemetry.traces_pb())
    (tmp_path / "logs.bin").write_bytes(telemetry.logs_pb())
    records = _read([str(tmp_path / "traces.pb"), str(tmp_path / "logs.bin")])
    _assert_same(records, _expected(telemetry))
    assert records[0].origin == Origin(str(tmp_path / "traces.pb"))


def test_single_json_objects_compact_pretty_and_array(tmp_path, telemetry):
    (tmp_path / "a.json").write_text(telemetry.traces_json())
    (tmp_path / "b.json").write_text(json.dumps(json.loads(telemetry.logs_json()), indent=2))
    (tmp_path / "c.json").write_text(
        json.dumps([json.loads(telemetry.traces_json()), json.loads(telemetry.logs_json())], indent=1))
    report = BadInputReport()
    records = _read([str(tmp_path / name) for name in ("a.json", "b.json")], report)
    _assert_same(records, _expected(telemetry))
    _assert_same(_read([str(tmp_path / "c.json")], report), _expected(telemetry))
    assert report.ok


def test_json_lines_with_traces_spread_over_lines_and_files(tmp_path, telemetry):
    lines = _jsonl_one_span_per_line(telemetry)
    half = len(lines) // 2
    (tmp_path / "part-1.jsonl").write_text("\n".join(lines[:half]) + "\n")
    (tmp_path / "part-2.jsonl").write_text("\n\n".join(lines[half:]))  # blank lines, no final newline
    report = BadInputReport()
    records = _read([str(tmp_path / "part-1.jsonl"), str(tmp_path / "part-2.jsonl")], report)
    _assert_same(records, _expected(telemetry))
    assert report.ok
    assert records[0].origin == Origin(str(tmp_path / "part-1.jsonl"), 1)
    assert records[half].origin == Origin(str(tmp_path / "part-2.jsonl"), 1)
    assert records[half + 1].origin == Origin(str(tmp_path / "part-2.jsonl"), 3)


def test_length_prefixed_frames_of_traces_and_logs(tmp_path, telemetry):
    frames = [_frame(telemetry.traces_pb([span])) for span in telemetry.spans]
    frames.append(_frame(telemetry.logs_pb()))
    (tmp_path / "dump.proto").write_bytes(b"".join(frames))
    records = _read([str(tmp_path / "dump.proto")])
    _assert_same(records, _expected(telemetry))
    assert [r.origin.line for r in records[:3]] == [1, 2, 3]


def test_legacy_compressed_frames_hold_zstd_json_or_protobuf(tmp_path, telemetry):
    compress = zstandard.ZstdCompressor().compress
    body = _frame(compress(telemetry.traces_json().encode())) + _frame(compress(telemetry.logs_pb()))
    (tmp_path / "dump").write_bytes(body)
    _assert_same(_read([str(tmp_path / "dump")]), _expected(telemetry))


@pytest.mark.parametrize("name", ["dump.jsonl.gz", "dump-without-extension"])
def test_gzip_by_magic_bytes(tmp_path, telemetry, name):
    (tmp_path / name).write_bytes(gzip.compress("\n".join(_jsonl_one_span_per_line(telemetry)).encode()))
    _assert_same(_read([str(tmp_path / name)]), _expected(telemetry))


@pytest.mark.parametrize("inner", ["jsonl", "frames", "pb"])
def test_zstd_streams(tmp_path, telemetry, inner):
    if inner == "jsonl":
        raw = "\n".join(_jsonl_one_span_per_line(telemetry)).encode()
        expected = _expected(telemetry)
    elif inner == "frames":
        raw = b"".join(_frame(telemetry.traces_pb([s])) for s in telemetry.spans)
        expected = _expected(telemetry, logs=False)
    else:
        raw = telemetry.traces_pb()
        expected = _expected(telemetry, logs=False)
    # Two zstd frames back to back, as the file exporter's streaming writer leaves them.
    compress = zstandard.ZstdCompressor().compress
    cut = len(raw) // 2
    (tmp_path / "dump.zst").write_bytes(compress(raw[:cut]) + compress(raw[cut:]))
    _assert_same(_read([str(tmp_path / "dump.zst")]), expected)


def test_directories_are_read_recursively_in_sorted_order(tmp_path, telemetry):
    lines = _jsonl_one_span_per_line(telemetry)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "deeper").mkdir()
    (tmp_path / "a.jsonl").write_text(lines[0])
    (tmp_path / "b" / "deeper" / "z.jsonl").write_text(lines[2])
    (tmp_path / "b" / "c.jsonl").write_text("\n".join(lines[1:2] + lines[3:]))
    (tmp_path / ".hidden.jsonl").write_text("garbage")
    report = BadInputReport()
    records = _read([str(tmp_path)], report)
    _assert_same(records, _expected(telemetry))
    assert report.ok
    sources = [r.origin.source for r in records]
    assert sources.index(str(tmp_path / "b" / "c.jsonl")) < sources.index(str(tmp_path / "b" / "deeper" / "z.jsonl"))


def test_globs(tmp_path, telemetry):
    (tmp_path / "traces-1.pb").write_bytes(telemetry.traces_pb(telemetry.spans[:4]))
    (tmp_path / "traces-2.pb").write_bytes(telemetry.traces_pb(telemetry.spans[4:]))
    (tmp_path / "other.pb").write_bytes(telemetry.logs_pb())
    _assert_same(_read([str(tmp_path / "traces-*.pb")]), _expected(telemetry, logs=False))


def test_stdin(monkeypatch, telemetry):
    data = "\n".join(_jsonl_one_span_per_line(telemetry)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    records = _read(["-"])
    _assert_same(records, _expected(telemetry))
    assert records[0].origin == Origin("<stdin>", 1)


def test_stdin_of_a_real_process_with_gzip(tmp_path, telemetry):
    data = gzip.compress(b"".join(_frame(telemetry.traces_pb([s])) for s in telemetry.spans))
    script = ("import sys; from ek_otel.ingest.dumps import read_dump; "
              "from ek_otel.ingest.bad_input import BadInputReport; "
              "print(len(list(read_dump(['-'], report=BadInputReport()))))")
    out = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, check=True)
    assert int(out.stdout) == len(telemetry.spans)


class _CountingStream(io.RawIOBase):
    """A raw stream that counts how many bytes were read from it."""

    def __init__(self, data: bytes):
        self.data = io.BytesIO(data)
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self.data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        self.consumed += len(chunk)
        return len(chunk)


@pytest.mark.parametrize("form", ["jsonl", "frames", "zstd-jsonl"])
def test_large_dumps_are_streamed_not_read_whole(monkeypatch, telemetry, form):
    if form == "frames":
        unit = b"".join(_frame(telemetry.traces_pb([s])) for s in telemetry.spans)
    else:
        unit = ("\n".join(_jsonl_one_span_per_line(telemetry)) + "\n").encode()
    data = unit * 2000
    if form == "zstd-jsonl":  # unique (incompressible) service names keep the stream large
        data = b"".join(unit.replace(b"weather-agent", os.urandom(1000).hex().encode()) for _ in range(2000))
        data = zstandard.ZstdCompressor().compress(data)
    raw = _CountingStream(data)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw)))
    records = read_dump(["-"], report=BadInputReport())
    next(records)
    next(records)
    assert raw.consumed < len(data) / 10
    records.close()


def test_missing_paths_and_empty_globs_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        _read([str(tmp_path / "nope.jsonl")])
    with pytest.raises(InputError, match="matches no file"):
        _read([str(tmp_path / "*.jsonl")])


@pytest.mark.parametrize("hidden", [False, True])
def test_a_directory_with_no_file_is_an_input_error_naming_it(tmp_path, hidden):
    folder = tmp_path / "dumps"
    (folder / "sub").mkdir(parents=True)
    if hidden:
        (folder / ".hidden.jsonl").write_text("{}")  # hidden files are never read
    with pytest.raises(InputError) as caught:
        _read([str(folder)])
    assert str(caught.value) == f"{folder}: the directory holds no file to read"
    with pytest.raises(InputError, match="matches no file"):  # a glob of empty directories too
        _read([str(tmp_path / "dump*")])


def test_empty_files_yield_nothing(tmp_path):
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.json").write_bytes(b"\n\n  \n")
    report = BadInputReport()
    assert _read([str(tmp_path)], report) == [] and report.ok


# ---------------------------------------------------------------------------
# Bad input: reported with file and line, the rest still read
# ---------------------------------------------------------------------------


def test_invalid_json_lines_are_reported_with_their_line(tmp_path, telemetry):
    lines = _jsonl_one_span_per_line(telemetry)
    lines.insert(2, '{"resourceSpans": [')  # cut short
    lines.insert(5, "this is not json")
    path = str(tmp_path / "dump.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    report = BadInputReport()
    _assert_same(_read([path], report), _expected(telemetry))
    assert report.counts == {INVALID_JSON: 2}
    assert [c.origin for c in report.cases] == [Origin(path, 3), Origin(path, 6)]
    assert f"{path}:3: invalid JSON" in report.summary()
    assert all(str(c).count("invalid JSON") == 1 for c in report.cases)  # the reason said once


def test_truncated_protobuf_file_frames_and_gzip(tmp_path, telemetry):
    body = telemetry.traces_pb()
    (tmp_path / "1-cut.pb").write_bytes(body[: len(body) - 7])
    frames = [_frame(telemetry.traces_pb([s])) for s in telemetry.spans]
    garbage = _frame(b"\x0a\xff\xff\x03")
    (tmp_path / "2-frames.bin").write_bytes(frames[0] + garbage + b"".join(frames[1:]) + frames[0][:9])
    (tmp_path / "3-cut.jsonl.gz").write_bytes(gzip.compress(telemetry.traces_json().encode() * 50)[:-30])
    report = BadInputReport()
    records = _read([str(tmp_path)], report)
    assert sorted(r.span_id for r in records if r.origin.source.endswith("frames.bin")) == sorted(
        r.span_id for r in _expected(telemetry, logs=False))
    assert report.counts[UNDECODABLE_PROTOBUF] == 3  # the cut .pb, the garbage frame, the cut last frame
    assert report.counts[UNREADABLE_FILE] == 1  # the cut gzip stream
    where = [str(c.origin) for c in report.cases]
    assert where[:3] == [str(tmp_path / "1-cut.pb"), f"{tmp_path / '2-frames.bin'}:2",
                         f"{tmp_path / '2-frames.bin'}:{len(frames) + 2}"]
    first = str(report.cases[0])  # the reason said once, then what failed to parse
    assert first.startswith(f"{tmp_path / '1-cut.pb'}: undecodable protobuf: ExportTraceServiceRequest: ")
    assert first.count("undecodable protobuf") == 1


def _field(tag: int, payload: bytes) -> bytes:
    return bytes([tag]) + encode_varint(len(payload)) + payload


def _read_bad_and_ok_span(tmp_path, stem: str, key: bytes, value: bytes, name: bytes = b""):
    """Read one request, spans ``name`` (default ``stem``; attribute ``key`` = the AnyValue
    ``value``) and ``ok`` of another trace, from ``STEM.pb`` and twice from the frames
    ``STEM.bin``: ``(the .pb path, report, records)``."""
    bad = (_field(0x0A, b"\x01" * 16) + _field(0x12, b"\x02" * 8) + _field(0x2A, name or stem.encode())
           + _field(0x4A, _field(0x0A, key) + _field(0x12, value)))
    ok = _field(0x0A, b"\x03" * 16) + _field(0x12, b"\x04" * 8) + _field(0x2A, b"ok")
    body = _field(0x0A, _field(0x12, _field(0x12, bad) + _field(0x12, ok)))
    path = tmp_path / f"{stem}.pb"
    path.write_bytes(body)
    (tmp_path / f"{stem}.bin").write_bytes(_frame(body) + _frame(body))
    report = BadInputReport()
    return path, report, _read([str(path), str(tmp_path / f"{stem}.bin")], report)


def test_protobuf_dump_with_a_value_too_deep_for_the_parser_keeps_its_other_traces(tmp_path):
    """60 levels of arrayValue in span ``deep``: upb refuses the whole request, yet span
    ``ok`` (another trace) is read and only the value is cut, reported with its file."""
    value = _field(0x0A, b"leaf")
    for _ in range(60):
        value = _field(0x2A, _field(0x0A, value))
    path, report, records = _read_bad_and_ok_span(tmp_path, "deep", b"d", value)
    assert [r.name for r in records] == ["deep", "ok"] * 3
    assert report.counts == {DEEP_NESTING: 3}
    assert [str(c.origin) for c in report.cases] == [str(path), f"{tmp_path / 'deep.bin'}:1",
                                                      f"{tmp_path / 'deep.bin'}:2"]


def test_json_line_too_deep_for_the_parser_keeps_its_other_spans(tmp_path, telemetry):
    lines = _jsonl_one_span_per_line(telemetry)
    deep = '{"arrayValue":{"values":[' * 100_000 + '{"stringValue":"leaf"}' + "]}}" * 100_000
    request = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "deep",
         "attributes": [{"key": "deep", "value": "PLACEHOLDER"}]},
        {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00f067aa0ba902b7", "name": "ok"}]}]}]}
    lines.insert(1, json.dumps(request).replace('"PLACEHOLDER"', deep))
    path = tmp_path / "dump.jsonl"
    path.write_text("\n".join(lines))
    report = BadInputReport()
    records = _read([str(path)], report)
    assert [r.name for r in records if r.trace_id.startswith("0af7")] == ["deep", "ok"]
    assert len(records) == len(_expected(telemetry)) + 2
    assert report.counts == {DEEP_NESTING: 1} and report.cases[0].origin == Origin(str(path), 2)


def test_protobuf_dump_with_invalid_utf8_in_one_attribute_keeps_its_other_spans(tmp_path):
    """The Collector's file exporter copies string bytes as they are: one attribute with a cut
    multi-byte character made upb refuse the whole request. Now only the bad bytes are
    replaced (U+FFFD) and the case is reported with its file and frame."""
    path, report, records = _read_bad_and_ok_span(tmp_path, "utf8", b"gen_ai.prompt",
                                                   _field(0x0A, b"caf\xc3!"), name=b"bad")
    assert [r.name for r in records] == ["bad", "ok"] * 3
    assert [r.attributes for r in records[::2]] == [{"gen_ai.prompt": "caf\ufffd!"}] * 3
    assert report.counts == {INVALID_UTF8: 3}
    assert [str(c.origin) for c in report.cases] == [str(path), f"{tmp_path / 'utf8.bin'}:1",
                                                      f"{tmp_path / 'utf8.bin'}:2"]
    assert "span 0202020202020202: 'gen_ai.prompt': string_value" in report.cases[0].detail


def test_json_line_with_invalid_utf8_in_one_attribute_keeps_its_other_spans(tmp_path, telemetry):
    lines = [line.encode() for line in _jsonl_one_span_per_line(telemetry)]
    request = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "bad",
         "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "cafe!"}}]},
        {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "00f067aa0ba902b7", "name": "ok"}]}]}]}
    lines.insert(1, json.dumps(request).encode().replace(b"cafe!", b"caf\xc3!"))
    path = tmp_path / "dump.jsonl"
    path.write_bytes(b"\n".join(lines))
    report = BadInputReport()
    records = _read([str(path)], report)
    bad, ok = [r for r in records if r.trace_id.startswith("0af7")]
    assert (bad.name, bad.attributes, ok.name) == ("bad", {"gen_ai.prompt": "caf\ufffd!"}, "ok")
    assert len(records) == len(_expected(telemetry)) + 2
    assert report.counts == {INVALID_UTF8: 1} and report.cases[0].origin == Origin(str(path), 2)


def test_bad_records_inside_good_lines(tmp_path):
    def line(*spans):
        return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})

    trace = "0af7651916cd43dd8448eb211c80319c"
    deep = {"stringValue": "leaf"}
    for _ in range(40):
        deep = {"kvlistValue": {"values": [{"key": "k", "value": deep}]}}
    lines = [
        line({"traceId": trace, "spanId": "1" * 16, "name": "root"}),
        line({"traceId": trace[:-2], "spanId": "2" * 16, "name": "bad id"},
             {"traceId": trace, "spanId": "3" * 16, "parentSpanId": "1" * 16, "name": "typed",
              "attributes": [{"key": "n", "value": {"intValue": {"x": 1}}}]}),
        line({"traceId": trace, "spanId": "4" * 16, "parentSpanId": "1" * 16, "name": "deep",
              "attributes": [{"key": "d", "value": deep}]}),
        json.dumps({"resourceMetrics": []}),  # another signal: skipped silently
        json.dumps({"hello": "world"}),
    ]
    path = str(tmp_path / "dump.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    report = BadInputReport(keep=2)
    records = _read([path], report)
    assert [r.name for r in records] == ["root", "typed", "deep"]
    assert records[1].attributes == {}
    assert report.counts == {INVALID_ID: 1, BAD_ATTRIBUTE: 1, DEEP_NESTING: 1, "not an OTLP request": 1}
    assert [c.origin for c in report.cases] == [Origin(path, 2), Origin(path, 2)]  # only the first 2 kept
    assert report.total == 4


def test_a_file_that_is_not_a_dump_is_reported_and_skipped(tmp_path, telemetry):
    (tmp_path / "README.txt").write_text("hello, this is not telemetry\n")
    (tmp_path / "traces.pb").write_bytes(telemetry.traces_pb())
    report = BadInputReport()
    assert len(_read([str(tmp_path)], report)) == len(telemetry.spans)
    assert report.counts == {UNREADABLE_FILE: 1}
    assert report.cases[0].origin == Origin(str(tmp_path / "README.txt"))


def test_logs_and_spans_in_one_jsonl(tmp_path, telemetry):
    path = tmp_path / "mixed.jsonl"
    path.write_text(telemetry.logs_json() + "\n" + telemetry.traces_json() + "\n")
    records = _read([str(path)])
    assert [type(r) for r in records] == [LogRecord] * len(telemetry.logs) + [SpanRecord] * len(telemetry.spans)


# ---------------------------------------------------------------------------
# Never crash, never hang
# ---------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from([b"", b"\x1f\x8b", b"\x28\xb5\x2f\xfd", b"\x0a", b"{", b"\n{", b"\x00\x00\x00\x05"]),
       data=st.binary(max_size=300))
def test_random_file_content_never_crashes(tmp_path, prefix, data):
    path = tmp_path / "random.bin"
    path.write_bytes(prefix + data)
    report = BadInputReport()
    for record in read_dump([str(path)], report=report):
        assert isinstance(record, (SpanRecord, LogRecord))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.sampled_from(["gzip", "zstd", "frames", "jsonl", "pb"]), cut=st.floats(0.0, 1.0))
def test_truncated_dumps_are_read_up_to_the_cut(tmp_path, telemetry, form, cut):
    lines = "\n".join(_jsonl_one_span_per_line(telemetry)).encode()
    frames = b"".join(_frame(telemetry.traces_pb([s])) for s in telemetry.spans)
    data = {"gzip": gzip.compress(lines), "zstd": zstandard.ZstdCompressor().compress(lines),
            "frames": frames, "jsonl": lines, "pb": telemetry.traces_pb()}[form]
    path = tmp_path / "cut.dump"
    size = int(len(data) * cut)
    path.write_bytes(data[:size])
    report = BadInputReport()
    records = list(read_dump([str(path)], report=report))
    assert len({r.span_id for r in records if isinstance(r, SpanRecord)}) <= len(telemetry.spans)
    if form == "frames":
        boundaries, position = {0}, 0
        for span in telemetry.spans:
            position += len(_frame(telemetry.traces_pb([span])))
            boundaries.add(position)
        assert report.ok == (size in boundaries)
        assert len(records) == sum(1 for b in boundaries if 0 < b <= size)


def test_missing_stdin_is_reported(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    report = BadInputReport()
    assert _read(["-"], report) == [] and report.counts == {UNREADABLE_FILE: 1}


# ---------------------------------------------------------------------------
# A large first line is read in one piece (dumps._large_first_line), as readline + strip read it
# ---------------------------------------------------------------------------


def _request_line(n_spans: int, first_id: int = 1) -> bytes:
    spans = [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": f"{first_id + i:016x}",
              "name": f"s{i}", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
              "attributes": [{"key": "k", "value": {"stringValue": "v" * 50}}]} for i in range(n_spans)]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def _everything(path) -> tuple:
    report = BadInputReport()
    records = [(repr(r), r.origin) for r in read_dump([str(path)], report=report)]
    return records, report.counts, [str(c) for c in report.cases]


@pytest.mark.parametrize("content", [
    _request_line(40),                                                   # one line, no newline
    _request_line(40) + b"\n",
    _request_line(40) + b"\r\n",                                         # blank text at its end
    b"  " + _request_line(40) + b"\n",                                   # and at its start
    _request_line(40) + b"\n" + _request_line(3, 100) + b"\n\n" + _request_line(2, 200),  # more lines
    _request_line(40)[:-3] + b"\n" + _request_line(3, 100) + b"\n",      # a first line that is not JSON
    json.dumps(json.loads(_request_line(40)), indent=1).encode(),      # pretty-printed
    b"\n\n" + _request_line(40),                                         # blank lines first
], ids=["one", "newline", "crlf", "spaces", "more-lines", "not-json", "pretty", "blank-first"])
def test_a_large_first_line_read_in_one_piece_gives_what_readline_gives(tmp_path, monkeypatch, content):
    from ek_otel.ingest import dumps, json_document

    path = tmp_path / "dump.json"
    path.write_bytes(content)
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1000)
    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1000)
    read = []
    real = dumps._large_first_line
    monkeypatch.setattr(dumps, "_large_first_line", lambda s: read.append(real(s)) or read[-1])
    fast = _everything(path)
    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1 << 40)
    assert _everything(path) == fast
    assert fast[0]
    one_piece = content.split(b"\n")[0]
    assert (read[0] is not None) == (one_piece == one_piece.strip() and len(one_piece) >= 1000)


def test_a_large_first_line_of_a_compressed_file_or_a_pipe_is_read_as_ever(tmp_path, monkeypatch):
    from ek_otel.ingest import dumps

    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1000)
    path = tmp_path / "dump.json.gz"
    path.write_bytes(gzip.compress(_request_line(40)))
    with open(path, "rb") as f:
        assert dumps._large_first_line(dumps._decompressed(f)) is None
    read, write = os.pipe()
    os.write(write, _request_line(40))
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        assert dumps._large_first_line(pipe) is None
        assert pipe.read() == _request_line(40)
    assert _everything(path)[0]


def test_a_large_file_read_ahead_is_read_and_scanned_once_with_the_same_records(tmp_path, monkeypatch):
    """read_ahead (a parallel run's main process, before it forks): the file's first line
    and its scan are taken by the read_dump that follows, once; a changed file is read anew."""
    from ek_otel.ingest import dumps, json_document

    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1000)
    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1000)
    big, other = tmp_path / "big.json", tmp_path / "small.jsonl"
    big.write_bytes(_request_line(40) + b"\n" + _request_line(3, 100) + b"\n")
    other.write_bytes(_request_line(2, 200) + b"\n")
    expected = _everything(big)
    scans, reads = [], []
    real_scan, real_line = json_document.scan_document, dumps._large_first_line
    monkeypatch.setattr(json_document, "scan_document", lambda b: scans.append(1) or real_scan(b))
    monkeypatch.setattr(dumps, "_large_first_line", lambda s: reads.append(1) or real_line(s))
    assert dumps.read_ahead([str(big), str(other)]) == len(_request_line(40))
    assert len(scans) == len(reads) == 1
    assert _everything(big) == expected
    assert len(scans) == 1 and not dumps._read_ahead and not json_document._ahead  # taken, not redone
    assert _everything(big) == expected and len(scans) == 2  # a second read reads the file
    dumps.read_ahead([str(big)])
    big.write_bytes(_request_line(41) + b"\n")  # changed since: its own read
    changed = _everything(big)
    assert len(changed[0]) == 41 and len(scans) == 4
    dumps.drop_read_ahead()
    assert not dumps._read_ahead and not json_document._ahead
    monkeypatch.setattr(dumps, "READ_AHEAD_BYTES", 500)  # over the budget: nothing held
    assert dumps.read_ahead([str(big)]) == 0


def test_read_ahead_leaves_what_is_not_a_large_uncompressed_json_file(tmp_path, monkeypatch):
    from ek_otel.ingest import dumps

    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1000)
    gz, pretty = tmp_path / "a.json.gz", tmp_path / "b.json"
    gz.write_bytes(gzip.compress(_request_line(40)))
    pretty.write_bytes(b"\n" + _request_line(40))
    assert dumps.read_ahead([str(gz), str(pretty), "-"]) == 0 and not dumps._read_ahead
