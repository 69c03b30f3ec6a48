"""The one corpus loop and the one report shape, shared by `score` and core.evaluate()."""

from __future__ import annotations

import json

import pytest

from ek_otel.core.episode import Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel import evaluate
from ek_otel.errors import ComparabilityError
from ek_otel.scoring import ScoreSettings, Unmatched, score_episodes
from ek_otel.scoring.report import report_to_dict, run_to_dict

TASKS = {"a": TaskSpec("a", gold=[("f", {"x": 1})], slice="s"), "b": TaskSpec("b", gold=[("g", {})])}


def _episodes():
    out = []
    for i, (task, steps) in enumerate([("a", [Step("f", {"x": 1})]), ("a", [Step("f", {"x": 2})]),
                                       ("b", []), ("zz", [Step("g")])]):
        out.append(Episode(task, Trajectory(steps),
                           provenance=Provenance(trace_id=f"{i + 1:032x}", root_span_id=f"{i + 1:016x}")))
    return out


def test_evaluate_and_score_episodes_give_the_same_figures():
    lib = evaluate(_episodes(), TASKS, k=1)
    run = score_episodes(_episodes(), TASKS, ScoreSettings(scored_at_ns=1))
    assert lib.overall == run.report.overall
    assert lib.per_task == run.report.per_task and lib.per_slice == run.report.per_slice
    assert [u.task_id for u in lib.unmatched] == [u.task_id for u in run.unmatched] == ["zz"]
    assert all(isinstance(u, Unmatched) for u in lib.unmatched)


def test_one_report_shape():
    lib = report_to_dict(evaluate(_episodes(), TASKS))
    run = run_to_dict(score_episodes(_episodes(), TASKS, ScoreSettings(scored_at_ns=1)))
    assert list(lib) == list(run)
    assert lib["aggregate"] == run["aggregate"]
    assert lib["per_task"] == run["per_task"]
    assert set(lib["episodes"][0]) <= set(run["episodes"][0])
    assert run["episodes"][0]["root_span_id"] == f"{1:016x}"
    json.dumps(lib, allow_nan=False)


def test_evaluate_refuses_to_pool_different_runs_with_counts():
    eps = [Episode("a", run=RunProvenance(model="m1")), Episode("a", run=RunProvenance(model="m1")),
           Episode("a", run=RunProvenance(model="m2"))]
    with pytest.raises(ComparabilityError, match=r"2 different provenance keys .* x2"):
        evaluate(eps, TASKS)
    assert len(evaluate(eps, TASKS, group_by_provenance=True).groups) == 2
