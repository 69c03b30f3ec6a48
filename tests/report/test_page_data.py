"""The pages' data (report.page_data): verdicts, headline, compacted episodes, compare rows."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.errors import InputError
from ek_otel.report.compare import compare_tasks
from ek_otel.report.model import report_from_dict
from ek_otel.report.page_data import (
    COST_FIELDS,
    change_of,
    compare_page,
    headline,
    page_episodes,
    run_context,
    validate_trace_url,
    verdict_of,
)
from ek_otel.report.stats import TaskCounts


@pytest.mark.parametrize("figures, verdict", [
    ({"episodes": 3, "successes": 3}, "pass"),
    ({"episodes": 3, "successes": 1}, "flaky"),
    ({"episodes": 3, "successes": 0}, "fail"),
    ({"episodes": 0, "successes": 0}, None),
    ({"episodes": "3", "successes": 1}, None),
    ({"verdict": "flaky", "episodes": 1, "successes": 1}, "flaky"),
    ({"verdict": "bogus", "episodes": 1, "successes": 1}, "pass"),
])
def test_verdict_of(figures, verdict):
    assert verdict_of(figures) == verdict


def test_headline_names_the_worst_verdict():
    from ek_otel.report.model import TaskView

    tasks = [TaskView("a", None, TaskCounts(2, 1), {"episodes": 2, "successes": 1}),
             TaskView("b", None, TaskCounts(1, 1), {"episodes": 1, "successes": 1})]
    h = headline({"episodes": 3, "successes": 2}, tasks)
    assert h["tasks"] == {"pass": 1, "flaky": 1, "fail": 0} and h["worst"] == "flaky"
    assert headline({"episodes": 0}, [])["text"] == "no run was scored"
    assert headline({"episodes": 4}, [])["text"] == "4 runs scored"
    assert headline({"episodes": 1, "successes": 1}, [])["text"] == "1 of 1 run passed (100.0%)"
    assert headline({"episodes": 1}, [])["text"] == "1 run scored"


@pytest.mark.parametrize("template", ["ftp://x/{trace_id}", "https://x/", "https://x/{trace_id}/{trace_id}",
                                      "https://x/{trace_id}?a={b}", "https:///{trace_id}"])
def test_bad_trace_url_templates_are_refused(template):
    with pytest.raises(InputError, match="--trace-url"):
        validate_trace_url(template)


CALL = st.fixed_dictionaries({"tool": st.sampled_from(["f", "g"]),
                              "args": st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2),
                                                      max_size=2)})
EPISODE = st.fixed_dictionaries({
    "task_id": st.sampled_from(["a", "b"]),
    "success": st.booleans(),
    "tp": st.just(1.0),
    "cost": st.fixed_dictionaries({"input_tokens": st.integers(0, 9)}),
    "calls": st.lists(st.fixed_dictionaries({"got": CALL, "gold": st.one_of(st.none(), CALL)}), max_size=3),
})


@given(st.lists(EPISODE, max_size=5))
@settings(max_examples=100, deadline=None)
def test_compacted_episodes_lose_nothing_the_page_needs(episodes):
    compact, golds = page_episodes(episodes)
    assert len(compact) == len(episodes)
    assert len({json.dumps(g, sort_keys=True) for g in golds}) == len(golds)  # each gold once
    for original, page in zip(episodes, compact):
        assert "tp" not in page
        assert page["cost"] == [original["cost"].get(name) for name in COST_FIELDS]
        for row, page_row in zip(original["calls"], page["calls"]):
            gold = page_row["gold"]
            assert (golds[gold] if gold is not None else None) == row["gold"]
        assert ("failures" in page) == (original["success"] is False)


def test_compare_page_puts_regressions_first_and_sums_deltas():
    base = report_from_dict({"aggregate": {}, "per_task": {}, "episodes": [
        {"task_id": "a", "success": True, "cost": {"input_tokens": 10}, "dollars": 1.0},
        {"task_id": "b", "success": False, "cost": {"input_tokens": 5}, "dollars": 1.0}]}, "base")
    cand = report_from_dict({"aggregate": {}, "per_task": {}, "episodes": [
        {"task_id": "a", "success": False, "cost": {"input_tokens": 4}, "dollars": None},
        {"task_id": "b", "success": True, "cost": {"input_tokens": 5}, "dollars": 2.0}]}, "cand")
    comparison = compare_tasks({"a": TaskCounts(1, 1), "b": TaskCounts(1, 0)},
                               {"a": TaskCounts(1, 0), "b": TaskCounts(1, 1)}).to_dict()
    page = compare_page(comparison, base, cand)
    assert [t["task_id"] for t in page["comparison"]["tasks"]] == ["a", "b"]
    assert [t["change"] for t in page["comparison"]["tasks"]] == ["regressed", "improved"]
    assert page["overall"]["delta"]["input_tokens"] == -6
    assert page["overall"]["delta"]["dollars"] is None  # a candidate run without a price
    assert change_of(None, None) == "unchanged"


def test_the_reports_own_headline_is_shown_only_when_it_disagrees():
    data = {"aggregate": {"episodes": 2, "successes": 1}, "per_task": {"t": {"episodes": 2, "successes": 1}},
            "headline": {"runs": 2, "runs_passed": 1, "tasks": 1, "pass": 0, "flaky": 1, "fail": 0,
                         "text": "1 of 2 runs passed; tasks: 0 pass, 1 flaky, 0 fail"}}
    assert run_context(report_from_dict(data, "r.json"), generated_at="now")["headline"]["report"] is None
    data["headline"] = dict(data["headline"], flaky=0, fail=1, text="theirs")
    assert run_context(report_from_dict(data, "r.json"), generated_at="now")["headline"]["report"] == "theirs"


def test_run_context_counts_traces_and_non_runs():
    data = {"aggregate": {"episodes": 1}, "per_task": {},
            "episodes": [{"task_id": "t", "trace_id": "ab"}],
            "unmatched": [{"trace_id": "cd", "reason": "not an agent run: health check"},
                          {"trace_id": "ab", "reason": "no task id"}]}
    ctx = run_context(report_from_dict(data, "r.json"), generated_at="now")
    assert ctx["traces"] == 2 and ctx["n_unmatched"] == 2 and ctx["n_not_runs"] == 1
