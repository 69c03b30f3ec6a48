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
    for name in ("f1", "success_rate"):
        iv = comparison.intervals[name]
        assert iv.high < 0 and iv.low <= iv.estimate <= iv.high
    assert comparison.significantly_worse
    assert comparison.p_value == pytest.approx(0.25)  # 3 flips one way: 2 * 0.5**3


def test_compare_cli_json_and_exit_codes(base_and_worse, tmp_path):
    base, worse = base_and_worse
    out = tmp_path / "cmp.json"
    result = compare(base, worse, "--json", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["mcnemar"]["regressed"] == 3 and data["significantly_worse"] is True
    assert [t["status"] for t in data["tasks"]][:3] == ["regressed"] * 3
    assert compare(base, worse, "--fail-on-regression", "any").exit_code == 1
    assert compare(base, worse, "--fail-on-regression", "significant").exit_code == 1
    # The other way round the candidate is better: nothing fails.
    assert compare(worse, base, "--fail-on-regression", "any").exit_code == 0
    assert compare(worse, base, "--fail-on-regression", "significant").exit_code == 0
    assert compare(base, base, "--fail-on-regression", "any").exit_code == 0


def test_one_regressed_task_fails_any_but_not_significant(tmp_path):
    ok, bad = TaskCounts(1, 1, 1, 1.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)
    base = {f"t{i}": ok for i in range(30)}
    cand = dict(base, t0=bad)
    comparison = compare_tasks(base, cand)
    assert comparison.fails("any") and not comparison.fails("significant")


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
