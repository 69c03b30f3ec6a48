"""The outbox: retry with backoff until the sink works; a file sink's torn write is redone."""

from __future__ import annotations

import json

from ek_otel.core.scores import EpisodeScore
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.emit.sinks import FileSink
from ek_otel.serve.groupcommit import GroupCommitWriter
from ek_otel.serve.outbox import Backoff, OutboxExporter
from ek_otel.serve.store import IncomingChunk, Store

from serve_helpers import wait_for


def envelope(i: int) -> str:
    return ScoreEnvelope(f"{i + 1:032x}", "cd" * 8, "t", EpisodeScore("t", success=True),
                         ScoreProvenance("0"), scored_at_ns=1).to_json()


def fill(path: str, n: int, sinks=("file",)) -> None:
    s = Store(path)
    for i in range(n):
        tid = f"{i + 1:032x}"
        s.ingest([IncomingChunk("traces", tid, b"p", ("01" * 8,), True)])
        s.record_score(tid, 0, s.max_payload_id(tid), task_id="t", matched=True, success=True,
                       envelope=envelope(i), sinks=sinks)
    s.close()


class FlakySink:
    def __init__(self, failures: int):
        self.failures = failures
        self.received: list = []

    def send(self, envelopes):
        if self.failures > 0:
            self.failures -= 1
            return False
        self.received.extend(e.key for e in envelopes)
        return True

    def close(self):
        pass


def test_retries_with_backoff_until_the_sink_works(tmp_path):
    path = str(tmp_path / "s.db")
    fill(path, 5, sinks=("otlp",))
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    sink = FlakySink(failures=3)
    exporter = OutboxExporter("otlp", sink, writer, lambda: Store(path, readonly=True),
                              backoff=Backoff(initial_s=0.05, max_s=0.2))
    exporter.start()
    wait_for(lambda: len(sink.received) == 5, 30, "5 scores delivered")
    exporter.stop(5)
    assert exporter.failures == 3 and sorted(set(sink.received)) == sorted(sink.received)
    assert writer.call(lambda s: s.counts()["outbox_pending"]) == 0
    writer.stop()


def test_backoff_grows_and_is_capped():
    delays = Backoff(initial_s=1.0, max_s=30.0, jitter=0.2).delays(10)
    assert 0.8 <= delays[0] <= 1.2 and all(d <= 36.0 for d in delays) and delays[-1] >= 24.0


def test_file_sink_write_interrupted_by_a_crash_is_written_exactly_once(tmp_path):
    path, out = str(tmp_path / "s.db"), str(tmp_path / "scores.jsonl")
    fill(path, 3)
    # A previous run wrote the batch (fully or torn) and died before marking it exported.
    s = Store(path)
    ids = [r.id for r in s.pending_exports("file")]
    with open(out, "w") as f:
        f.write('{"resourceSpans": []}\n')                # an earlier, confirmed write
    s.mark_sending(ids, len('{"resourceSpans": []}\n'))
    s.close()
    FileSink(out).send([ScoreEnvelope.from_json(envelope(i)) for i in range(3)])
    with open(out, "a") as f:
        f.write('{"resourceSpans": [{"torn')            # and a torn line
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    exporter = OutboxExporter("file", FileSink(out), writer, lambda: Store(path, readonly=True),
                              file_path=out)
    exporter.start()
    wait_for(lambda: writer.call(lambda s: s.counts()["outbox_pending"]) == 0, 30, "delivered")
    exporter.stop(5)
    writer.stop()
    lines = open(out).read().splitlines()
    assert lines[0] == '{"resourceSpans": []}'
    traces = [json.loads(l) for l in lines[1:]]          # every line parses: no torn write
    ids_written = [span["traceId"] for t in traces for rs in t.get("resourceSpans", [])
                   for ss in rs["scopeSpans"] for span in ss["spans"]]
    assert sorted(ids_written) == sorted({f"{i + 1:032x}" for i in range(3)})


class _FailingMarks:
    """A writer whose first ``failures`` calls after a file write raise (a store I/O error)."""

    def __init__(self, writer, failures: int):
        self.writer = writer
        self.failures = failures
        self.raised = 0

    def call(self, op, timeout=60.0):
        name = getattr(op, "__code__", None) and op.__code__.co_names
        if self.failures > 0 and name and "mark_exported" in name:
            self.failures -= 1
            self.raised += 1
            raise OSError("disk I/O error (injected)")
        return self.writer.call(op, timeout)


def test_a_store_error_does_not_stop_the_outbox_nor_duplicate_a_file_write(tmp_path):
    """Regression: an exception from the store (not the sink) ended the exporter thread for
    good; after a file write whose mark failed, the retry must not write the batch twice."""
    path, out = str(tmp_path / "s.db"), str(tmp_path / "scores.jsonl")
    fill(path, 4)
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    flaky = _FailingMarks(writer, failures=2)
    exporter = OutboxExporter("file", FileSink(out), flaky, lambda: Store(path, readonly=True),
                              file_path=out, batch=2, backoff=Backoff(initial_s=0.01, max_s=0.05))
    exporter.start()
    wait_for(lambda: writer.call(lambda s: s.counts()["outbox_pending"]) == 0, 30, "delivered")
    exporter.stop(5)
    writer.stop()
    assert flaky.raised == 2
    ids = [span["traceId"] for line in open(out).read().splitlines()
           for rs in json.loads(line).get("resourceSpans", []) for ss in rs["scopeSpans"]
           for span in ss["spans"]]
    assert sorted(ids) == sorted({f"{i + 1:032x}" for i in range(4)})
