"""``gold from-traces --phoenix-url``: the runs a person labelled in a real Arize Phoenix.

Two corpus runs are sent to Phoenix; one gets a trace annotation ``correct`` = ``yes``, the
other ``correct`` = ``no`` on its root span; from-traces keeps the first only."""

from __future__ import annotations

import os

import httpx
from click.testing import CliRunner

from backend_servers import send_otlp_json_file, wait_until
from ek_otel.cli import cli
from ek_otel.gold_from_traces import from_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.pipeline import read_episodes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = [os.path.join(ROOT, "tests", "ingest", "corpus", name, "traces.jsonl")
        for name in ("traceloop-0.62.4", "openinference-openai-0.1.66")]


def _annotate(phoenix, kind: str, target: dict, label: str) -> None:
    response = httpx.post(f"{phoenix.url}/v1/{kind}?sync=true", json={"data": [dict(
        target, name="correct", annotator_kind="HUMAN", identifier="reviewer",
        result={"label": label, "score": 1.0 if label == "yes" else 0.0})]}, timeout=30)
    assert response.status_code == 200, response.text


def test_from_traces_keeps_the_runs_labelled_in_phoenix(phoenix, tmp_path):
    sent = set()
    for path in RUNS:
        sent |= send_otlp_json_file(phoenix.url, path)
    wait_until(lambda: sent <= set(phoenix.traces()) or None, 120, "Phoenix to ingest the runs")
    good, bad = (list(read_episodes([path], report=BadInputReport()))[0] for path in RUNS)
    _annotate(phoenix, "trace_annotations", {"trace_id": good.provenance.trace_id}, "yes")
    _annotate(phoenix, "span_annotations", {"span_id": bad.provenance.root_span_id}, "no")

    result = from_traces(RUNS, phoenix_url=phoenix.url, annotation="correct", label="yes")
    (task,) = result.tasks
    assert task.meta["from_traces"]["trace_ids"] == [good.provenance.trace_id]
    assert result.left_out == ((bad.provenance.trace_id, "no Phoenix annotation 'correct' labelled 'yes'"),)
    the_bad_one = from_traces(RUNS, phoenix_url=phoenix.url, annotation="correct", label="no")
    assert the_bad_one.tasks[0].meta["from_traces"]["trace_ids"] == [bad.provenance.trace_id]

    out = tmp_path / "gold.jsonl"
    cli_run = CliRunner().invoke(cli, ["gold", "from-traces", *RUNS, "--phoenix-url", phoenix.url,
                                       "--annotation", "correct", "--label", "yes", "--out", str(out)])
    assert cli_run.exit_code == 0, cli_run.output
    assert "1 task(s) from 1 of 2 run(s)" in cli_run.stderr
    missing = CliRunner().invoke(cli, ["gold", "from-traces", *RUNS, "--phoenix-url", phoenix.url,
                                       "--annotation", "correct", "--label", "yes",
                                       "--phoenix-project", "nope", "--out", str(tmp_path / "x.jsonl")])
    assert missing.exit_code == 2 and "Phoenix at" in missing.stderr and "Traceback" not in missing.stderr


def test_the_answer_score_is_its_own_phoenix_annotation(phoenix, tmp_path):
    import json
    import subprocess
    import sys

    sent = send_otlp_json_file(phoenix.url, RUNS[0])
    wait_until(lambda: sent <= set(phoenix.traces()) or None, 120, "Phoenix to ingest the run")
    (episode,) = read_episodes([RUNS[0]], report=BadInputReport())
    gold = tmp_path / "gold.jsonl"
    (task,) = from_traces([RUNS[0]]).tasks
    from ek_otel.gold.native import task_to_dict

    gold.write_text(json.dumps({**task_to_dict(task), "answer": {"contains": "in paris"}}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "ek_otel", "score", RUNS[0], "--gold", str(gold),
                           "--phoenix-url", phoenix.url], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "answers (ek.answer): 1/1 passed" in proc.stdout
    annotations = wait_until(lambda: (lambda a: a if {x["name"] for x in a} >= {"ek.tool_call", "ek.answer"}
                                      else None)(phoenix.span_annotations([episode.provenance.root_span_id])),
                             60, "Phoenix to show both annotations")
    by_name = {a["name"]: a for a in annotations}
    assert by_name["ek.answer"]["result"]["label"] == "pass"
    assert by_name["ek.answer"]["result"]["explanation"].startswith("answer: contains 'in paris', got")
    assert by_name["ek.tool_call"]["result"]["explanation"] == "3/3 calls matched exactly"
