"""The scoring layer: one episode linked and scored (ek and BFCL matchers), gold loading,
and many episodes scored, batched to a sink and aggregated."""

from __future__ import annotations

from pathlib import Path

import pytest

from ek_otel._version import __version__
from ek_otel.core.episode import Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel.emit.envelope import ScoreEnvelope
from ek_otel.gold.native import load_tasks
from ek_otel.scoring import (
    NO_ROOT_SPAN,
    NO_TASK_ID,
    UNKNOWN_TASK,
    ScoreSettings,
    Unmatched,
    score_and_envelope,
    score_episodes,
)

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "examples" / "tasks.jsonl"
TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT_SPAN = "b7ad6b7169203331"


def _tasks() -> dict:
    return {t.task_id: t for t in load_tasks(GOLD)}


def _episode(task_id="t", calls=(("search", {"q": "cats"}),), trace=TRACE, root=ROOT_SPAN, model="m"):
    return Episode(task_id, Trajectory([Step(n, a) for n, a in calls]),
                   run=RunProvenance(model=model),
                   provenance=Provenance(trace_id=trace, root_span_id=root, service_name="agent"))


TASKS = {"t": TaskSpec("t", gold=[("search", {"q": "cats"})])}


# ---------------------------------------------------------------------------
# One episode
# ---------------------------------------------------------------------------


def test_envelope_carries_ids_provenance_and_the_score():
    settings = ScoreSettings(level="arg", strategy="best_first", gold_sha256="ab" * 32, scored_at_ns=7)
    env = score_and_envelope(_episode(), TASKS, settings, revision=2)
    assert isinstance(env, ScoreEnvelope)
    assert (env.trace_id, env.root_span_id, env.task_id) == (TRACE, ROOT_SPAN, "t")
    assert env.revision == env.score.revision == 2
    assert env.evaluated_service == "agent"
    assert env.scored_at_ns == 7
    assert env.provenance.evaluator_version == __version__
    assert env.provenance.gold_sha256 == "ab" * 32
    assert env.provenance.matcher == {"matcher": "ek", "level": "arg", "strategy": "best_first",
                                      "canonicalizer": "default"}
    assert (env.score.f1, env.score.label, env.score.level) == (1.0, "pass", "arg")


@pytest.mark.parametrize(
    "episode, default, reason",
    [
        (_episode(task_id=""), None, NO_TASK_ID),
        (_episode(task_id="other"), None, UNKNOWN_TASK),
        (_episode(task_id="other"), "t", UNKNOWN_TASK),   # --task only fills in missing ids
        (_episode(root=""), None, NO_ROOT_SPAN),
    ],
)
def test_episodes_that_cannot_be_scored_say_why(episode, default, reason):
    outcome = score_and_envelope(episode, TASKS, ScoreSettings(default_task_id=default))
    assert isinstance(outcome, Unmatched)
    assert outcome.reason == reason
    assert outcome.trace_id == TRACE


def test_an_episode_without_task_id_takes_the_default_task():
    env = score_and_envelope(_episode(task_id="", calls=()), TASKS, ScoreSettings(default_task_id="t"))
    assert env.task_id == "t"
    assert env.score.label == "fail" and env.score.fn == 1.0


def test_unknown_settings_are_refused():
    with pytest.raises(ValueError):
        ScoreSettings(matcher="magic")
    with pytest.raises(ValueError):
        ScoreSettings(group_by="user")


# ---------------------------------------------------------------------------
# Many episodes
# ---------------------------------------------------------------------------


class ListSink:
    def __init__(self, ok=True):
        self.ok = ok
        self.batches = []

    def send(self, envelopes):
        self.batches.append(list(envelopes))
        return self.ok

    def close(self):
        pass


def test_score_episodes_batches_to_the_sink_and_counts_failures():
    episodes = [_episode(trace=f"{i + 1:032x}") for i in range(5)] + [_episode(task_id="zzz")]
    sink = ListSink(ok=False)
    run = score_episodes(episodes, TASKS, ScoreSettings(), sink=sink, batch_size=2)
    assert [len(b) for b in sink.batches] == [2, 2, 1]
    assert run.emitted == 5 and run.emit_failures == 5 and not run.emit_ok
    assert [u.task_id for u in run.unmatched] == ["zzz"]
    assert run.report.n_episodes == 5


def test_repeated_trials_give_pass_hat_k_and_several_models_are_grouped_not_refused():
    episodes = [
        _episode(trace="1" * 32),
        _episode(trace="2" * 32, calls=()),
        _episode(trace="3" * 32, model="other-model"),
    ]
    run = score_episodes(episodes, TASKS, ScoreSettings())
    assert run.report.k == 3
    assert run.report.pass_hat_k["t"] == 0.0   # one of three trials failed
    assert len(run.report.groups) == 2
    data = run.to_dict()
    assert data["aggregate"]["episodes"] == 3 and len(data["groups"]) == 2


def test_each_run_gets_pass_k_with_the_k_of_its_own_trials():
    # Model "two" tried each task twice, model "three" three times: pooled, every task has 5
    # trials (k=5, so neither run alone could show pass^5); each run gets its own k instead.
    tasks = {"t": TaskSpec("t", gold=[("search", {"q": "cats"})]),
             "u": TaskSpec("u", gold=[("search", {"q": "dogs"})])}
    good_t, good_u, bad = (("search", {"q": "cats"}),), (("search", {"q": "dogs"}),), ()
    runs = [("two", "t", good_t), ("two", "t", bad), ("two", "u", good_u), ("two", "u", good_u),
            ("three", "t", good_t), ("three", "t", good_t), ("three", "t", good_t),
            ("three", "u", good_u), ("three", "u", good_u), ("three", "u", bad)]
    episodes = [_episode(task_id=task, calls=calls, model=model, trace=f"{i + 1:032x}")
                for i, (model, task, calls) in enumerate(runs)]
    run = score_episodes(episodes, tasks, ScoreSettings())
    assert run.report.k == 5   # the pooled rule, unchanged
    two, three = run.to_dict()["groups"]
    assert two["key"][0] == "two" and three["key"][0] == "three"
    assert (two["aggregate"]["k"], three["aggregate"]["k"]) == (2, 3)
    # two: t passed 1 of 2 -> pass^2 = 0, pass@2 = 1; u passed 2 of 2 -> 1 and 1.
    assert two["per_task"]["t"]["pass_hat_k"] == 0.0 and two["per_task"]["t"]["pass_at_k"] == 1.0
    assert two["per_task"]["u"]["pass_hat_k"] == 1.0
    assert (two["aggregate"]["mean_pass_hat_k"], two["aggregate"]["mean_pass_at_k"]) == (0.5, 1.0)
    # three: t passed 3 of 3 -> pass^3 = 1; u passed 2 of 3 -> pass^3 = 0 (pass^2 would be 1/3).
    assert three["per_task"]["t"]["pass_hat_k"] == 1.0 and three["per_task"]["u"]["pass_hat_k"] == 0.0
    assert (three["aggregate"]["mean_pass_hat_k"], three["aggregate"]["mean_pass_at_k"]) == (0.5, 1.0)


def test_a_k_given_by_the_caller_holds_for_every_run():
    from ek_otel.scoring.run import aggregate
    from ek_otel.core.scores import EpisodeScore

    ok, fail = EpisodeScore("t", success=True), EpisodeScore("t", success=False)
    scored = [(ok, ("a",)), (fail, ("a",)), (ok, ("b",)), (ok, ("b",)), (fail, ("b",))]
    report = aggregate(scored, TASKS, k=2)
    assert report.k == 2 and [g.report.k for g in report.groups] == [2, 2]
    assert [g.report.pass_hat_k["t"] for g in report.groups] == [0.0, pytest.approx(1 / 3)]


# ---------------------------------------------------------------------------
# The BFCL matcher
# ---------------------------------------------------------------------------


def _bfcl_task():
    from ek_otel.core.episode import AnyOf, ToolSpec

    return TaskSpec("simple_python_0", gold=[("f", {"x": AnyOf((1,))})],
                    tools=[ToolSpec("f", schema={"type": "dict", "required": ["x"],
                                                 "properties": {"x": {"type": "integer"}}})],
                    meta={"bfcl_category": "simple_python"})


def test_bfcl_matcher_uses_the_official_verdict():
    from ek_otel.bfcl.matcher import bfcl_verdict_for_calls

    task = _bfcl_task()
    tasks = {task.task_id: task}
    settings = ScoreSettings(matcher="bfcl")
    for calls in ([("f", {"x": 1})], [("f", {"x": True})], [("f", {"x": 2})], []):
        env = score_and_envelope(_episode(task.task_id, calls=calls), tasks, settings)
        verdict = bfcl_verdict_for_calls(calls, task)
        assert env.score.success is verdict.valid
        assert env.score.metric == "bfcl" and env.provenance.matcher["matcher"] == "bfcl"
        if not verdict.valid:
            assert verdict.error_type in env.score.explanation


def test_bfcl_matcher_refuses_gold_it_cannot_check():
    from ek_otel.errors import BfclDataError
    from ek_otel.scoring import check_tasks

    check_tasks({"simple_python_0": _bfcl_task()}, ScoreSettings(matcher="bfcl"))
    with pytest.raises(BfclDataError, match="weather-paris"):
        check_tasks(_tasks(), ScoreSettings(matcher="bfcl"))


def test_load_gold_default_task_rules(tmp_path):
    from ek_otel.errors import GoldFileError
    from ek_otel.scoring import load_gold

    tasks, default = load_gold(str(GOLD))
    assert len(tasks) > 1 and default is None  # several tasks: no default
    assert load_gold(str(GOLD), "weather-paris")[1] == "weather-paris"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# only a comment\n")
    with pytest.raises(GoldFileError, match="holds no task"):
        load_gold(str(empty))
