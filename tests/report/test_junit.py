"""`--junit` of `score` and `compare`, read back by a real JUnit reader (junit2html's parser,
what CI dashboards use), with hostile strings from traces."""

from __future__ import annotations

import json

from click.testing import CliRunner
from junit2htmlreport import parser

from ek_otel.cli import cli
from ek_otel.report.compare import compare_tasks
from ek_otel.report.junit import comparison_junit, run_junit, write_junit
from ek_otel.report.model import report_from_dict
from ek_otel.report.stats import TaskCounts

from .conftest import GOLD, TRACES


def _cases(path):
    report = parser.Junit(str(path))
    return {case.name: case for suite in report.suites for case in suite.all()}


def test_score_junit_one_case_per_task_flaky_visible(tmp_path):
    out, js = tmp_path / "run.xml", tmp_path / "run.json"
    result = CliRunner().invoke(
        cli, ["score", str(TRACES), "--gold", str(GOLD), "--junit", str(out), "--json", str(js)],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"wrote {out} (JUnit XML: 4 test cases, 4 failures)" in result.stderr
    data = json.loads(js.read_text())
    cases = _cases(out)
    assert sorted(cases) == sorted(data["per_task"])
    refund = cases["refund-order-1042"]
    assert refund.outcome() == "failed"
    assert refund.failure_msg.startswith("flaky: 1 of 2 trials succeeded; ")
    assert "refund.amount: expected 35.5, got 355.0" in refund.failure_msg
    assert refund.testclass.name == "ek-otel.payments"
    assert all(c.failure_msg.startswith("flaky: ") for c in cases.values())


def test_run_junit_pass_fail_and_hostile_text(tmp_path):
    hostile = "</failure><script>x</script>\x00\x1b]8;;"
    report = report_from_dict({"aggregate": {}, "per_task": {
        "ok": {"episodes": 2, "successes": 2}, hostile: {"episodes": 3, "successes": 0}}}, "r")
    path = tmp_path / "r.xml"
    line = write_junit(run_junit(report, {hostile: [hostile]}), str(path))
    assert line == f"wrote {path} (JUnit XML: 2 test cases, 1 failure)"
    cases = _cases(path)
    assert cases["ok"].outcome() == "passed"
    bad = next(c for name, c in cases.items() if name != "ok")
    assert bad.outcome() == "failed" and bad.failure_msg.startswith("fail: 0 of 3 trials")
    assert "<script>x</script>" in bad.name and "\x00" not in bad.name  # text, not markup


def test_compare_junit_regressions_fail_and_too_few_tasks_is_skipped(tmp_path):
    comparison = compare_tasks({"a": TaskCounts(2, 2), "b": TaskCounts(2, 1), "c": TaskCounts(1, 1)},
                               {"a": TaskCounts(2, 1), "b": TaskCounts(2, 2), "d": TaskCounts(1, 1)})
    path = tmp_path / "c.xml"
    write_junit(comparison_junit(comparison, {"a": ["wrong city"]}), str(path))
    cases = _cases(path)
    assert cases["a"].outcome() == "failed"
    assert cases["a"].failure_msg == "regressed: success 1.000 -> 0.500 (pass -> flaky); wrong city"
    assert cases["b"].outcome() == "passed"
    assert cases["c"].outcome() == "skipped" and cases["d"].outcome() == "skipped"
    assert cases["paired test"].outcome() == "skipped"
    assert "too few tasks" in cases["paired test"].skipped_msg


def test_compare_junit_significantly_worse_fails_the_paired_test(tmp_path):
    base = {f"t{i}": TaskCounts(3, 3) for i in range(8)}
    cand = {f"t{i}": TaskCounts(3, 0) for i in range(8)}
    path = tmp_path / "c.xml"
    write_junit(comparison_junit(compare_tasks(base, cand), {}), str(path))
    case = _cases(path)["paired test"]
    assert case.outcome() == "failed" and case.failure_msg.startswith("significantly worse")


def test_compare_cli_writes_junit_and_markdown(example_and_worse_three, tmp_path):
    base, worse = example_and_worse_three
    xml, md = tmp_path / "c.xml", tmp_path / "c.md"
    result = CliRunner().invoke(
        cli, ["compare", str(base), str(worse), "--junit", str(xml), "--markdown", str(md),
              "--fail-on-regression", "any"], catch_exceptions=False)
    assert result.exit_code == 1
    assert f"wrote {xml} (JUnit XML: 5 test cases, 2 failures)" in result.stderr
    assert f"wrote {md} (Markdown summary," in result.stderr
    cases = _cases(xml)
    assert cases["flight-booking"].failure_msg.startswith(
        "regressed: success 0.500 -> 0.000 (flaky -> fail); ")
    assert "UA 999" in cases["flight-booking"].failure_msg


def test_an_unwritable_junit_file_is_one_line_before_any_work(tmp_path):
    result = CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--junit",
                                      str(tmp_path / "no" / "r.xml")])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "cannot write the JUnit file" in result.output


def test_runs_that_must_not_be_pooled_get_a_suite_each(tmp_path):
    from ek_otel.cli._gates import write_run_gates

    data = {"aggregate": {}, "per_task": {"t": {"episodes": 2, "successes": 1}},
            "groups": [{"key": ["model-a", "", "", ""], "aggregate": {},
                        "headline": {"text": "1 of 1 run passed; tasks: 1 pass, 0 flaky, 0 fail"},
                        "per_task": {"t": {"episodes": 1, "successes": 1}}},
                       {"key": ["model-b", "", "", ""], "aggregate": {},
                        "per_task": {"t": {"episodes": 1, "successes": 0}}}],
            "episodes": [{"task_id": "t", "success": True, "group": 0},
                         {"task_id": "t", "success": False, "group": 1,
                          "explanation": "model b called the wrong tool"}]}
    path = tmp_path / "g.xml"
    write_run_gates(data, "g.json", str(path), None)
    report = parser.Junit(str(path))
    assert [s.name for s in report.suites] == ["ek-otel score: model-a / - / - / -",
                                               "ek-otel score: model-b / - / - / -"]
    a, b = (list(s.all())[0] for s in report.suites)
    assert a.outcome() == "passed"
    assert b.outcome() == "failed"
    assert b.failure_msg == "fail: 0 of 1 trial succeeded; model b called the wrong tool"
