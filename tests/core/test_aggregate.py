"""aggregate_scores: a stream of scores added up into the corpus report, grouped by provenance."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.aggregate import aggregate_scores, check_comparable, index_tasks
from ek_otel.core.episode import TaskSpec
from ek_otel.core.scores import EpisodeScore
from ek_otel.errors import ComparabilityError, InputError

TASKS = index_tasks([TaskSpec("a", slice="s"), TaskSpec("b", value=3.0)])


def _score(task_id, ok):
    return EpisodeScore(task_id, tp=1.0 if ok else 0.0, fn=0.0 if ok else 1.0, exact=ok, success=ok)


def test_a_stream_is_read_once_and_gives_what_a_list_gives():
    pairs = [(_score("a", True), ("m",)), (_score("a", False), ("m",)), (_score("b", True), ("m",))]
    from_list = aggregate_scores(pairs, TASKS, k=1)
    from_stream = aggregate_scores(iter(pairs), TASKS, k=1)
    assert from_stream == from_list
    assert from_list.per_slice["s"].n == 2 and from_list.value_weighted_success == 4.0 / 5.0


def test_runs_of_different_provenance_are_refused_or_reported_apart():
    pairs = [(_score("a", True), ("m1",)), (_score("a", False), ("m2",))]
    with pytest.raises(ComparabilityError, match="2 different provenance keys"):
        aggregate_scores(pairs, TASKS)
    grouped = aggregate_scores(pairs, TASKS, group_by_provenance=None)
    assert [g.key for g in grouped.groups] == [("m1",), ("m2",)]
    assert [g.report.success_rate for g in grouped.groups] == [1.0, 0.0]
    with pytest.raises(ComparabilityError):
        check_comparable([("m1",), ("m2",)])


def test_scores_of_unknown_tasks_and_bad_k_are_refused():
    with pytest.raises(InputError, match="not among the tasks"):
        aggregate_scores([(_score("zz", True), ())], TASKS)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        aggregate_scores([], TASKS, k=0)


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.booleans()), max_size=12))
@settings(max_examples=100, deadline=None)
def test_the_figures_are_those_of_the_scores(outcomes):
    report = aggregate_scores([(_score(t, ok), ()) for t, ok in outcomes], TASKS, k=1)
    assert report.n_episodes == len(outcomes)
    if outcomes:
        assert report.success_rate == sum(ok for _, ok in outcomes) / len(outcomes)
        for task_id in {t for t, _ in outcomes}:
            mine = [ok for t, ok in outcomes if t == task_id]
            assert report.pass_at_k[task_id] == pytest.approx(sum(mine) / len(mine))
    else:
        assert report.success_rate is None and report.f1 is None
