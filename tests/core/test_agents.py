"""Gold calls pinned to an agent: a call by another agent is a wrong call."""

from __future__ import annotations

from ek_otel.core.episode import Episode, Step, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.gold.native import task_from_dict, task_to_dict


def run(*steps):
    return Episode("t", Trajectory([Step(tool, {}, agent=agent) for tool, agent in steps]))


TASK = {"task_id": "t", "calls": [{"lookup": {}, "agent": "planner"}, {"refund": {}, "agent": "billing"}]}


def test_the_right_agents_pass_and_another_agent_is_a_wrong_call():
    task = task_from_dict(TASK)
    assert task.call_agents == {0: "planner", 1: "billing"} and task_to_dict(task) == TASK
    assert score_episode(run(("lookup", "planner"), ("refund", "billing")), task).success
    s = score_episode(run(("lookup", "planner"), ("refund", "planner")), task)
    assert not s.success and s.fp == 1.0 and s.fn == 1.0
    assert "refund.@agent: expected 'billing', got 'planner'" in s.explanation
    assert not score_episode(run(("lookup", "planner"), ("refund", None)), task).success


def test_agents_under_superset_pick_the_call_of_the_right_agent():
    task = task_from_dict({**TASK, "match": "superset"})
    s = score_episode(run(("refund", "planner"), ("lookup", "planner"), ("refund", "billing")), task)
    assert s.success and s.explanation.startswith("superset: 2 of 2 gold calls made; 1 extra call allowed")
