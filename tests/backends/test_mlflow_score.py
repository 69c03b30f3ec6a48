"""``ek-otel score`` against a real MLflow tracking server: the example traces are sent to its
OTLP endpoint first, then scored with ``--mlflow-tracking-uri``; the feedback assessments are
read back through MLflow's REST API."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from backend_servers import send_otlp_json_file, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(ROOT, "examples", "traces.jsonl")
GOLD = os.path.join(ROOT, "examples", "tasks.jsonl")
EXPERIMENT = {"x-mlflow-experiment-id": "0"}


def _score(tmp_path, name: str, *args: str) -> tuple:
    report = tmp_path / f"{name}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ek_otel", "score", TRACES, "--gold", GOLD, "--json", str(report),
         "--emit-timeout", "30", *args],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    return proc, json.loads(report.read_text()) if report.exists() else None


def _ours(trace_info: dict) -> list:
    return [a for a in trace_info.get("assessments") or ()
            if a["source"]["source_id"] == "ek-otel" and a.get("valid", True)]


def test_score_writes_feedback_assessments_and_updates_them(mlflow_server, tmp_path):
    sent = send_otlp_json_file(mlflow_server.url, TRACES, headers=EXPERIMENT)
    for trace_id in sent:
        wait_until(lambda: httpx.get(f"{mlflow_server.url}/api/3.0/mlflow/traces/tr-{trace_id}",
                                     timeout=30).status_code == 200,
                   120, f"MLflow to have trace {trace_id}")
    before = {t: mlflow_server.trace(t)["execution_duration"] for t in sent}

    proc, report = _score(tmp_path, "first", "--mlflow-tracking-uri", mlflow_server.url,
                          "--emit-endpoint", mlflow_server.url, "--emit-signals", "spans",
                          "--emit-header", "x-mlflow-experiment-id=0")
    assert proc.returncode == 0, proc.stderr
    episodes = report["episodes"]
    n = len(episodes)
    assert report["emitted"]["assessments"] == {"sent": n, "failed": 0, "unsupported": 0}
    assert report["emitted"]["spans"] == {"sent": n, "failed": 0, "unsupported": 0}
    for episode in episodes:
        info = mlflow_server.trace(episode["trace_id"])
        (feedback,) = _ours(info)
        assert feedback["assessment_name"] == "ek.tool_call"
        assert feedback["source"]["source_type"] == "CODE"
        assert feedback["feedback"]["value"] == pytest.approx(_score_value(episode))
        assert feedback["metadata"]["label"] == episode["label"]
        assert feedback["span_id"] == episode["root_span_id"]
        assert feedback["rationale"]
        # the evaluation span, at the root's end, left the run's duration as it was
        assert info["execution_duration"] == before[episode["trace_id"]]

    proc, again = _score(tmp_path, "again", "--level", "arg",
                         "--mlflow-tracking-uri", mlflow_server.url)
    assert proc.returncode == 0, proc.stderr
    for episode in again["episodes"]:
        (feedback,) = _ours(mlflow_server.trace(episode["trace_id"]))  # updated, not doubled
        assert feedback["metadata"]["level"] == "arg"
        assert feedback["feedback"]["value"] == pytest.approx(_score_value(episode))


def _score_value(episode: dict) -> float:
    """The value written back: the F1, or the verdict (1.0 / 0.0) where the F1 is undefined
    (no call expected, none made: ``null`` in the report)."""
    return episode["f1"] if episode["f1"] is not None else float(bool(episode["success"]))
