"""``ek-otel score`` against a real Arize Phoenix: the example traces are sent to Phoenix first,
then scored with ``--emit-endpoint`` (Phoenix's OTLP receiver) and ``--phoenix-url``; everything
is read back through Phoenix's REST API."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backend_servers import send_otlp_json_file, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(ROOT, "examples", "traces.jsonl")
GOLD = os.path.join(ROOT, "examples", "tasks.jsonl")
EVAL_SPAN = "evaluation ek.tool_call"


def _score(tmp_path, name: str, *args: str) -> tuple:
    report = tmp_path / f"{name}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ek_otel", "score", TRACES, "--gold", GOLD, "--json", str(report),
         *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    data = json.loads(report.read_text()) if report.exists() else None
    return proc, data


@pytest.fixture(scope="module")
def traces_in_phoenix(phoenix):
    """The example traces sent to Phoenix, and their time windows before any scoring: taken
    once Phoenix holds every span sent (it ingests a trace's spans apart, so a trace it lists
    may still lack its root, and its window would grow)."""
    sent = send_otlp_json_file(phoenix.url, TRACES)
    want = _span_count(TRACES)
    wait_until(lambda: len({s["context"]["span_id"] for s in phoenix.spans()
                            if s["context"]["trace_id"] in sent}) >= want,
               120, "Phoenix to ingest every span of the example traces")
    windows = phoenix.traces()
    return {trace_id: windows[trace_id] for trace_id in sent}


def _span_count(path) -> int:
    """How many spans an OTLP JSON Lines file holds."""
    with open(path, encoding="utf-8") as f:
        requests = [json.loads(line) for line in f if line.strip()]
    return sum(len(scope.get("spans", [])) for r in requests for rs in r.get("resourceSpans", [])
               for scope in rs.get("scopeSpans", []))


def _annotations_by_target(phoenix, episodes) -> tuple:
    spans = phoenix.span_annotations([e["root_span_id"] for e in episodes])
    traces = phoenix.trace_annotations([e["trace_id"] for e in episodes])
    by_span, by_trace = {}, {}
    for a in spans:
        by_span.setdefault(a["span_id"], []).append(a)
    for a in traces:
        by_trace.setdefault(a["trace_id"], []).append(a)
    return by_span, by_trace


def _check_annotation(annotation, episode) -> None:
    assert annotation["name"] == "ek.tool_call"
    assert annotation["annotator_kind"] == "CODE"
    assert annotation["identifier"] == "ek-otel"
    result = annotation["result"]
    assert result["score"] == pytest.approx(_score_value(episode))
    assert result["label"] == episode["label"]
    assert result["explanation"]
    meta = annotation["metadata"]
    assert (meta["tp"], meta["fp"], meta["fn"]) == (episode["tp"], episode["fp"], episode["fn"])
    assert meta["task_id"] == episode["task_id"]
    assert meta["cost"]["input_tokens"] == episode["cost"]["input_tokens"]
    assert meta["evaluator"] == "ek-otel" and len(meta["gold_sha256"]) == 64


def test_score_writes_annotations_and_keeps_trace_durations(phoenix, traces_in_phoenix, tmp_path):
    proc, report = _score(tmp_path, "first", "--emit-endpoint", phoenix.url,
                          "--emit-protocol", "http", "--phoenix-url", phoenix.url)
    assert proc.returncode == 0, proc.stderr
    # Phoenix has no /v1/logs: one warning naming the backend and the signal, not a failure
    warnings = [line for line in proc.stderr.splitlines() if "has no OTLP logs endpoint" in line]
    assert len(warnings) == 1 and phoenix.url in warnings[0], proc.stderr
    episodes = report["episodes"]
    n = len(episodes)
    assert n == 9
    emitted = report["emitted"]
    assert emitted["scores"] == n and emitted["failed"] == 0
    assert emitted["spans"] == {"sent": n, "failed": 0, "unsupported": 0}
    assert emitted["logs"] == {"sent": 0, "failed": 0, "unsupported": n}
    assert emitted["span_annotations"] == {"sent": n, "failed": 0, "unsupported": 0}
    assert emitted["trace_annotations"] == {"sent": n, "failed": 0, "unsupported": 0}

    # the evaluation spans arrived, each under its run's root ...
    evaluation = wait_until(
        lambda: (lambda s: s if len(s) >= n else None)(phoenix.spans(name=[EVAL_SPAN])),
        120, "the evaluation spans in Phoenix")
    roots = {e["trace_id"]: e["root_span_id"] for e in episodes}
    assert {(s["context"]["trace_id"], s["parent_id"]) for s in evaluation} == set(roots.items())
    # ... and no trace got longer: every window is what it was before scoring
    after = phoenix.traces()
    for trace_id, window in traces_in_phoenix.items():
        assert after[trace_id] == window, trace_id
    for span in evaluation:
        assert span["start_time"] == span["end_time"]
        assert span["attributes"]["ek.scored_at"].endswith("Z")

    by_span, by_trace = _annotations_by_target(phoenix, episodes)
    for episode in episodes:
        (span_annotation,) = by_span[episode["root_span_id"]]
        (trace_annotation,) = by_trace[episode["trace_id"]]
        _check_annotation(span_annotation, episode)
        _check_annotation(trace_annotation, episode)
        assert span_annotation["metadata"]["level"] == "call"

    # score again, differently: the annotations are updated, not doubled
    proc, again = _score(tmp_path, "again", "--level", "arg", "--emit-endpoint", phoenix.url,
                         "--emit-signals", "spans", "--phoenix-url", phoenix.url)
    assert proc.returncode == 0, proc.stderr
    assert "has no OTLP logs endpoint" not in proc.stderr  # logs were not asked for
    assert again["emitted"]["span_annotations"]["sent"] == n
    assert "logs" not in again["emitted"]
    by_span, by_trace = _annotations_by_target(phoenix, again["episodes"])
    for episode in again["episodes"]:
        (span_annotation,) = by_span[episode["root_span_id"]]
        (trace_annotation,) = by_trace[episode["trace_id"]]
        _check_annotation(span_annotation, episode)
        _check_annotation(trace_annotation, episode)
        assert span_annotation["metadata"]["level"] == "arg"
        assert trace_annotation["metadata"]["level"] == "arg"
    after = phoenix.traces()
    for trace_id, window in traces_in_phoenix.items():
        assert after[trace_id] == window, trace_id


def test_score_over_grpc_reports_the_missing_logs_service_once(phoenix, traces_in_phoenix,
                                                               tmp_path):
    proc, report = _score(tmp_path, "grpc", "--emit-endpoint", phoenix.grpc_url,
                          "--emit-protocol", "grpc")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "has no OTLP logs endpoint" in line]
    assert len(warnings) == 1 and "UNIMPLEMENTED" in warnings[0], proc.stderr
    n = len(report["episodes"])
    assert report["emitted"]["spans"] == {"sent": n, "failed": 0, "unsupported": 0}
    assert report["emitted"]["logs"] == {"sent": 0, "failed": 0, "unsupported": n}


def test_annotations_for_traces_phoenix_never_got_fail_the_run(phoenix, tmp_path):
    """A score whose run is not in Phoenix cannot be annotated there: exit 1, named."""
    other = tmp_path / "elsewhere.jsonl"
    # the example traces under other trace and span ids: Phoenix has none of them
    text = open(TRACES, encoding="utf-8").read()
    data = [json.loads(line) for line in text.splitlines()]
    for request in data:
        for rs in request.get("resourceSpans", []):
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if span.get(key):
                            span[key] = "".join(f"{(int(c, 16) + 1) % 16:x}" for c in span[key])
    other.write_text("".join(json.dumps(d) + "\n" for d in data))
    report = tmp_path / "missing.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ek_otel", "score", str(other), "--gold", GOLD, "--json",
         str(report), "--phoenix-url", phoenix.url, "--emit-timeout", "2"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1
    assert "are the traces sent to this Phoenix?" in proc.stderr
    emitted = json.loads(report.read_text())["emitted"]
    assert emitted["span_annotations"]["failed"] == emitted["scores"] > 0
    assert emitted["trace_annotations"]["failed"] == emitted["scores"]


# Runs recorded from real instrumentation packages and agent frameworks (tests/ingest/corpus:
# each the same weather task, through a fake model server).
REAL_INSTRUMENTATIONS = ("agents-openinference-with-client", "traceloop-0.62.4",
                         "openai-v2-2.4b0-span_and_event", "langgraph-agent-openinference-0.1.80",
                         "logfire-agents", "anthropic-openinference-3.1.0", "google-genai-1.3b0")
WEATHER_TASK = {"task_id": "weather-paris", "input": "Weather and time in Paris, in F?",
                "calls": [{"get_weather": {"city": ["Paris"], "unit": ["celsius"]}},
                          {"get_time": {"timezone": ["Europe/Paris"]}},
                          {"convert_temperature": {"value": [18.5], "to": ["fahrenheit"]}}]}


def test_runs_of_real_instrumentations_get_their_annotations(phoenix, tmp_path):
    corpus = os.path.join(ROOT, "tests", "ingest", "corpus")
    paths = [os.path.join(corpus, name, "traces.jsonl") for name in REAL_INSTRUMENTATIONS]
    sent = set()
    for path in paths:
        sent |= send_otlp_json_file(phoenix.url, path)

    def windows() -> dict:
        found = {}
        for project in [p["name"] for p in phoenix.get("/v1/projects")["data"]]:
            found.update(phoenix.traces(project))
        return found

    before = wait_until(lambda: (lambda w: w if sent <= set(w) else None)(windows()), 120,
                        "Phoenix to ingest the instrumented runs")
    gold = tmp_path / "weather.jsonl"
    gold.write_text(json.dumps(WEATHER_TASK) + "\n")
    report = tmp_path / "real.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ek_otel", "score", *paths, "--gold", str(gold), "--task",
         WEATHER_TASK["task_id"], "--json", str(report), "--emit-endpoint", phoenix.url,
         "--emit-signals", "spans", "--phoenix-url", phoenix.url],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(report.read_text())
    episodes = data["episodes"]
    assert {e["trace_id"] for e in episodes} == sent  # one run per instrumentation, all scored
    assert data["emitted"]["span_annotations"]["sent"] == len(sent)
    projects = [p["name"] for p in phoenix.get("/v1/projects")["data"]]
    by_span, by_trace = {}, {}
    for project in projects:
        # ek-otel's own (another test of the same server labels these runs by hand)
        for a in phoenix.span_annotations([e["root_span_id"] for e in episodes], project):
            if a.get("name") == "ek.tool_call":
                by_span.setdefault(a["span_id"], []).append(a)
        for a in phoenix.trace_annotations([e["trace_id"] for e in episodes], project):
            if a.get("name") == "ek.tool_call":
                by_trace.setdefault(a["trace_id"], []).append(a)
    for episode in episodes:
        (span_annotation,) = by_span[episode["root_span_id"]]
        (trace_annotation,) = by_trace[episode["trace_id"]]
        _check_annotation(span_annotation, episode)
        _check_annotation(trace_annotation, episode)
    wait_until(lambda: sum(len(phoenix.spans(p, name=[EVAL_SPAN])) for p in projects)
               >= len(sent), 120, "the evaluation spans")
    after = windows()
    for trace_id in sent:
        assert after[trace_id] == before[trace_id], trace_id


def _score_value(episode: dict) -> float:
    """The value written back: the F1, or the verdict (1.0 / 0.0) where the F1 is undefined
    (no call expected, none made: ``null`` in the report)."""
    return episode["f1"] if episode["f1"] is not None else float(bool(episode["success"]))
