"""Unknown cost is unknown: a run whose model calls carry no usage (a real LlamaIndex
streaming trace) has an incomplete cost, no dollars (never $0), and the totals say what they
leave out."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.cost import ModelPrice
from ek_otel.core.episode import Cost, Episode, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel import evaluate
from ek_otel.core.evaluate import score_episode
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.pipeline import read_episodes

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "corpus"
STREAM = CORPUS / "llamaindex-0.14.25-openinference-4.6.1-stream"  # FunctionAgent, no usage
STREAM_USAGE = CORPUS / "llamaindex-0.14.25-openinference-4.6.1-stream-usage"
PRICES = {"gpt-4o-mini": ModelPrice(0.15, 0.6)}


def _gold(tmp_path):
    calls = json.loads((STREAM / "expected.json").read_text())["calls"]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"task_id": "weather-paris", "calls": [
        {c["tool"]: {k: [v] for k, v in c["args"].items()}} for c in calls]}) + "\n")
    pricing = tmp_path / "pricing.yaml"
    pricing.write_text("models:\n  gpt-4o-mini: {input: 0.15, output: 0.6}\n")
    return gold, pricing


def _episode(directory):
    (episode,) = read_episodes([str(directory / "traces.pb")], report=BadInputReport())
    return episode


def test_the_llamaindex_stream_without_usage_has_an_incomplete_cost():
    episode = _episode(STREAM)
    assert episode.meta["model_calls"] == 3
    assert episode.cost.calls_without_usage == 3 and not episode.cost.complete
    assert episode.cost.total_tokens == 0
    with_usage = _episode(STREAM_USAGE)
    assert with_usage.cost.complete and with_usage.cost.total_tokens > 0


def test_an_incomplete_cost_is_never_priced_and_the_report_counts_it_apart():
    task = TaskSpec("t", gold=[("a", {})])
    run = RunProvenance(model="gpt-4o-mini")
    known = Episode("t", Trajectory([Step("a")]), cost=Cost(input_tokens=1000), run=run)
    unknown = Episode("t", Trajectory([Step("a")]), cost=Cost(input_tokens=10,
                                                              calls_without_usage=1), run=run)
    unpriced = Episode("t", Trajectory([Step("a")]), cost=Cost(input_tokens=5),
                       run=RunProvenance(model="other"))
    assert score_episode(unknown, task, prices=PRICES).dollars is None
    assert score_episode(known, task, prices=PRICES).dollars == 0.00015
    report = evaluate([known, unknown, unpriced], [task], prices=PRICES, k=1,
                      group_by_provenance=True)
    assert (report.n_cost_incomplete, report.n_unpriced) == (1, 1)
    assert report.dollars == 0.00015  # over the one priced episode: a lower bound
    assert report.dollars_per_success == 0.00015  # divided by the successes it covers
    assert report.task_dollars["t"] is None  # a task's dollars: every episode or nothing
    d = report.to_dict()
    assert d["aggregate"]["n_cost_incomplete"] == 1 and d["aggregate"]["n_unpriced"] == 1
    assert d["aggregate"]["cost"]["complete"] is False
    assert d["aggregate"]["cost"]["calls_without_usage"] == 1
    assert [e["cost"]["complete"] for e in d["episodes"]] == [True, False, True]
    assert [e["dollars"] for e in d["episodes"]] == [0.00015, None, None]


def test_score_says_the_cost_is_unknown_not_zero(tmp_path):
    gold, pricing = _gold(tmp_path)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["score", str(STREAM / "traces.pb"), "--gold", str(gold),
                                      "--pricing", str(pricing), "--json", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    (episode,) = data["episodes"]
    assert episode["cost"]["complete"] is False and episode["cost"]["calls_without_usage"] == 3
    assert episode["dollars"] is None
    agg = data["aggregate"]
    assert (agg["dollars"], agg["dollars_per_success"]) == (None, None)
    assert (agg["n_unpriced"], agg["n_cost_incomplete"]) == (0, 1)
    total = next(line for line in result.stdout.splitlines() if "total" in line)
    assert "unknown" in total and "$0" not in total
    task = next(line for line in result.stdout.splitlines() if "weather-paris" in line)
    assert "unknown" in task and "$0" not in task
    warning = [line for line in result.stderr.splitlines() if "recorded no usage" in line]
    assert len(warning) == 1 and "1 of 1 scored episodes" in warning[0]
    assert "(3 calls)" in warning[0] and "recorded no usage" in warning[0]
    assert "have no dollars" not in result.stderr  # the model is priced: not "unpriced"


def test_a_total_that_leaves_runs_out_is_a_lower_bound(tmp_path):
    gold, pricing = _gold(tmp_path)
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["score", str(STREAM / "traces.pb"),
                                      str(STREAM_USAGE / "traces.pb"), "--gold", str(gold),
                                      "--pricing", str(pricing), "--json", str(out),
                                      "--html", str(html)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    priced = [e["dollars"] for e in data["episodes"] if e["dollars"] is not None]
    assert len(priced) == 1 and priced[0] > 0
    assert data["aggregate"]["dollars"] == priced[0]
    assert data["aggregate"]["dollars_per_success"] == priced[0]  # the one priced success
    total = next(line for line in result.stdout.splitlines() if "total" in line)
    assert f"≥ ${priced[0]:.3g}" in total
    page = html.read_text(encoding="utf-8")
    assert f"≥ ${priced[0]:.3g}" in page and 'data-left-out="no-usage"' in page
