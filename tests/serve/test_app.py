"""The whole server: revisions, the outbox while the emit endpoint is down, SIGTERM, kill -9."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import urllib.error
import urllib.request
from collections import Counter

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ek_otel.ingest.anyvalue import attributes_to_pb

from serve_helpers import OtlpTestSink, ServerProcess, cpu_seconds, free_port, wait_for

PB = {"Content-Type": "application/x-protobuf"}


def post(url, body, timeout=10):
    req = urllib.request.Request(url, data=body, headers=PB, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def run_request(trace_ids, *, task_of=lambda i: f"task-{i % 20}", late=False) -> bytes:
    """One request holding a whole GenAI run per trace id (root, chat, tool), or a late span."""
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    kv = rs.resource.attributes.add()
    kv.key, kv.value.string_value = "service.name", "agent"
    ss = rs.scope_spans.add()
    for n, tid in enumerate(trace_ids):
        tb = bytes.fromhex(tid)
        root_id = tb[:8]

        def span(sid, name, parent=b"", attrs=None):
            s = ss.spans.add()
            s.trace_id, s.span_id, s.name = tb, sid, name
            s.start_time_unix_nano, s.end_time_unix_nano = 1_000_000, 2_000_000
            if parent:
                s.parent_span_id = parent
            attributes_to_pb(attrs or {}, s.attributes)

        index = int(tid[-4:], 16)
        tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"}
        if late:
            span(b"\x7f" + tb[1:8], "execute_tool get_weather", root_id,
                 {**tool, "gen_ai.tool.call.arguments": json.dumps({"city": "elsewhere"})})
            continue
        span(root_id, "invoke_agent helper", b"",
             {"gen_ai.operation.name": "invoke_agent", "ek.task.id": task_of(index)})
        span(b"\x01" + tb[1:8], "chat m", root_id,
             {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 50})
        span(b"\x02" + tb[1:8], "execute_tool get_weather", root_id,
             {**tool, "gen_ai.tool.call.arguments": json.dumps({"city": f"city-{index % 20}"})})
    return req.SerializeToString()


def tid(i: int, salt: int = 0xAB) -> str:
    return f"{salt:02x}" * 14 + f"{i:04x}"


def file_scores(path) -> Counter:
    """(trace id, revision) → how many evaluation spans a FileSink wrote for it."""
    out: Counter = Counter()
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            data = json.loads(line)
            for rs in data.get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
                        if "ek.revision" in attrs:
                            rev = int(attrs["ek.revision"].get("intValue", 0))
                            out[(span["traceId"].lower(), rev)] += 1
    return out


def store_rows(path, sql):
    conn = sqlite3.connect(path, timeout=30)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_late_spans_make_a_revision_and_keep_the_first(otlp_sink, start_server):
    server = start_server(emit_endpoint=otlp_sink.endpoint, emit_protocol="grpc", grace_s=0.2)
    t = tid(1, 0x11)
    assert post(server.http_url + "/v1/traces", run_request([t])) == 200
    wait_for(lambda: server.counts()["scores"] == 1, 30, "revision 0")
    assert post(server.http_url + "/v1/traces", run_request([t], late=True)) == 200
    wait_for(lambda: server.counts()["scores"] == 2, 30, "revision 1")
    wait_for(lambda: len(otlp_sink.scores()) >= 2, 30, "both revisions exported")
    revisions = sorted((r, a["ek.success"].bool_value) for x, r, a in otlp_sink.scores() if x == t)
    assert revisions == [(0, True), (1, False)]     # the late spurious call fails revision 1
    rows = server.app.writer.call(lambda s: s.latest_scores())
    assert [(r.trace_id, r.revision) for r in rows] == [(t, 1)]


def test_scores_arrive_once_the_emit_endpoint_is_back(start_server):
    port = free_port()
    server = start_server(emit_endpoint=f"http://127.0.0.1:{port}", emit_protocol="grpc")
    ids = [tid(i, 0x22) for i in range(5)]
    assert post(server.http_url + "/v1/traces", run_request(ids)) == 200
    wait_for(lambda: server.counts()["scored"] == 5, 30, "5 traces scored")
    wait_for(lambda: server.app.exporters[0].failures >= 1, 60, "an export failure")
    assert server.counts()["outbox_pending"] == 5
    sink = OtlpTestSink(port)
    try:
        wait_for(lambda: {t for t, _, _ in sink.scores()} == set(ids), 90, "scores at the sink")
        wait_for(lambda: server.counts()["outbox_pending"] == 0, 30, "outbox empty")
    finally:
        sink.stop()


def _pump(url, start, acked, stop, batch=3):
    """Send whole runs, `batch` traces per request; record the acknowledged trace ids."""
    i = start
    while not stop.is_set() and i < start + 3000:
        ids = [tid(i + j) for j in range(batch)]
        try:
            status = post(url, run_request(ids), timeout=5)
        except OSError:
            return
        if status == 200:
            acked.extend(ids)
        i += batch


def test_kill_9_mid_load_loses_nothing_and_scores_and_exports_once(tmp_path, gold,
                                                                   server_processes):
    store = str(tmp_path / "store.db")
    scores_file = str(tmp_path / "scores.jsonl")
    args = ["--gold", gold, "--store", store, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
            "--grace", "0.3", "--emit-file", scores_file]

    def start(n):
        p = ServerProcess(args, str(tmp_path / f"server{n}.log"))
        server_processes.append(p)
        return p

    first = start(1)
    acked: list = []
    stop = threading.Event()
    pump = threading.Thread(target=_pump, args=(f"http://127.0.0.1:{first.http_port}/v1/traces",
                                                0, acked, stop))
    pump.start()
    wait_for(lambda: len(acked) >= 150, 60, "150 acknowledged traces")
    first.kill9()                                     # mid-load: requests are in flight
    stop.set()
    pump.join(30)
    acked_first = list(acked)

    # Restart; kill again while it is scoring and exporting the backlog.
    second = start(2)
    wait_for(lambda: store_rows(store, "SELECT COUNT(*) FROM scores")[0][0] >= 1, 60,
             "scoring after restart")
    second.kill9()

    third = start(3)
    wait_for(lambda: store_rows(store, "SELECT COUNT(*) FROM traces WHERE state='open' "
                                       "AND has_root=1")[0][0] == 0, 90, "all rooted traces scored")
    assert third.terminate() == 0                      # SIGTERM: graceful, exit 0

    scored = store_rows(store, "SELECT trace_id, revision FROM scores")
    per_trace = Counter(t for t, _ in scored)
    assert set(acked_first) <= set(per_trace), "an acknowledged trace was lost"
    assert all(n == 1 for n in per_trace.values()), "a trace was scored twice"
    assert store_rows(store, "SELECT COUNT(*) FROM outbox WHERE exported IS NULL")[0][0] == 0
    written = file_scores(scores_file)
    assert set(written) == {(t, r) for t, r in scored}
    assert max(written.values()) == 1, "a score was exported twice"


def test_scores_sent_back_to_the_server_are_not_scored_again(start_server):
    """A Collector forwards the scores (spans in the evaluated trace) back: no revision loop."""
    port = free_port()
    server = start_server(grpc=("127.0.0.1", port), emit_endpoint=f"http://127.0.0.1:{port}",
                          emit_protocol="grpc")
    ids = [tid(i, 0x33) for i in range(3)]
    assert post(server.http_url + "/v1/traces", run_request(ids)) == 200
    wait_for(lambda: server.counts()["exported"] == 3, 60, "3 scores exported to ourselves")
    before = server.counts()
    wait_for(lambda: server.app.intake.own_output_requests >= 1, 30, "the scores came back")
    import time

    time.sleep(1.0)  # several grace periods: a wrongly re-opened trace would be re-scored
    after = server.counts()
    assert after["scores"] == before["scores"] == 3
    assert after["open"] == 0 and after["spans"] == before["spans"]


def test_a_trace_that_kills_its_scoring_worker_is_isolated_and_recorded(start_server, monkeypatch):
    """A poison trace (its worker dies) is retried alone, then recorded as failed; the others
    batched with it are scored."""
    import ek_otel.serve.scheduler as scheduler

    poison = tid(7, 0x44)
    real = scheduler.score_traces

    def crashing(setup, items):
        if any(trace_id == poison for trace_id, _, _ in items):
            raise SystemExit("worker died")       # what a dead worker looks like to the pool
        return real(setup, items)

    monkeypatch.setattr(scheduler, "score_traces", crashing)
    server = start_server()
    ids = [tid(i, 0x44) for i in range(8)]
    assert post(server.http_url + "/v1/traces", run_request(ids)) == 200
    wait_for(lambda: server.counts()["scores"] == 8, 60, "all 8 traces recorded")
    rows = {r.trace_id: r for r in server.app.writer.call(lambda s: s.latest_scores())}
    assert rows[poison].matched is False and "crashed" in rows[poison].detail
    assert all(rows[t].success for t in ids if t != poison)


def long_run_request(trace_id: str, n_calls: int) -> bytes:
    """One run of task-1 with ``n_calls`` tool calls: seconds of scoring work for a worker."""
    req = ExportTraceServiceRequest()
    ss = req.resource_spans.add().scope_spans.add()
    tb = bytes.fromhex(trace_id)
    root = ss.spans.add()
    root.trace_id, root.span_id, root.name = tb, tb[:8], "invoke_agent helper"
    attributes_to_pb({"gen_ai.operation.name": "invoke_agent", "ek.task.id": "task-1"},
                     root.attributes)
    for i in range(n_calls):
        span = ss.spans.add()
        span.trace_id, span.span_id, span.parent_span_id = tb, (i + 1).to_bytes(8, "big"), tb[:8]
        span.name, span.start_time_unix_nano = "execute_tool get_weather", 1_000 + i
        attributes_to_pb({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                          "gen_ai.tool.call.arguments": json.dumps({"city": f"city-{i}"})},
                         span.attributes)
    return req.SerializeToString()


def test_kill_9_of_a_real_scoring_worker_mid_scoring_scores_the_episode_once(
        tmp_path, gold, server_processes):
    """``ek-otel serve`` with its scoring worker process: SIGKILL that process while it scores
    a run. The server survives, starts a new worker, and the run is scored exactly once."""
    store = str(tmp_path / "store.db")
    server = ServerProcess(["--gold", gold, "--store", store, "--http", "127.0.0.1:0",
                            "--grpc", "127.0.0.1:0", "--grace", "0.2", "--scorers", "1", "-v"],
                           str(tmp_path / "server.log"))
    server_processes.append(server)
    url = f"http://127.0.0.1:{server.http_port}/v1/traces"
    warm = tid(1, 0x55)
    assert post(url, run_request([warm])) == 200      # starts the worker, imports done
    wait_for(lambda: store_rows(store, "SELECT COUNT(*) FROM scores")[0][0] == 1, 60,
             "the first run scored")
    (worker,) = wait_for(server.scoring_workers, 30, "the scoring worker process")
    idle = cpu_seconds(worker)
    long_run = tid(2, 0x55)
    assert post(url, long_run_request(long_run, 30_000), timeout=120) == 200
    wait_for(lambda: cpu_seconds(worker) - idle > 0.5, 60, "the worker busy scoring the run")
    assert store_rows(store, "SELECT COUNT(*) FROM scores")[0][0] == 1   # still in the worker
    os.kill(worker, signal.SIGKILL)
    wait_for(lambda: store_rows(store, f"SELECT COUNT(*) FROM scores WHERE trace_id='{long_run}'")
             [0][0] == 1, 120, "the run scored after the worker restart")
    assert server.proc.poll() is None, "the server itself must survive"
    new_workers = server.scoring_workers()
    assert new_workers and worker not in new_workers
    assert server.terminate() == 0
    rows = store_rows(store, "SELECT trace_id, revision, matched FROM scores ORDER BY created")
    assert rows == [(warm, 0, 1), (long_run, 0, 1)]
    log = open(tmp_path / "server.log").read()
    assert "scoring 1 traces did not finish" in log     # the kill hit the job in flight


def test_kill_9_with_the_otlp_sink_delivers_every_score_with_the_same_span_ids(
        tmp_path, gold, server_processes):
    """kill -9 of ``ek-otel serve`` while scores are on their way to a (slow) OTLP backend:
    after the restart every score reaches the backend, none lost, and a score delivered
    twice (sent before the kill, its acknowledgement lost) carries the same span id, so the
    backend sees one evaluation span per (trace, revision)."""
    from ek_otel.emit.encode import EVALUATION_SPAN, derived_span_id
    from ek_otel.emit.envelope import ScoreEnvelope

    sink = OtlpTestSink(delay_s=0.5)
    store = str(tmp_path / "store.db")
    args = ["--gold", gold, "--store", store, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
            "--grace", "0.2", "--emit-endpoint", sink.endpoint, "--emit-protocol", "grpc"]
    try:
        first = ServerProcess(args, str(tmp_path / "server1.log"))
        server_processes.append(first)
        ids = [tid(i, 0x66) for i in range(40)]
        url = f"http://127.0.0.1:{first.http_port}/v1/traces"
        for i in range(0, len(ids), 4):
            assert post(url, run_request(ids[i:i + 4])) == 200
        pending = "SELECT COUNT(*) FROM outbox WHERE exported IS NULL"
        wait_for(lambda: sink.evaluation_spans() and store_rows(store, pending)[0][0] > 0, 60,
                 "scores received by the backend, not yet acknowledged")
        first.kill9()
        delivered_before = len(sink.evaluation_spans())

        second = ServerProcess(args, str(tmp_path / "server2.log"))
        server_processes.append(second)
        wait_for(lambda: store_rows(store, "SELECT COUNT(*) FROM scores")[0][0] == len(ids)
                 and store_rows(store, pending)[0][0] == 0, 120, "every score delivered")
        assert second.terminate() == 0
        scored = store_rows(store, "SELECT trace_id, revision, envelope FROM scores")
        expected = {}
        for trace_id, revision, envelope in scored:
            env = ScoreEnvelope.from_json(envelope)
            expected[(trace_id, revision)] = format(
                derived_span_id(trace_id, env.root_span_id, revision, EVALUATION_SPAN), "016x")
        received = sink.evaluation_spans()
        assert {(t, r) for t, r, _, _ in received} == set(expected) == {(t, 0) for t in ids}
        assert all(span_id == expected[(t, r)] for t, r, span_id, _ in received)
        # the kill came mid-delivery, and what was not acknowledged was delivered again
        assert 0 < delivered_before < len(received)
    finally:
        sink.stop()


def test_ignore_tools_reach_the_scoring_worker_process(otlp_sink, start_server):
    """--ignore-tool travels in ScoreSettings JSON to a worker process: the run's `think`
    call is neither TP nor FP there, and the exported score records the ignored tools."""
    from ek_otel.scoring.settings import ScoreSettings

    settings = ScoreSettings(ignore_tools=("think", "transfer_to_*")).to_json()
    server = start_server(emit_endpoint=otlp_sink.endpoint, emit_protocol="grpc", grace_s=0.2,
                          scorer_processes=1, score_settings=settings)
    t = tid(2, 0x12)
    req = ExportTraceServiceRequest.FromString(run_request([t]))
    spans = req.resource_spans[0].scope_spans[0].spans
    for n, name in enumerate(("think", "transfer_to_billing")):
        extra = spans.add()
        extra.CopyFrom(spans[2])  # the execute_tool span, renamed
        extra.span_id = bytes([0x03 + n]) + extra.span_id[1:]
        extra.name = f"execute_tool {name}"
        del extra.attributes[:]
        attributes_to_pb({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
                         extra.attributes)
    assert post(server.http_url + "/v1/traces", req.SerializeToString()) == 200
    wait_for(lambda: len(otlp_sink.scores()) >= 1, 60, "the score exported")
    ((trace_id, _, attrs),) = otlp_sink.scores()
    assert trace_id == t
    assert attrs["ek.success"].bool_value is True and attrs["ek.fp"].double_value == 0.0
    assert json.loads(attrs["ek.matcher.ignore_tools"].string_value) == ["think", "transfer_to_*"]
    (row,) = server.app.writer.call(lambda s: s.latest_scores())
    assert "ignored: think, transfer_to_billing" in json.loads(row.envelope)["score"]["explanation"]


def test_scoring_workers_start_ready_and_exit_when_the_server_is_killed(tmp_path, gold,
                                                                        server_processes):
    """By default one scoring worker per core, started (warmed up) before any span arrives;
    after kill -9 of the server they exit on their own instead of waiting forever."""
    server = ServerProcess(["--gold", gold, "--store", str(tmp_path / "store.db"), "--http",
                            "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--scorers", "2"],
                           str(tmp_path / "server.log"))
    server_processes.append(server)
    workers = wait_for(lambda: (lambda p: p if len(p) == 2 else None)(server.scoring_workers()),
                       60, "two scoring workers, with no span received")
    server.kill9()

    def gone(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    wait_for(lambda: all(gone(pid) for pid in workers), 30, "the orphaned workers to exit")


def test_the_file_the_workers_prepared_is_what_the_file_sink_writes_of_the_stored_scores(
        tmp_path, start_server):
    """Scores encoded in a scoring worker process and framed by the outbox: each batch's two
    lines are, byte for byte, what FileSink.send writes for the stored envelopes of its
    scores (the resource is the receiver's); the outbox rows hold the prepared bytes and no
    second copy of the envelope. Late spans make a revision, written after the first."""
    from ek_otel.emit.envelope import ScoreEnvelope
    from ek_otel.emit.otlp_json import request_lines
    from ek_otel.emit.encode import encode_log_records, encode_spans

    scores_file = str(tmp_path / "scores.jsonl")
    server = start_server(emit_file=scores_file, scorer_processes=1, grace_s=0.2)
    ids = [tid(i, 0x77) for i in range(12)]
    for i in range(0, len(ids), 3):
        assert post(server.http_url + "/v1/traces", run_request(ids[i:i + 3])) == 200
    wait_for(lambda: server.counts()["scores"] == len(ids), 60, "every trace scored")
    assert post(server.http_url + "/v1/traces", run_request(ids[:1], late=True)) == 200
    wait_for(lambda: server.counts()["scores"] == len(ids) + 1, 60, "the late revision")
    wait_for(lambda: server.counts()["outbox_pending"] == 0, 60, "every score written")
    store = str(tmp_path / "store.db")
    envelopes = {(t, r): ScoreEnvelope.from_json(e) for t, r, e in store_rows(
        store, "SELECT trace_id, revision, envelope FROM scores WHERE envelope IS NOT NULL")}
    assert store_rows(store, "SELECT COUNT(*) FROM outbox WHERE prepared IS NOT NULL "
                             "AND envelope = ''")[0][0] == len(envelopes) == len(ids) + 1
    lines = open(scores_file).read().splitlines()
    assert len(lines) % 2 == 0
    written = []
    for traces_line, logs_line in zip(lines[::2], lines[1::2]):
        keys = []
        for span in json.loads(traces_line)["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            attrs = {a["key"]: a["value"] for a in span["attributes"]}
            key = (span["traceId"], int(attrs["ek.revision"]["intValue"]))
            if key not in keys:
                keys.append(key)
        batch = [envelopes[k] for k in keys]
        assert [traces_line, logs_line] == request_lines(encode_spans(batch),
                                                         encode_log_records(batch))
        written.extend(keys)
    assert sorted(written) == sorted(envelopes) and written.index((ids[0], 1)) > written.index(
        (ids[0], 0))


def test_match_modes_and_hard_rules_reach_the_scoring_worker_process(tmp_path, start_server):
    """A gold file with match, args and a hard rule, read by serve and scored in a worker
    process: the stored score carries the mode's explanation and the rule broken."""
    from serve_helpers import GOLD_TASKS

    tasks = [dict(t, match="superset", args="ignore", max_calls={"get_weather": 0 if i == 2 else 1})
             if i in (1, 2) else t for i, t in enumerate(GOLD_TASKS)]
    tasks[2]["calls"] = []  # a limit may not be below the calls the task expects
    path = tmp_path / "modes.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    server = start_server(gold=str(path), grace_s=0.2, scorer_processes=1)
    traces = [tid(1, 0x31), tid(2, 0x32)]  # task-1 and task-2, one get_weather call each
    assert post(server.http_url + "/v1/traces", run_request(traces)) == 200
    wait_for(lambda: len(server.app.writer.call(lambda s: s.latest_scores())) >= 2, 60, "two scores")
    scores = {json.loads(r.envelope)["score"]["task_id"]: json.loads(r.envelope)["score"]
              for r in server.app.writer.call(lambda s: s.latest_scores())}
    assert scores["task-1"]["success"] is True
    assert scores["task-1"]["explanation"].startswith("superset: 1 of 1 gold calls made")
    assert scores["task-2"]["success"] is False
    assert scores["task-2"]["violations"] == [
        {"kind": "too_many_calls", "tool": "get_weather", "detail": "1 > 0"}]
