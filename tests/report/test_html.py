"""The page without a browser: one embedded JSON that no string can break out of,
autoescaped templates, the --trace-url check, and the --html options of the commands."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.errors import InputError
from ek_otel.report.html import render_comparison, render_run
from ek_otel.report.page_data import validate_trace_url
from ek_otel.report.compare import compare_tasks
from ek_otel.report.model import report_from_dict

from .conftest import GOLD, PRICING, TRACES

HOSTILE = ["</script><script>window.__pwned=1</script>", "<!--", "<!-- <script>", "]]>",
           "</SCRIPT >", "\u2028\u2029", "'\"&amp;<b>", "<img src=x onerror=alert(1)>"]


class _Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.current, self.tags = [], None, []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self.current = [dict(attrs), ""]

    def handle_data(self, data):
        if self.current is not None:
            self.current[1] += data

    def handle_endtag(self, tag):
        if tag == "script" and self.current is not None:
            self.scripts.append(tuple(self.current))
            self.current = None


def _hostile_report():
    episode = {"task_id": HOSTILE[0], "trace_id": "ab" * 16, "explanation": " ".join(HOSTILE),
               "calls": [{"got": {"tool": HOSTILE[0], "args": {h: h for h in HOSTILE}},
                          "gold": None, "turn": None, "exact": False, "arg_diffs": []}]}
    return {"aggregate": {"episodes": 1}, "per_task": {HOSTILE[0]: {
                "episodes": 1, "successes": 0, "slice": HOSTILE[1]}},
            "per_slice": {HOSTILE[1]: {"episodes": 1}}, "episodes": [episode],
            "unmatched": [{"trace_id": "cd" * 16, "task_id": HOSTILE[-1], "reason": HOSTILE[2]}],
            "bad_input": {"total": 1, "counts": {HOSTILE[0]: 1}, "cases": [HOSTILE[-1]]},
            "provenance": {"gold_sha256": HOSTILE[0], "evaluator_version": HOSTILE[1],
                           "matcher": {HOSTILE[0]: HOSTILE[-1]}}}


def test_hostile_strings_never_make_markup_and_the_data_round_trips():
    data = _hostile_report()
    page = render_run(report_from_dict(data, HOSTILE[0]), gold_path=HOSTILE[-1])
    parser = _Scripts()
    parser.feed(page)
    # Exactly two scripts: the data and ours; no element came from the data.
    assert [attrs.get("type") for attrs, _ in parser.scripts] == ["application/json", None]
    assert not any(tag == "img" for tag, _ in parser.tags)
    assert "window.__pwned=1</script>" not in page and "<!--" not in page
    embedded = json.loads(parser.scripts[0][1])
    assert embedded["episodes"][0]["explanation"] == " ".join(HOSTILE)
    assert embedded["episodes"][0]["calls"][0]["got"]["args"] == {h: h for h in HOSTILE}
    assert embedded["tasks"][0]["task_id"] == HOSTILE[0]


def test_comparison_page_escapes_report_names():
    r = report_from_dict({"aggregate": {}, "per_task": {}}, HOSTILE[0])
    page = render_comparison(compare_tasks({}, {}, base_label=HOSTILE[0]), r, r)
    assert "<script>window.__pwned" not in page


@pytest.mark.parametrize("template", [
    "https://jaeger.example/trace/{trace_id}", "http://127.0.0.1:16686/trace/{trace_id}?x=1"])
def test_good_trace_url_templates(template):
    assert validate_trace_url(template) == template


@pytest.mark.parametrize("template", [
    "javascript:alert({trace_id})", "data:text/html,{trace_id}", "//host/{trace_id}",
    "https://host/trace", "https://host/{trace_id}/{trace_id}", "https://host/{span_id}{trace_id}",
    "file:///etc/{trace_id}", "https:///{trace_id}"])
def test_bad_trace_url_templates_are_refused(template):
    with pytest.raises(InputError, match="--trace-url"):
        validate_trace_url(template)


def test_score_html_writes_one_self_contained_page(tmp_path):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--pricing",
                                      str(PRICING), "--html", str(out), "--trace-url",
                                      "https://jaeger.example/trace/{trace_id}"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    # Self-contained: no external resource of any kind.
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=""", page)
    assert "http-equiv=\"Content-Security-Policy\"" in page and "default-src 'none'" in page
    assert page.count('type="application/json"') == 1


def test_score_html_bad_options_fail_before_scoring(tmp_path):
    runner = CliRunner()
    bad_url = runner.invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--html",
                                  str(tmp_path / "r.html"), "--trace-url", "ftp://x/{trace_id}"])
    assert bad_url.exit_code == 2 and "--trace-url must be" in bad_url.output
    unwritable = runner.invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--html",
                                     str(tmp_path / "no" / "r.html")])
    assert unwritable.exit_code == 2
    assert "cannot write the HTML report" in unwritable.output and "r.html" in unwritable.output


def test_the_bad_input_summary_is_in_the_header(tmp_path):
    dump = tmp_path / "dump.jsonl"
    dump.write_text(TRACES.read_text(encoding="utf-8") + "{not json <script>\n", encoding="utf-8")
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["score", str(dump), "--gold", str(GOLD), "--html", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    header = page.split('id="bad-input">', 1)[1].split("</dd>", 1)[0]
    assert header == "1 record skipped or repaired"
    table = page.split('id="bad-input-table"', 1)[1].split("</table>", 1)[0]
    assert re.search(r"<td class=\"num\">1</td>", table)
    assert re.search(r"<li class=\"mono\">[^<]*dump\.jsonl:\d+: invalid JSON", page)
    assert "{not json <script>" not in page


def test_runs_not_pooled_on_one_shared_task_are_never_significant():
    # Issue 16, item 2: the page of a report whose runs must not be pooled said
    # "significantly better" on one shared task tried once.
    report = report_from_dict({
        "aggregate": {"episodes": 2}, "per_task": {"t": {"episodes": 2, "successes": 1}},
        "groups": [{"key": ["a", "", "", ""], "aggregate": {"episodes": 1},
                    "per_task": {"t": {"episodes": 1, "successes": 0}}},
                   {"key": ["b", "", "", ""], "aggregate": {"episodes": 1},
                    "per_task": {"t": {"episodes": 1, "successes": 1}}}]}, "r.json")
    page = render_run(report, generated_at="now")
    assert 'data-test="too few tasks"' in page
    shown = re.sub(r"<script.*?</script>", "", page, flags=re.S)  # the page's text, not its data
    assert "significantly" not in shown
    # each run's verdict counts, shown once: in the list under the headline
    runs = shown.split('id="run-headlines"', 1)[1].split("</ul>", 1)[0]
    assert runs.count("1 run scored") == 2  # the groups of this report count no successes
    assert "tasks: 0 pass, 0 flaky, 1 fail" in runs and "tasks: 1 pass, 0 flaky, 0 fail" in runs
    assert "runs passed; tasks by verdict" not in page  # not again as a row of the totals by run


def test_the_run_page_shows_the_headline_and_why_a_figure_has_no_interval():
    report = report_from_dict({"aggregate": {"episodes": 3, "f1": 0.5, "success_rate": 2 / 3,
                                             "exact_match": 2 / 3},
                               "per_task": {"t": {"episodes": 3, "successes": 2,
                                                  "exact_match": 2 / 3}}}, "r.json")
    page = render_run(report, generated_at="now")
    shown = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    headline = shown.split('id="headline"', 1)[1].split("</p>", 1)[0]
    assert "3 runs scored" in headline and ">1</span> flaky" in headline
    # the verdict counts are shown once, under the headline (not again in the totals)
    assert shown.count("flaky,") == 1 and shown.count('data-verdict-count="flaky"') == 1
    assert "no interval for a ratio of weighted call counts (only success and exact match" in page
    assert "(= exact match)" in page and 'data-metric="exact_match"' not in page
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>',
                                page, re.S).group(1))
    assert data["tasks"][0]["verdict"] == "flaky"
def test_undefined_corpus_figures_read_n_a_with_why_and_no_interval():
    from ek_otel.core.episode import Episode, TaskSpec
    from ek_otel import evaluate
    from ek_otel.report.html import render_run
    from ek_otel.report.model import report_from_dict

    data = evaluate([Episode("t"), Episode("t")], [TaskSpec("t")], k=1).to_dict()
    assert data["aggregate"]["f1"] is None
    page = render_run(report_from_dict(data, "r"))
    for metric, why in (("precision", "no call was made"), ("recall", "no call was expected"),
                        ("f1", "no call expected, none made")):
        start = page.index(f'<div class="kpi" data-metric="{metric}">')
        box = page[start:page.index("</div>\n", page.index('class="value"', start)) + 200]
        assert '<div class="value">n/a</div>' in box and f"undefined: {why}" in box, box
        assert "95% CI" not in box.split("</span>")[0]
