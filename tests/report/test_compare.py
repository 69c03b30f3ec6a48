"""`ek-otel compare`: regressions, paired intervals, McNemar, refusals and exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.errors import ComparabilityError
from ek_otel.report.compare import compare_reports, compare_tasks
from ek_otel.report.model import load_report
from ek_otel.report.stats import TaskCounts


def compare(*args):
    return CliRunner().invoke(cli, ["compare", *map(str, args)], catch_exceptions=False)


def test_a_worse_candidate_made_from_the_example_regresses_where_it_was_broken(base_and_worse):
    base, worse = base_and_worse
    comparison = compare_reports(load_report(str(base)), load_report(str(worse)))
    regressed = [c.task_id for c in comparison.changes if c.status == "regressed"]
    assert sorted(regressed) == ["flight-booking", "refund-order-1042", "weather-paris"]
    assert [c.status for c in comparison.changes][:3] == ["regressed"] * 3
    assert comparison.improved == 0
    assert comparison.intervals["success_rate"].estimate < 0
    assert comparison.intervals["success_rate"].low is None  # the paired test decides
    # 4 shared tasks: no result could be significant, whatever the drop.
    assert comparison.test.result == "too few tasks" and not comparison.significantly_worse
    assert comparison.p_value is None


def test_compare_cli_json_and_exit_codes(base_and_worse, tmp_path):
    base, worse = base_and_worse
    out = tmp_path / "cmp.json"
    result = compare(base, worse, "--json", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["changes"]["regressed"] == 3 and data["significantly_worse"] is False
    assert data["test"]["result"] == "too few tasks" and data["test"]["tasks_needed"] == 6
    assert [t["status"] for t in data["tasks"]][:3] == ["regressed"] * 3
    assert data["tasks"][0]["base"]["verdict"] == "pass"
    assert data["tasks"][0]["candidate"]["verdict"] == "fail"
    assert [row["drop"] for row in data["power"]] == [0.1, 0.2]
    assert compare(base, worse, "--fail-on-regression", "any").exit_code == 1
    significant = compare(base, worse, "--fail-on-regression", "significant")
    assert significant.exit_code == 0 and "too few tasks" in significant.output
    # The other way round the candidate is better: nothing fails.
    assert compare(worse, base, "--fail-on-regression", "any").exit_code == 0
    assert compare(worse, base, "--fail-on-regression", "significant").exit_code == 0
    assert compare(base, base, "--fail-on-regression", "any").exit_code == 0


def test_the_issue_16_worsened_copy_of_the_example(example_and_worse_three):
    """Issue 16, item 1: three runs got worse (flight-booking 0.5 -> 0.0, weather-paris
    0.667 -> 0.333); today's main said "0 regressed" and exited 0 with `any`."""
    base, worse = example_and_worse_three
    comparison = compare_reports(load_report(str(base)), load_report(str(worse)))
    by_task = {c.task_id: c for c in comparison.changes}
    assert by_task["flight-booking"].status == "regressed"
    assert (by_task["flight-booking"].base.verdict, by_task["flight-booking"].candidate.verdict) \
        == ("flaky", "fail")
    weather = by_task["weather-paris"]
    assert weather.status == "regressed" and weather.success_delta == pytest.approx(-1 / 3)
    assert (weather.base.verdict, weather.candidate.verdict) == ("flaky", "flaky")
    assert by_task["refund-order-1042"].status == "unchanged"  # worse arguments, same success
    assert by_task["joke-no-tool"].status == "unchanged"
    assert [c.task_id for c in comparison.changes][:2] == ["flight-booking", "weather-paris"]
    result = compare(base, worse, "--fail-on-regression", "any")
    assert result.exit_code == 1
    assert "2 shared tasks lost success rate" in result.output
    assert "2 regressed, 0 improved, 2 unchanged" in result.output
    assert "flaky -> fail" in result.output
    result = compare(base, worse, "--fail-on-regression", "significant")
    assert result.exit_code == 0
    assert "too few tasks" in result.output or "not significant" in result.output
    assert "significantly" not in result.output
    assert "power (80%, 5%): a drop of 0.1:" in result.output


def test_one_shared_task_never_says_significant(example_report, tmp_path):
    # Issue 16, item 2: one shared task tried once made `significant` exit 1 on main.
    path, data = example_report
    only = {"flight-booking": dict(data["per_task"]["flight-booking"], episodes=1, successes=1)}
    worse = {"flight-booking": dict(data["per_task"]["flight-booking"], episodes=1, successes=0)}
    a = _write(tmp_path / "a.json", dict(data, per_task=only))
    b = _write(tmp_path / "b.json", dict(data, per_task=worse))
    out = tmp_path / "c.json"
    for args in ((a, b), (b, a)):
        result = compare(*args, "--fail-on-regression", "significant", "--json", out)
        assert result.exit_code == 0
        assert "significantly" not in result.output and "too few tasks" in result.output
        assert json.loads(out.read_text())["test"]["result"] == "too few tasks"
    assert compare(a, b, "--fail-on-regression", "any").exit_code == 1


def test_one_regressed_task_fails_any_but_not_significant(tmp_path):
    ok, bad = TaskCounts(1, 1, 1, 1.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)
    base = {f"t{i}": ok for i in range(30)}
    cand = dict(base, t0=bad)
    comparison = compare_tasks(base, cand)
    assert comparison.fails("any") and not comparison.fails("significant")
    assert comparison.test.result == "not significant" and comparison.test.name == "exact McNemar"


def test_a_flaky_task_can_regress():
    # pass -> flaky and flaky 0.67 -> flaky 0.33 are regressions; flaky -> pass improves.
    comparison = compare_tasks(
        {"a": TaskCounts(3, 3), "b": TaskCounts(3, 2), "c": TaskCounts(3, 1), "d": TaskCounts(3, 1)},
        {"a": TaskCounts(3, 2), "b": TaskCounts(3, 1), "c": TaskCounts(3, 3), "d": TaskCounts(3, 1)})
    status = {c.task_id: c.status for c in comparison.changes}
    assert status == {"a": "regressed", "b": "regressed", "c": "improved", "d": "unchanged"}
    assert comparison.fails("any")


def test_many_tasks_that_all_dropped_are_significantly_worse():
    base = {f"t{i}": TaskCounts(3, 3) for i in range(12)}
    cand = {f"t{i}": TaskCounts(3, 1) for i in range(12)}
    comparison = compare_tasks(base, cand)
    assert comparison.test.result == "significantly worse"
    assert comparison.test.name == "paired sign-flip permutation (exact)"
    assert comparison.test.p_value == pytest.approx(2 / 2 ** 12)
    assert comparison.fails("significant") and comparison.fails("any")


def _write(path, data):
    path.write_text(json.dumps(data))
    return path


def test_refuses_different_gold_or_matcher_with_one_line_and_exit_2(example_report, tmp_path):
    path, data = example_report
    other_gold = _write(tmp_path / "other-gold.json",
                        dict(data, provenance=dict(data["provenance"], gold_sha256="0" * 64)))
    result = compare(path, other_gold)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "different gold files" in result.output
    other_level = _write(tmp_path / "arg.json", dict(data, provenance=dict(
        data["provenance"], matcher=dict(data["provenance"]["matcher"], level="arg"))))
    result = compare(path, other_level)
    assert result.exit_code == 2 and "level: 'call' vs 'arg'" in result.output
    with pytest.raises(ComparabilityError):
        compare_reports(load_report(str(path)), load_report(str(other_level)))


def test_bad_report_files_are_one_line_naming_the_file(example_report, tmp_path):
    path, _ = example_report
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    for args, name in (((path, broken), "broken.json"), ((tmp_path / "nope.json", path), "nope.json")):
        result = compare(*args)
        assert result.exit_code == 2
        assert result.output.startswith("ek-otel: error: ") and name in result.output
        assert result.output.count("\n") == 1


def test_tasks_in_only_one_report_are_listed(example_report, tmp_path):
    path, data = example_report
    fewer = dict(data, per_task={k: v for k, v in data["per_task"].items() if k != "joke-no-tool"})
    other = _write(tmp_path / "fewer.json", fewer)
    out = tmp_path / "c.json"
    result = compare(path, other, "--json", out)
    assert result.exit_code == 0
    assert "1 task only in the base: joke-no-tool" in result.output
    assert json.loads(out.read_text())["only_in_base"] == ["joke-no-tool"]


def test_a_report_of_runs_that_must_not_be_pooled_is_refused(example_report, tmp_path):
    path, data = example_report
    grouped = _write(tmp_path / "grouped.json", dict(data, groups=[
        {"key": ["a", "", "", ""], "aggregate": {}, "per_task": {}},
        {"key": ["b", "", "", ""], "aggregate": {}, "per_task": {}}]))
    result = compare(path, grouped)
    assert result.exit_code == 2 and "holds 2 runs that must not be pooled" in result.output
