"""A task's verdict from its trials, and the run's headline."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
from ek_otel import evaluate
from ek_otel.core.verdicts import VERDICTS, Headline, headline_of, task_verdict
from ek_otel.scoring.report import report_to_dict


def test_the_three_verdicts():
    assert [task_verdict(3, s) for s in (3, 2, 1, 0)] == ["pass", "flaky", "flaky", "fail"]
    assert task_verdict(1, 1) == "pass" and task_verdict(1, 0) == "fail"
    assert task_verdict(0, 0) is None


@pytest.mark.parametrize("trials,successes", [(-1, 0), (2, 3), (2, -1)])
def test_impossible_counts_are_refused(trials, successes):
    with pytest.raises(ValueError):
        task_verdict(trials, successes)


def test_the_issue_headline():
    head = headline_of([(3, 2), (2, 1), (2, 0), (2, 2)])
    assert head == Headline(runs=9, runs_passed=5, tasks=4, passed=1, flaky=2, failed=1)
    assert head.text == "5 of 9 runs passed; tasks: 1 pass, 2 flaky, 1 fail"


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)).map(
    lambda p: (max(p), min(p))), max_size=30))
def test_the_headline_adds_up(tasks):
    head = headline_of(tasks)
    with_trials = [(n, s) for n, s in tasks if n]
    assert head.tasks == head.passed + head.flaky + head.failed == len(with_trials)
    assert head.runs == sum(n for n, _ in with_trials)
    assert head.runs_passed == sum(s for _, s in with_trials)
    assert set(head.to_dict()) >= {"pass", "flaky", "fail", "runs", "runs_passed", "text"}


def test_a_task_that_expects_no_call_is_judged_by_its_success():
    # No call expected: a trial that makes no call succeeds, one that calls a tool fails.
    task = TaskSpec("quiet", gold=[])
    report = evaluate([Episode("quiet"), Episode("quiet", Trajectory([Step("get_weather")]))],
                      [task])
    data = report_to_dict(report)
    assert data["per_task"]["quiet"]["verdict"] == "flaky"
    assert data["headline"]["text"] == "1 of 2 runs passed; tasks: 0 pass, 1 flaky, 0 fail"


def test_the_json_report_has_a_verdict_per_task_and_the_headline():
    tasks = [TaskSpec("a", gold=[("f", {})]), TaskSpec("b", gold=[("f", {})]),
             TaskSpec("c", gold=[("f", {})])]
    ok, bad = Trajectory([Step("f")]), Trajectory([Step("g")])
    episodes = [Episode("a", ok), Episode("a", ok), Episode("b", ok), Episode("b", bad),
                Episode("c", bad)]
    data = report_to_dict(evaluate(episodes, tasks))
    assert {t: v["verdict"] for t, v in data["per_task"].items()} == {
        "a": "pass", "b": "flaky", "c": "fail"}
    assert all(v["verdict"] in VERDICTS for v in data["per_task"].values())
    assert data["headline"] == {"runs": 5, "runs_passed": 3, "tasks": 3, "pass": 1, "flaky": 1,
                                "fail": 1,
                                "text": "3 of 5 runs passed; tasks: 1 pass, 1 flaky, 1 fail"}
