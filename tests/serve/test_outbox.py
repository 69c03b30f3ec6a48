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


# ---------------------------------------------------------------------------
# Giving up: a run the backend never gets, a request it refuses for good (real HTTP servers)
# ---------------------------------------------------------------------------

import logging  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent.parent / "emit"))
from local_servers import HttpServer  # noqa: E402

from ek_otel.emit.phoenix import PhoenixSink  # noqa: E402


def _phoenix_like(unknown_traces: set, status: int = 0) -> dict:
    """Answers as Phoenix's sync mode: 404 naming the spans/traces of ``unknown_traces``
    (nothing of that request written), 200 otherwise; or always ``status`` when given."""
    def answer(kind):
        def respond(body):
            if status:
                return status, b'{"detail": "Invalid API key"}'
            data = json.loads(body)["data"]
            missing = [d[kind] for d in data if _trace_of(d[kind]) in unknown_traces]
            if missing:
                label = "Spans" if kind == "span_id" else "Traces"
                return 404, f"{label} with IDs {', '.join(missing)} do not exist.".encode()
            return 200, json.dumps({"data": [{"id": str(i)} for i in range(len(data))]}).encode()
        return respond

    return {"/v1/span_annotations": [(0, answer("span_id"))],
            "/v1/trace_annotations": [(0, answer("trace_id"))]}


def _trace_of(some_id: str) -> int:
    return int(some_id, 16)  # span id i and trace id i name the same run below


def _fill_runs(path: str, n: int, sink: str) -> None:
    s = Store(path)
    for i in range(1, n + 1):
        tid = f"{i:032x}"
        env = ScoreEnvelope(tid, f"{i:016x}", "t", EpisodeScore("t", f1=1.0, success=True),
                            ScoreProvenance("0"), scored_at_ns=1).to_json()
        s.ingest([IncomingChunk("traces", tid, b"p", (f"{i:016x}",), True)])
        s.record_score(tid, 0, s.max_payload_id(tid), task_id="t", matched=True, success=True,
                       envelope=env, sinks=(sink,))
    s.close()


def _exporter(path, sink, writer, give_up_s, batch=200):
    return OutboxExporter("phoenix", sink, writer, lambda: Store(path, readonly=True),
                          backoff=Backoff(initial_s=0.05, max_s=0.2, jitter=0.0),
                          give_up_s=give_up_s, batch=batch)


def test_runs_phoenix_never_gets_do_not_block_the_others_and_are_given_up_once(tmp_path, caplog):
    path = str(tmp_path / "s.db")
    _fill_runs(path, 6, "phoenix")  # runs 1 and 2 (the oldest) never reach Phoenix
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    with HttpServer(_phoenix_like({1, 2})) as server, \
            caplog.at_level(logging.WARNING, logger="ek_otel.serve.outbox"):
        sink = PhoenixSink(server.url, timeout=0.3)
        # a batch of 2: the stuck rows alone would fill it, were they not sent after fresh rows
        exporter = _exporter(path, sink, writer, give_up_s=4.0, batch=2)
        exporter.start()
        wait_for(lambda: writer.call(lambda s: s.counts()["exported"]) == 4, 30,
                 "the 4 runs Phoenix has delivered")
        counts = writer.call(lambda s: s.counts())
        assert counts["export_failed"] == 0 and counts["outbox_pending"] == 2  # not yet
        wait_for(lambda: writer.call(lambda s: s.counts()["export_failed"]) == 2, 30,
                 "the 2 unknown runs given up")
        assert exporter.wait_idle(30)
        exporter.stop(5)
    failures = writer.call(lambda s: s.export_failures())
    assert [(sink_name, tid) for sink_name, tid, _, _ in failures] == [
        ("phoenix", f"{1:032x}"), ("phoenix", f"{2:032x}")]
    assert all("does not have the run" in why and "(yet)" in why for *_, why in failures)
    gave_up = [r.getMessage() for r in caplog.records if "giving up" in r.getMessage()]
    assert len(gave_up) == 2  # one warning per row, naming the backend, the trace, the reason
    assert all("phoenix" in m and "has no span" in m for m in gave_up)
    assert {f"{1:032x}" in gave_up[0], f"{2:032x}" in gave_up[1]} == {True}
    # every known run's annotations written exactly once (the stuck ones never were)
    accepted = [d["trace_id"] for r in server.requests if r.path == "/v1/trace_annotations"
                for d in json.loads(r.body)["data"] if int(d["trace_id"], 16) > 2]
    assert sorted(int(t, 16) for t in accepted) == [3, 4, 5, 6]  # each once
    assert writer.call(lambda s: s.counts()["outbox_pending"]) == 0
    writer.stop()


def test_a_refused_request_is_logged_per_batch_and_given_up_after_the_bound(tmp_path, caplog):
    path = str(tmp_path / "s.db")
    _fill_runs(path, 3, "phoenix")
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    with HttpServer(_phoenix_like(set(), status=401)) as server, \
            caplog.at_level(logging.WARNING, logger="ek_otel.serve.outbox"):
        exporter = _exporter(path, PhoenixSink(server.url, timeout=0.3), writer, give_up_s=0.5)
        exporter.start()
        wait_for(lambda: writer.call(lambda s: s.counts()["export_failed"]) == 3, 30,
                 "the refused scores given up")
        assert exporter.wait_idle(30)
        exporter.stop(5)
        n_requests = len(server.requests)
    failed_batches = [r.getMessage() for r in caplog.records if "failed (" in r.getMessage()]
    assert failed_batches and all("HTTP 401" in m for m in failed_batches)
    assert exporter.failures == len(failed_batches)  # one line per batch, not per score
    assert all("refused it: HTTP 401" in why for *_, why in writer.call(
        lambda s: s.export_failures()))
    assert writer.call(lambda s: s.counts()["exported"]) == 0
    assert n_requests <= 2 * len(failed_batches)  # one request per kind per batch: no storm
    writer.stop()


def test_transient_failures_are_never_given_up(tmp_path):
    path = str(tmp_path / "s.db")
    _fill_runs(path, 3, "phoenix")
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    ok = _phoenix_like(set())
    answers = {p: [(503, b"down")] * 8 + items for p, items in ok.items()}
    with HttpServer(answers) as server:
        exporter = _exporter(path, PhoenixSink(server.url, timeout=0.2), writer, give_up_s=0.0)
        exporter.start()
        wait_for(lambda: writer.call(lambda s: s.counts()["exported"]) == 3, 60,
                 "every score delivered once Phoenix is back")
        exporter.stop(5)
    assert exporter.failures > 0
    assert writer.call(lambda s: s.counts()["export_failed"]) == 0
    writer.stop()


def test_a_delivered_revision_retires_older_pending_revisions_of_its_trace(tmp_path):
    s = Store(str(tmp_path / "s.db"))
    tid = f"{1:032x}"
    s.ingest([IncomingChunk("traces", tid, b"p", ("01" * 8,), True)])
    for rev in (0, 1):
        s.record_score(tid, rev, s.max_payload_id(tid), task_id="t", matched=True,
                       success=True, envelope=envelope(0), sinks=("phoenix",))
    old, new = s.pending_exports("phoenix")
    s.count_attempt([old.id], now=5.0)
    assert [r.id for r in s.pending_exports("phoenix", fresh_first=True)] == [new.id, old.id]
    assert s.pending_exports("phoenix", fresh_first=True)[1].first_failed == 5.0
    s.mark_exported([new.id], supersede=True)
    assert s.pending_exports("phoenix") == [] and s.counts()["export_failed"] == 0
    s.close()


def test_only_overwriting_sinks_retire_older_revisions():
    """Phoenix and MLflow keep one score per run: a newer revision replaces the older one. The
    OTLP and file sinks deliver every revision (each is its own evaluation span / record)."""
    from ek_otel.serve.app import OVERWRITING_SINKS as used_by_the_app
    from ek_otel.serve.outbox import OVERWRITING_SINKS

    assert used_by_the_app is OVERWRITING_SINKS == frozenset({"phoenix", "mlflow"})
    exporters = {name: OutboxExporter(name, object(), None, lambda: None,
                                      overwrites=name in OVERWRITING_SINKS)
                 for name in ("phoenix", "mlflow", "otlp", "file")}
    assert {name: e.overwrites for name, e in exporters.items()} == {
        "phoenix": True, "mlflow": True, "otlp": False, "file": False}


def test_an_mlflow_without_the_run_gets_the_others_and_the_stuck_one_is_given_up(tmp_path,
                                                                                  caplog):
    from ek_otel.emit.mlflow import MlflowSink

    path = str(tmp_path / "s.db")
    _fill_runs(path, 2, "mlflow")  # run 1 never reaches MLflow; run 2 does
    api = "/api/3.0/mlflow/traces"
    unknown = (404, json.dumps({"error_code": "RESOURCE_DOES_NOT_EXIST",
                                "message": "Trace not found"}).encode())
    known = (200, json.dumps({"trace": {"trace_info": {"assessments": []}}}).encode())
    answers = {f"GET {api}/tr-{1:032x}": [unknown], f"GET {api}/tr-{2:032x}": [known],
               f"{api}/tr-{2:032x}/assessments": [(200, b'{"assessment": {}}')]}
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    with HttpServer(answers) as server, \
            caplog.at_level(logging.WARNING, logger="ek_otel.serve.outbox"):
        exporter = OutboxExporter("mlflow", MlflowSink(server.url, timeout=0.3), writer,
                                  lambda: Store(path, readonly=True),
                                  backoff=Backoff(initial_s=0.05, max_s=0.2, jitter=0.0),
                                  give_up_s=1.0)
        exporter.start()
        wait_for(lambda: writer.call(lambda s: s.counts()["export_failed"]) == 1, 30,
                 "the run MLflow lacks given up")
        assert exporter.wait_idle(30)
        exporter.stop(5)
    assert writer.call(lambda s: s.counts()["exported"]) == 1
    posts = [r for r in server.requests if r.path.endswith("/assessments")]
    assert len(posts) == 1  # the known run's assessment, once
    (failure,) = writer.call(lambda s: s.export_failures())
    assert failure[:2] == ("mlflow", f"{1:032x}") and "has no trace" in failure[3]
    gave_up = [r.getMessage() for r in caplog.records if "giving up" in r.getMessage()]
    assert len(gave_up) == 1 and f"{1:032x}" in gave_up[0] and "mlflow" in gave_up[0]
    writer.stop()


def test_rows_prepared_for_the_sink_are_sent_as_bytes_and_the_others_from_their_envelopes(
        tmp_path):
    """A row prepared for another encoding (a restart with other options) or not at all (an
    older store) sends the batch from the envelopes; the file is the same either way."""
    from ek_otel.emit.prepared import Encoding, encode_score

    class Recording(FileSink):
        def __init__(self, path):
            super().__init__(path)
            self.calls: list = []

        def send(self, envelopes):
            self.calls.append("envelopes")
            return super().send(envelopes)

        def send_prepared(self, prepared):
            self.calls.append("prepared")
            return super().send_prepared(prepared)

    def run(prepared_for) -> tuple:
        path, out = str(tmp_path / f"{len(prepared_for)}.db"), str(tmp_path / f"{len(prepared_for)}.jsonl")
        s = Store(path)
        for i, encoding in enumerate(prepared_for):
            tid = f"{i + 1:032x}"
            s.ingest([IncomingChunk("traces", tid, b"p", ("01" * 8,), True)])
            text = envelope(i)
            data = None if encoding is None else encode_score(encoding, ScoreEnvelope.from_json(text))
            s.record_score(tid, 0, s.max_payload_id(tid), task_id="t", matched=True,
                           success=True, envelope=text, sinks=("file",),
                           prepared={} if data is None else {"file": data})
        s.close()
        writer = GroupCommitWriter(lambda: Store(path))
        writer.start()
        sink = Recording(out)
        exporter = OutboxExporter("file", sink, writer, lambda: Store(path, readonly=True),
                                  file_path=out)
        exporter.start()
        wait_for(lambda: writer.call(lambda s: s.counts()["outbox_pending"]) == 0, 30, "sent")
        exporter.stop(5)
        writer.stop()
        return sink.calls, open(out).read()

    ours = Encoding("json", False, ("spans", "logs"))
    prepared = run([ours] * 3)
    other = run([ours, Encoding("json", True, ("spans", "logs")), ours, ours])
    older = run([ours, None, ours, ours, ours])
    assert prepared[0] == ["prepared"] and other[0] == older[0] == ["envelopes"]
    reference = str(tmp_path / "reference.jsonl")
    FileSink(reference).send([ScoreEnvelope.from_json(envelope(i)) for i in range(3)])
    assert prepared[1] == open(reference).read()
    assert other[1].count("\n") == older[1].count("\n") == 2
