"""Scores prepared one at a time frame into the bytes of encoding the batch at once: the
file's lines, the OTLP requests; also when prepared in another process."""

from __future__ import annotations

import multiprocessing
import os

import pytest
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as trace_request

from ek_otel.core.scores import ArgDiff, CallRow, EpisodeScore, Score
from ek_otel.emit.encode import ek_resource, encode_log_records, encode_spans
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.otlp_json import request_lines
from ek_otel.emit.prepared import (Encoding, encode_score, encode_scores, json_lines, parts,
                                    protobuf_requests)
from ek_otel.emit.sinks import FileSink


def _envelope(i: int) -> ScoreEnvelope:
    answer = Score(value=1.0, metric="answer", explanation="« la réponse » ✓") if i % 2 else None
    score = EpisodeScore(
        f"t{i}", f1=i / 7, success=i % 3 == 0, dollars=None if i % 2 else 0.25, revision=i % 2,
        explanation="mismatch on \"city\"\n\u2028é😀",
        arg_diffs=(ArgDiff("get_weather", "city", "value", "Paris", "París"),),
        calls=(CallRow(got=("get_weather", {"city": "París"}),
                       gold=("get_weather", {"city": "Paris"}), diffs=(0,)),),
        answer=answer)
    return ScoreEnvelope(f"{i + 1:032x}", f"{i + 10:016x}", f"t{i}", score,
                         ScoreProvenance("0.1.0", "aa" * 32, {"level": "arg"}), revision=i % 2,
                         scored_at_ns=1_764_460_800_000_000_000 + i, root_end_ns=i * 1000)


ENVELOPES = [_envelope(i) for i in range(7)]
ENCODINGS = [(phoenix, signals) for phoenix in (False, True)
             for signals in (("spans",), ("logs",), ("spans", "logs"))]


def _prepared(encoding, envelopes):
    return [parts(encoding, encode_score(encoding, e)) for e in envelopes]


@pytest.mark.parametrize("phoenix,signals", ENCODINGS)
@pytest.mark.parametrize("n", [1, 2, 7])
def test_json_lines_are_those_of_the_batch_encoded_at_once(phoenix, signals, n):
    envelopes = ENVELOPES[:n]
    spans = encode_spans(envelopes, phoenix=phoenix) if "spans" in signals else []
    records = encode_log_records(envelopes) if "logs" in signals else []
    want = "".join(line + "\n" for line in request_lines(spans, records))
    assert json_lines(_prepared(Encoding("json", phoenix, signals), envelopes)) == want


@pytest.mark.parametrize("phoenix,signals", ENCODINGS)
@pytest.mark.parametrize("n", [1, 2, 7])
def test_protobuf_requests_are_those_of_the_sdk_encoders(phoenix, signals, n):
    envelopes = ENVELOPES[:n]
    got = protobuf_requests(_prepared(Encoding("protobuf", phoenix, signals), envelopes))
    if "spans" in signals:
        want = trace_request(encode_spans(envelopes, phoenix=phoenix)).SerializeToString()
        assert got["spans"] == want
    if "logs" in signals:
        assert got["logs"] == encode_logs(encode_log_records(envelopes)).SerializeToString()


def test_a_large_batch_frames_as_one_request():
    envelopes = [_envelope(i) for i in range(300)]  # lengths past one and two varint bytes
    got = protobuf_requests(_prepared(Encoding("protobuf"), envelopes))
    assert got["spans"] == trace_request(encode_spans(envelopes)).SerializeToString()
    assert got["logs"] == encode_logs(encode_log_records(envelopes)).SerializeToString()


def test_bytes_of_another_encoding_are_not_taken():
    data = encode_score(Encoding("json", True), ENVELOPES[0])
    assert parts(Encoding("json", True), data) is not None
    assert parts(Encoding("json", False), data) is None
    assert parts(Encoding("protobuf", True), data) is None
    assert parts(Encoding("json", True, ("spans",)), data) is None
    assert parts(Encoding("json"), b"") is None and parts(Encoding("json"), None) is None


def _prepare_elsewhere(args):
    encoding, index = args
    return os.getpid(), encode_score(encoding, _envelope(index))


def test_scores_prepared_in_other_processes_are_written_as_this_process_wrote_them(tmp_path):
    """What the scoring workers do: the bytes carry no resource, so the file is this
    process's (its ``service.instance.id``), byte for byte what its FileSink.send writes."""
    sink = FileSink(str(tmp_path / "prepared.jsonl"))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        made = pool.map(_prepare_elsewhere, [(sink.encoding, i) for i in range(7)])
    assert all(pid != os.getpid() for pid, _ in made)
    assert bool(sink.send_prepared([parts(sink.encoding, data) for _, data in made]))
    sink.close()
    reference = FileSink(str(tmp_path / "reference.jsonl"))
    reference.send(ENVELOPES)
    reference.close()
    text = open(sink.path).read()
    assert text == open(reference.path).read()
    assert ek_resource().attributes["service.instance.id"] in text


def test_several_scores_and_encodings_at_once_are_each_prepared_alone():
    encodings = [Encoding("json", True), Encoding("protobuf", True), Encoding("json")]
    alone = [[encode_score(w, e) for w in encodings] for e in ENVELOPES]
    assert encode_scores(encodings, ENVELOPES) == alone
    twice = [ENVELOPES[0], ENVELOPES[1], ENVELOPES[0]]      # two scores of one trace
    assert encode_scores(encodings, twice) == [alone[0], alone[1], alone[0]]
