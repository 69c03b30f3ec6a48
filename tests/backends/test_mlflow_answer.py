"""The answer score (``ek.answer``) as an MLflow assessment of its own, beside ``ek.tool_call``,
on a real MLflow tracking server; a re-score updates both instead of adding."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx

from backend_servers import send_otlp_json_file, wait_until
from ek_otel.gold_from_traces import from_traces
from ek_otel.gold.native import task_to_dict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "tests", "ingest", "corpus", "openinference-openai-0.1.66", "traces.jsonl")


def _ours(trace_info: dict) -> dict:
    return {a["assessment_name"]: a for a in trace_info.get("assessments") or ()
            if a["source"]["source_id"] == "ek-otel" and a.get("valid", True)}


def test_the_answer_is_its_own_assessment(mlflow_server, tmp_path):
    (trace_id,) = send_otlp_json_file(mlflow_server.url, RUN, headers={"x-mlflow-experiment-id": "0"})
    wait_until(lambda: httpx.get(f"{mlflow_server.url}/api/3.0/mlflow/traces/tr-{trace_id}",
                                 timeout=30).status_code == 200, 120, "MLflow to have the trace")
    (task,) = from_traces([RUN]).tasks
    gold = tmp_path / "gold.jsonl"
    for answer, label in (({"contains": "65.3 f"}, "pass"), ({"number": 20, "abs_tol": 0.1}, "fail")):
        gold.write_text(json.dumps({**task_to_dict(task), "answer": answer}) + "\n")
        proc = subprocess.run([sys.executable, "-m", "ek_otel", "score", RUN, "--gold", str(gold),
                               "--mlflow-tracking-uri", mlflow_server.url, "--emit-timeout", "30"],
                              capture_output=True, text=True, timeout=600, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        ours = _ours(mlflow_server.trace(trace_id))
        assert set(ours) == {"ek.tool_call", "ek.answer"}  # updated on the re-score, not doubled
        assert ours["ek.answer"]["metadata"]["label"] == label
        assert ours["ek.answer"]["rationale"].startswith("answer: ")
        assert ours["ek.tool_call"]["metadata"]["label"] == "pass"
