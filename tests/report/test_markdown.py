"""`--markdown` of `score` and `compare`: short, escaped, parsed as GitHub renders tables."""

from __future__ import annotations

from click.testing import CliRunner
from markdown_it import MarkdownIt

from ek_otel.cli import cli
from ek_otel.report.compare import compare_tasks
from ek_otel.report.markdown import MAX_ROWS, comparison_markdown, escape, run_markdown
from ek_otel.report.model import report_from_dict
from ek_otel.report.stats import TaskCounts

from .conftest import GOLD, TRACES

MD = MarkdownIt("commonmark").enable("table")


def _tables(text):
    tokens = MD.parse(text)
    return sum(1 for t in tokens if t.type == "table_open")


def test_score_markdown_headline_and_worst_tasks(tmp_path):
    out = tmp_path / "s.md"
    result = CliRunner().invoke(
        cli, ["score", str(TRACES), "--gold", str(GOLD), "--markdown", str(out)],
        catch_exceptions=False)
    assert result.exit_code == 0
    assert f"wrote {out} (Markdown summary," in result.stderr
    text = out.read_text()
    assert text.splitlines()[0] == "### ek-otel score: 5 of 9 runs passed; tasks: 0 pass, 4 flaky, 0 fail"
    assert "success rate **0.556** (95% CI 0.212–0.863)" in text
    html = MD.render(text)
    assert _tables(text) == 1
    assert "refund.amount: expected 35.5, got 355.0" in html
    assert len(text) < 2_000


def test_compare_markdown_regressions_and_the_paired_test(example_and_worse_three, tmp_path):
    from ek_otel.report.compare import compare_reports
    from ek_otel.report.model import failing_explanations, load_report

    base, worse = example_and_worse_three
    candidate = load_report(str(worse))
    text = comparison_markdown(compare_reports(load_report(str(base)), candidate),
                               failing_explanations(candidate.data["episodes"]))
    assert text.splitlines()[0] == "### ek-otel compare: 2 regressed, 0 improved, 2 unchanged"
    assert "**Paired test:** too few tasks: 4 shared, at least 6" in text
    html = MD.render(text)
    assert "<td>flaky → <strong>fail</strong></td>" in html
    assert "got 'UA 999'" in html and "power (80%, 5%): a drop of 0.1:" in html
    assert "significantly" not in text
    assert _tables(text) == 2


def test_hostile_strings_render_as_text():
    hostile = "x | <img src=y onerror=alert(1)> [link](javascript:alert(1)) ![i](z) `c` *b*"
    report = report_from_dict({"aggregate": {}, "per_task": {
        hostile: {"episodes": 1, "successes": 0}}}, "r")
    html = MD.render(run_markdown(report, {hostile: [hostile + "\n| --- |"]}))
    assert "<img" not in html and "<a " not in html and "<code>" not in html and "<em>" not in html
    assert html.count("<tr>") == 2  # the header and one row: the pipes did not split cells
    assert escape("a" * 500).endswith("…") and len(escape("a" * 500)) == 160


def test_long_runs_stay_short():
    per_task = {f"task-{i}": {"episodes": 3, "successes": i % 3} for i in range(200)}
    text = run_markdown(report_from_dict({"aggregate": {}, "per_task": per_task}, "r"),
                        {f"task-{i}": ["x" * 1000] for i in range(200)})
    assert text.count("\n| task-") == MAX_ROWS and "more failing or flaky tasks" in text
    assert len(text) < 4_000
    comparison = compare_tasks({f"t{i}": TaskCounts(2, 2) for i in range(50)},
                               {f"t{i}": TaskCounts(2, 0) for i in range(50)})
    text = comparison_markdown(comparison, {})
    assert "more regressed tasks" in text and len(text) < 4_000
    assert "significantly worse (paired sign-flip" in text


def test_runs_that_must_not_be_pooled_get_their_own_headline():
    report = report_from_dict({
        "aggregate": {}, "per_task": {"t": {"episodes": 2, "successes": 1}},
        "groups": [{"key": ["model-a", "", "", ""], "aggregate": {},
                    "per_task": {"t": {"episodes": 1, "successes": 1}}},
                   {"key": ["model-b", "", "", ""], "aggregate": {},
                    "per_task": {"t": {"episodes": 1, "successes": 0}}}]}, "r")
    text = run_markdown(report, {})
    assert "- model\\-a / \\- / \\- / \\-: 1 of 1 run passed" not in text  # labels not over-escaped
    assert "- model-a / - / - / -: 1 of 1 run passed; tasks: 1 pass, 0 flaky, 0 fail" in text
    assert "- model-b / - / - / -: 0 of 1 run passed; tasks: 0 pass, 0 flaky, 1 fail" in text
