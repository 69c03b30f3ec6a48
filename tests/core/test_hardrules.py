"""Hard rules fail a run whatever ``match`` says, each as its own kind."""

from __future__ import annotations

from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.hardrules import HardRules, Violation


def ep(*tools):
    return Episode("t", Trajectory([Step(t, a) for t, a in tools]))


def test_forbid_globs_fail_a_run_that_otherwise_succeeds():
    task = TaskSpec("t", gold=[("search", {})], match="superset", forbid=["delete_*"])
    s = score_episode(ep(("search", {}), ("delete_account", {"id": 1})), task)
    assert not s.success
    assert s.violations == (Violation("forbidden_call", "delete_account", "delete_*"),)
    assert s.explanation.endswith("; forbidden: delete_account called")
    assert score_episode(ep(("search", {}), ("lookup", {})), task).success


def test_max_calls_per_tool_and_in_total():
    task = TaskSpec("t", gold=[("search", {})], match="superset", args="ignore",
                    max_calls={"search": 3, "*": 4})
    calls = [("search", {"q": i}) for i in range(4)] + [("x", {})]
    s = score_episode(ep(*calls), task)
    assert [v.text for v in s.violations] == ["search called 4 times (max 3)", "5 calls in all (max 4)"]
    assert score_episode(ep(*calls[:3]), task).success


def test_no_repeat_ignores_key_order_and_counts_each_repeat():
    rules = HardRules(no_repeat=True)
    calls = [("s", {"a": 1, "b": 2}), ("s", {"b": 2, "a": 1}), ("s", {"a": 1, "b": 2}), ("s", {"a": 2})]
    assert [v.kind for v in rules.violations(calls)] == ["repeated_call", "repeated_call"]


def test_ignored_tools_are_not_seen_by_the_rules():
    task = TaskSpec("t", gold=[], max_calls={"*": 0}, ignore_tools=["final_answer"])
    assert score_episode(ep(("final_answer", {})), task).success


def test_violations_round_trip_through_the_envelope_and_reach_the_report():
    from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    from ek_otel.scoring.report import episode_dict

    task = TaskSpec("t", gold=[], forbid=["rm"], match="subset")
    s = score_episode(ep(("rm", {})), task)
    env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", s, ScoreProvenance("0", "", {}))
    assert ScoreEnvelope.from_json(env.to_json()).score.violations == s.violations
    row = episode_dict(s)
    assert row["match"] == "subset"
    assert row["violations"] == [{"kind": "forbidden_call", "tool": "rm", "detail": "rm"}]
    plain = episode_dict(score_episode(ep(("rm", {})), TaskSpec("t", gold=[])))
    assert "violations" not in plain and "match" not in plain
    assert "violations" not in ScoreEnvelope("ab" * 16, "cd" * 8, "t", score_episode(
        ep(), TaskSpec("t")), ScoreProvenance("0", "", {})).to_json()


def test_failure_kinds_of_the_breakdowns():
    from ek_otel.report.failures import failure_counts
    from ek_otel.scoring.report import episode_dict

    task = TaskSpec("t", gold=[("search", {})], match="superset", forbid=["rm"], no_repeat=True)
    row = episode_dict(score_episode(ep(("search", {}), ("search", {}), ("rm", {})), task))
    assert dict(failure_counts([row])) == {"forbidden_call": 1, "repeated_call": 1}
