"""Parallel scoring (``ek_otel.parallel``): the outputs of ``--jobs 2`` and ``--jobs 3`` are
byte for byte those of one process (the JSON report, the score file, the tables, the
bad-input report), over hand-written and real dumps; the processes fail and end cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ek_otel.errors import InputError, WorkerError
from ek_otel.gold.native import load_tasks
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.shard import owner_of
from ek_otel.ingest.span_tree import MISSING_PARENT
from ek_otel.parallel import MIN_PARALLEL_BYTES, ParallelScoring, _ShardRun, main_share, plan_jobs
from ek_otel.pipeline import score_dump
from ek_otel.scoring.link import load_settings
from ek_otel.scoring.settings import ScoreSettings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cli"))
sys.path.insert(0, str(ROOT / "bench"))

import identity_dump  # noqa: E402  (tests/cli/identity_dump.py)

EXAMPLES = ROOT / "examples"
CORPUS = ROOT / "tests" / "ingest" / "corpus"


class ListSink:
    def __init__(self):
        self.batches = []

    def send(self, envelopes):
        self.batches.append([(e.trace_id, e.revision, e.task_id) for e in envelopes])
        return True

    def close(self):
        pass


def _scored(paths, tasks, settings, jobs, keep=10, **options) -> tuple:
    """Everything a run gives: the JSON report, the sink's batches, the progress calls, the
    bad-input report."""
    report = BadInputReport(keep=keep)
    sink = ListSink()
    seen = []
    run = score_dump([str(p) for p in paths], tasks, settings, report=report, sink=sink, jobs=jobs,
                     on_episode=lambda outcome: seen.append(type(outcome).__name__), **options)
    data = run.to_dict()
    for episode in data["episodes"]:
        episode.pop("scored_at", None)
    return (json.dumps(data, sort_keys=True, default=str), sink.batches, seen,
            dict(report.counts), list(report.counts), [str(c) for c in report.cases])


def _assert_same_for_all_jobs(paths, tasks, settings, **options):
    one = _scored(paths, tasks, settings, 1, **options)
    for jobs in (2, 3):
        assert _scored(paths, tasks, settings, jobs, **options) == one, f"--jobs {jobs}"
    return one


# ---------------------------------------------------------------------------
# Pipeline level: score_dump(jobs=N) == score_dump(jobs=1)
# ---------------------------------------------------------------------------


def test_the_example_scores_the_same_in_parallel():
    tasks, settings = load_settings(str(EXAMPLES / "tasks.jsonl"), pricing=str(EXAMPLES / "pricing.yaml"))
    one = _assert_same_for_all_jobs([EXAMPLES / "traces.jsonl"], tasks, settings)
    assert json.loads(one[0])["aggregate"]["episodes"] > 0


def test_the_identity_dump_scores_the_same_in_parallel_with_late_spans(tmp_path):
    """Several traces per line, a trace over two lines, a duplicate, a bad line, our own
    output; with close_after below the late span's gap: a revision, as in one process."""
    paths = identity_dump.write_dump(str(tmp_path))
    tasks, settings = load_settings(paths["gold"])
    for close_after in (None, identity_dump.CLOSE_AFTER, 0, 3):
        one = _assert_same_for_all_jobs([paths["dump"]], tasks, settings, close_after=close_after)
        if close_after == identity_dump.CLOSE_AFTER:
            assert any(e["revision"] == 1 for e in json.loads(one[0])["episodes"])
            assert one[3]["invalid JSON"] == 1


@pytest.mark.parametrize("batch, ahead", [(1, 1), (1000, 1), (1, 1000)])
def test_the_merge_keeps_its_order_however_the_shards_run_ahead(tmp_path, monkeypatch, batch, ahead):
    """Workers that send one outcome at a time or many, a main process that holds one
    outcome of a shard or many before it waits."""
    monkeypatch.setattr("ek_otel.parallel._BATCH", batch)
    monkeypatch.setattr("ek_otel.parallel._MAX_AHEAD", ahead)
    paths = identity_dump.write_dump(str(tmp_path))
    tasks, settings = load_settings(paths["gold"])
    _assert_same_for_all_jobs([paths["dump"]], tasks, settings, close_after=identity_dump.CLOSE_AFTER)


def test_late_spans_of_evicted_traces_are_listed_once(tmp_path):
    paths = identity_dump.write_dump(str(tmp_path))
    tasks, settings = load_settings(paths["gold"])
    one = _assert_same_for_all_jobs([paths["dump"]], tasks, settings,
                                    close_after=identity_dump.CLOSE_AFTER, keep_closed=0)
    from ek_otel.scoring.link import LATE_EVICTED

    reasons = [u["reason"] for u in json.loads(one[0])["unmatched"]]
    assert reasons.count(LATE_EVICTED) == 1


def test_the_framework_corpus_reads_the_same_in_parallel():
    """Real spans and log records of every framework (logs with and without trace ids), and
    the files beside them that are not dumps (bad input)."""
    one = _assert_same_for_all_jobs([CORPUS], {}, ScoreSettings())
    assert len(json.loads(one[0])["unmatched"]) > 100
    assert one[3]  # expected.json and versions.txt are reported


@pytest.mark.parametrize("fmt", ["frames", "jsonl"])
def test_a_generated_dump_scores_the_same_in_parallel(tmp_path_factory, fmt):
    import ingest  # bench/ingest.py: the benchmark's generator

    folder = tmp_path_factory.mktemp("gen")
    paths = ingest.generate(str(folder), 20_000, 512, (fmt,))
    tasks, settings = load_settings(str(folder / "gold.jsonl"))
    one = _scored([paths[fmt]], tasks, settings, 1)
    assert _scored([paths[fmt]], tasks, settings, 2) == one
    assert json.loads(one[0])["aggregate"]["episodes"] == 2_000


def _ids(index: int) -> tuple:
    return f"{index:032x}", f"{index:016x}"


def _traces_of_each_shard(count: int = 2) -> list:
    """A trace id owned by each of ``count`` shards."""
    found: dict = {}
    index = 1
    while len(found) < count:
        trace = f"{index:032x}"
        found.setdefault(owner_of(trace, count, main_share(count)), trace)
        index += 1
    return [found[i] for i in range(count)]


def _span(trace, span, parent="", name="chat m", attributes=None, **extra):
    out = {"traceId": trace, "spanId": span, "name": name, "startTimeUnixNano": "1",
           "endTimeUnixNano": "2", "attributes": attributes if attributes is not None else [
               {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}
    if parent:
        out["parentSpanId"] = parent
    out.update(extra)
    return out


def _deep(levels: int) -> dict:
    value: dict = {"stringValue": "leaf"}
    for _ in range(levels):
        value = {"arrayValue": {"values": [value]}}
    return value


def write_bad_dump(folder: Path) -> Path:
    """Bad records of two shards' traces in the same lines, in alternation, with unit-level
    problems between them."""
    a, b = _traces_of_each_shard(2)
    spans = [
        _span(a, "a" * 16, name="invoke_agent", attributes=[{"key": "ek.task.id", "value": {"stringValue": "t"}}]),
        _span(a, "a1" * 8, "a" * 16, attributes=["junk"]),                       # a: bad attribute
        _span(b, "b" * 16, name="invoke_agent"),
        _span(b, "b1" * 8, "b" * 16, attributes=[{"key": 5, "value": {}}]),       # b: bad attribute
        _span("zz", "c" * 16),                                                    # invalid id
        _span(a, "a2" * 8, "a" * 16, attributes=[{"key": "deep", "value": _deep(40)}]),  # a: too deep
        _span(b, "b2" * 8, "b" * 16, name=5),                                     # b: malformed
        _span(b, "b3" * 8, "f" * 16),                                             # b: parent missing (build)
        _span(a, "a3" * 8, "e" * 16, events=[{"name": "x", "attributes": "nope"}]),  # a: event, parent missing
    ]
    request = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"intValue": "x"}},
                                                              "bad"]},
                                  "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"traceId": b, "spanId": "b" * 16, "eventName": "gen_ai.choice", "body": {"boolValue": "yes"}},  # b: bad body
        {"traceId": a, "spanId": "a" * 16, "attributes": [7]},                                           # a: bad attribute
        {"traceId": "x", "spanId": "a" * 16},                                                             # invalid id
        {"eventName": "orphan", "attributes": ["junk"]},                                                  # no trace
    ]}]}]}
    path = folder / "bad.jsonl"
    lines = [json.dumps(request), "not json {", json.dumps(logs), json.dumps({"resourceSpans": 5}),
             json.dumps(request).replace('"a1a1', '"a4a4').replace('"b1b1', '"b4b4')]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("keep", [10, 3, 1])
def test_bad_input_of_two_shards_in_one_line_is_reported_as_by_one_process(tmp_path, keep):
    path = write_bad_dump(tmp_path)
    tasks = {t.task_id: t for t in load_tasks(str(EXAMPLES / "tasks.jsonl"))}
    one = _assert_same_for_all_jobs([path], tasks, ScoreSettings(), keep=keep)
    counts, order, cases = one[3], one[4], one[5]
    assert len(cases) == min(keep, sum(counts.values()))
    if keep == 10:
        assert {"attribute of unexpected type", "nesting too deep", "malformed record", "invalid id",
                "invalid JSON", "not an OTLP request"} <= set(order)
        assert MISSING_PARENT in order  # building an episode: its group's owner reports it


# ---------------------------------------------------------------------------
# The command: byte-identical outputs
# ---------------------------------------------------------------------------


def _cli(args: list, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ek_otel", *args], capture_output=True, text=True,
                          cwd=str(cwd), env=dict(os.environ, COLUMNS="1000"))


def _cli_outputs(paths: list, gold: str, jobs: int, out: Path) -> dict:
    report, emit = out / f"report-{jobs}.json", out / f"scores-{jobs}.jsonl"
    done = _cli(["score", *paths, "--gold", gold, "--json", str(report), "--emit-file", str(emit),
                 "--jobs", str(jobs)], out)
    assert done.returncode == 0, done.stderr
    text = lambda s: s.replace(f"report-{jobs}", "REPORT").replace(f"scores-{jobs}", "SCORES")  # noqa: E731
    return {"stdout": text(done.stdout), "stderr": text(done.stderr), "report": text(report.read_text()),
            "scores": identity_dump.normalized_emit(emit.read_text())}


@pytest.mark.parametrize("which", ["identity", "bad", "examples"])
def test_score_outputs_are_byte_identical_for_any_jobs(tmp_path, which):
    if which == "identity":
        made = identity_dump.write_dump(str(tmp_path))
        paths, gold = [made["dump"]], made["gold"]
    elif which == "bad":  # its runs carry no task id: a one-task gold file scores them all
        (tmp_path / "one-task.jsonl").write_text('{"task_id": "t", "calls": [{"search": {}}]}\n')
        paths, gold = [str(write_bad_dump(tmp_path))], str(tmp_path / "one-task.jsonl")
    else:
        paths, gold = [str(EXAMPLES / "traces.jsonl")], str(EXAMPLES / "tasks.jsonl")
    one = _cli_outputs(paths, gold, 1, tmp_path)
    for jobs in (2, 3):
        assert _cli_outputs(paths, gold, jobs, tmp_path) == one, f"--jobs {jobs}"
    if which == "bad":
        assert "bad input records skipped or repaired" in one["stderr"]


def test_json_report_on_stdout_is_identical(tmp_path):
    made = identity_dump.write_dump(str(tmp_path))
    outs = [_cli(["score", made["dump"], "--gold", made["gold"], "--json", "-", "--jobs", str(jobs)], tmp_path)
            for jobs in (1, 2)]
    assert outs[0].returncode == outs[1].returncode == 0
    assert outs[0].stdout == outs[1].stdout and outs[0].stderr == outs[1].stderr


# ---------------------------------------------------------------------------
# When to run in parallel
# ---------------------------------------------------------------------------


def test_plan_jobs_falls_back_to_one_process_when_it_cannot_be_exact_or_pay(tmp_path, monkeypatch):
    small = str(EXAMPLES / "traces.jsonl")
    assert plan_jobs(["-"], 4) == 1  # stdin is read once
    assert plan_jobs([small], 4, "conversation") == 1  # episodes span traces
    assert plan_jobs([small], None) == 1  # tiny input
    assert plan_jobs([small], 3) == 3  # asked for: done
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"\n" * MIN_PARALLEL_BYTES)
    monkeypatch.setattr("ek_otel.parallel.default_jobs", lambda: 2)
    assert plan_jobs([str(big)], None) == 2
    monkeypatch.setattr("ek_otel.parallel.default_jobs", lambda: 1)
    assert plan_jobs([str(big)], None) == 1  # one core
    with pytest.raises(ValueError):
        plan_jobs([small], 0)


def test_conversation_grouping_with_jobs_scores_in_one_process():
    tasks, settings = load_settings(str(EXAMPLES / "tasks.jsonl"), group_by="conversation")
    assert _scored([EXAMPLES / "traces.jsonl"], tasks, settings, 3) == \
        _scored([EXAMPLES / "traces.jsonl"], tasks, settings, 1)


def test_a_missing_path_fails_before_any_process_starts():
    with pytest.raises(InputError, match="no such file"):
        score_dump([str(EXAMPLES / "traces.jsonl"), "/no/such.jsonl"], {}, ScoreSettings(),
                   report=BadInputReport(), jobs=2)


# ---------------------------------------------------------------------------
# Failing workers
# ---------------------------------------------------------------------------


def _failing_iter(how):
    real = _ShardRun.__iter__

    def fail(self):
        if self.shard.index == 1:
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if how == "input":
                raise InputError("a library error", path="x.jsonl")
            raise ZeroDivisionError("a bug")
        yield from real(self)

    return fail


@pytest.mark.parametrize("how, error, text", [
    ("bug", WorkerError, "process 2 of 2 (--jobs 2) failed: ZeroDivisionError: a bug (--jobs 1 runs in one process)"),
    ("kill", WorkerError, "process 2 of 2 (--jobs 2) was killed by signal 9 (out of memory?)"),
    ("input", InputError, "x.jsonl: a library error"),
])
def test_a_failing_worker_is_one_typed_error_and_no_process_is_left(monkeypatch, how, error, text):
    monkeypatch.setattr(_ShardRun, "__iter__", _failing_iter(how))
    scoring = ParallelScoring([str(EXAMPLES / "traces.jsonl")], {}, ScoreSettings(), jobs=2,
                              report=BadInputReport())
    pid = scoring.workers[0].pid
    with scoring, pytest.raises(error) as raised:
        scoring.run()
    assert text in str(raised.value)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped


def test_leaving_early_ends_the_workers():
    scoring = ParallelScoring([str(CORPUS)], {}, ScoreSettings(), jobs=3, report=BadInputReport())
    pids = [w.pid for w in scoring.workers]
    scoring.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_cli_turns_a_worker_failure_into_one_line(tmp_path):
    made = identity_dump.write_dump(str(tmp_path))
    code = ("import os, signal\n"
            "from ek_otel.parallel import _ShardRun\n"
            "real = _ShardRun.__iter__\n"
            "def fail(self):\n"
            "    if self.shard.index == 1: os.kill(os.getpid(), signal.SIGKILL)\n"
            "    yield from real(self)\n"
            "_ShardRun.__iter__ = fail\n"
            "from ek_otel.cli import main\n"
            f"main(['score', {made['dump']!r}, '--gold', {made['gold']!r}, '--jobs', '2'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ek-otel: error: process 2 of 2 (--jobs 2) was killed by signal 9 (out of memory?); "
        "--jobs 1 runs in one process"]


# ---------------------------------------------------------------------------
# ek-otel episodes: the same episodes, in the same order
# ---------------------------------------------------------------------------


def _read(paths, jobs, **options) -> tuple:
    from ek_otel.ingest.episode_dict import episode_to_json
    from ek_otel.pipeline import read_episodes

    report, evicted, ours = BadInputReport(), [], []
    lines = [episode_to_json(e) for e in read_episodes([str(p) for p in paths], report=report, jobs=jobs,
                                                        evicted=evicted, on_own_output=ours.append, **options)]
    return lines, evicted, len(ours), list(report.counts.items()), [str(c) for c in report.cases]


def test_read_episodes_in_parallel_gives_the_episodes_of_one_process(tmp_path):
    made = identity_dump.write_dump(str(tmp_path))
    for paths, options in (([made["dump"]], {"close_after": identity_dump.CLOSE_AFTER}),
                           ([made["dump"]], {"close_after": identity_dump.CLOSE_AFTER, "keep_closed": 0}),
                           ([write_bad_dump(tmp_path), CORPUS], {})):
        one = _read(paths, 1, **options)
        assert one[0]
        for jobs in (2, 3):
            assert _read(paths, jobs, **options) == one
    assert _read([made["dump"]], 2)[2] == 1  # our own output, counted once


@pytest.mark.parametrize("table", [False, True])
def test_episodes_command_output_is_byte_identical_for_any_jobs(tmp_path, table):
    made = identity_dump.write_dump(str(tmp_path))
    bad = write_bad_dump(tmp_path)
    args = ["episodes", made["dump"], str(bad)] + (["--table"] if table else [])
    outs = [_cli(args + ["--jobs", str(jobs)], tmp_path) for jobs in (1, 2, 3)]
    assert outs[0].returncode == 0, outs[0].stderr
    assert "scores written back by ek-otel were read and skipped" in outs[0].stderr
    for out in outs[1:]:
        assert (out.returncode, out.stdout, out.stderr) == (outs[0].returncode, outs[0].stdout, outs[0].stderr)


def test_a_large_single_request_is_scanned_once_by_the_main_process_and_scores_the_same(tmp_path, monkeypatch):
    """The main process reads and scans a large single-object file before it forks; no
    worker scans it again, and the outputs are those of one process."""
    import ingest  # bench/ingest.py: the benchmark's generator

    from ek_otel.ingest import dumps, json_document

    folder = tmp_path / "gen"
    folder.mkdir()
    ingest.write_gold(str(folder / "gold.jsonl"))
    path = folder / "request.json"
    path.write_bytes(ingest.batch_to_json(list(ingest.generate_spans(3_000))))
    monkeypatch.setattr(json_document, "LARGE_DOCUMENT_BYTES", 1000)
    monkeypatch.setattr(dumps, "LARGE_LINE_BYTES", 1000)
    scans = tmp_path / "scans"
    real_scan = json_document.scan_document

    def counted(body):
        with open(scans, "a") as f:
            f.write(f"{os.getpid()}\n")
        return real_scan(body)

    monkeypatch.setattr(json_document, "scan_document", counted)
    tasks, settings = load_settings(str(folder / "gold.jsonl"))
    one = _scored([path], tasks, settings, 1)
    assert json.loads(one[0])["aggregate"]["episodes"] == 300
    for jobs in (2, 3):
        scans.write_text("")
        assert _scored([path], tasks, settings, jobs) == one, f"--jobs {jobs}"
        assert scans.read_text().split() == [str(os.getpid())], f"--jobs {jobs}"
    assert not dumps._read_ahead and not json_document._ahead


@pytest.mark.parametrize("spool_after", [None, 0])
def test_rows_encoded_by_the_workers_write_the_report_of_one_process(tmp_path, monkeypatch, spool_after):
    """ScoreSettings.json_rows (``score --json``): every process encodes the rows of the
    episodes it scores; the report's bytes are those of one process that encodes none, with
    a revision and through the spool too."""
    from dataclasses import replace

    from ek_otel.scoring import run as run_module
    from ek_otel.scoring.report_json import indented_json_chunks

    paths = identity_dump.write_dump(str(tmp_path))
    tasks, settings = load_settings(paths["gold"])
    settings = replace(settings, scored_at_ns=1)

    def report(jobs: int, rows: bool) -> bytes:
        run = score_dump([paths["dump"]], tasks, replace(settings, json_rows=rows), report=BadInputReport(),
                         jobs=jobs, close_after=identity_dump.CLOSE_AFTER)
        assert (run.json_rows is not None) == rows
        assert not rows or run.json_rows.spooled == (spool_after == 0)
        return b"".join(indented_json_chunks(run.to_dict(lazy_episodes=True)))

    plain = report(1, False)
    if spool_after is not None:
        monkeypatch.setitem(run_module.EpisodeRows.__init__.__globals__, "SPOOL_AFTER", spool_after)
    assert report(1, True) == report(2, True) == report(3, True) == plain
    assert b'"revision": 1' in plain
