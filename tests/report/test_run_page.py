"""The run page in a real headless Chromium: the headline and the failure breakdowns, rows
that filter the runs, the filters in the URL, CSV built in the page, transcripts, hostile
strings in transcripts, and a layout that holds from 800 to 1,920 px."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli

from .conftest import GOLD, PRICING, TRACES



def _number(cell: str):
    """A CSV cell as the JSON value it stands for: an empty cell is null."""
    return None if cell == "" else float(cell)

def _score(traces, tmp_path, *extra):
    html, out = tmp_path / "report.html", tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["score", str(traces), "--gold", str(GOLD), "--json", str(out),
                                      "--html", str(html), "--pricing", str(PRICING), *extra],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return html, json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return _score(TRACES, tmp_path_factory.mktemp("run-page"), "--transcripts")


def _shown_episodes(page):
    return [int(x) - 1 for x in page.locator("#episodes > table > tbody > tr[data-row] > td:nth-child(2)").all_inner_texts()]


def test_the_page_opens_on_the_headline_and_the_failure_breakdown(example, open_page):
    html, data = example
    page = open_page(html)
    # The first card is the verdict: runs passed, tasks by verdict (here all four are flaky).
    first = page.locator("main > section").first
    assert first.get_attribute("id") == "verdict"
    agg = data["aggregate"]
    assert page.locator("#headline-runs").inner_text() == (
        f"{agg['successes']} of {agg['episodes']} runs passed ({100 * agg['successes'] / agg['episodes']:.1f}%)")
    counts = {v: page.locator(f'[data-verdict-count="{v}"]').inner_text() for v in ("pass", "flaky", "fail")}
    assert counts == {"pass": "0", "flaky": "4", "fail": "0"}
    assert page.locator("#headline-verdict").inner_text() == "some tasks are flaky"
    # By kind: three wrong values (three runs), one spurious call.
    rows = page.locator("#by-kind tbody tr[data-row]")
    assert [r.locator("td").nth(0).inner_text() for r in rows.all()] == ["wrong value", "spurious call"]
    assert [r.locator("td").nth(1).inner_text() for r in rows.all()] == ["3", "1"]
    assert sorted(page.locator("#by-arg tbody tr[data-row] td:first-child").all_inner_texts()) == [
        "book_flight.flight", "get_weather.city", "refund.amount"]
    # The success rate, F1 and dollars per solved task lead the figures; provenance is folded.
    metrics = page.locator("#totals .kpis.primary .kpi").evaluate_all("els => els.map(e => e.dataset.metric)")
    assert metrics[:3] == ["success_rate", "f1", "dollars_per_success"]
    assert page.locator("#header").get_attribute("open") is None
    assert page.errors == []


def test_a_breakdown_row_lists_its_runs_and_the_url_reopens_the_view(example, open_page):
    html, data = example
    page = open_page(html)
    page.locator("#by-tool tbody tr[data-row]", has_text="get_weather").click()
    expected = [i for i, e in enumerate(data["episodes"]) if not e["success"]
                and any(c["got"] and c["got"]["tool"] == "get_weather" or c["gold"] and c["gold"]["tool"] == "get_weather"
                        for c in e["calls"] if not c["exact"])]
    assert _shown_episodes(page) == expected and len(expected) == 2
    page.select_option("#ep-kind", "spurious_call")
    shown = _shown_episodes(page)
    assert [data["episodes"][i]["task_id"] for i in shown] == ["joke-no-tool"]
    page.locator(f'#episodes tr[data-row="ep:{shown[0]}"]').click()
    url = page.url
    assert "tool=get_weather" in url and "kind=spurious_call" in url and f"ep={shown[0]}" in url
    # The same link in a fresh page: the same filters, the same run open.
    again = page.context.new_page()
    again.goto(url)
    again.wait_for_selector("html[data-ready]")
    assert _shown_episodes(again) == shown
    assert again.locator("#ep-kind").input_value() == "spurious_call"
    assert again.locator("#ep-tool").input_value() == "get_weather"
    assert again.locator("#episodes tr.detail .episode").count() == 1
    # A text search over explanations.
    page.click("#ep-clear")
    page.fill("#ep-q", "expected 35.5")
    assert [data["episodes"][i]["task_id"] for i in _shown_episodes(page)] == ["refund-order-1042"]


def _download(page, button):
    with page.expect_download() as info:
        page.click(button)
    path = info.value.path()
    return list(csv.DictReader(io.StringIO(open(path, encoding="utf-8").read())))


def test_the_csv_rows_equal_the_json_report(example, open_page):
    html, data = example
    page = open_page(html)
    rows = _download(page, "#csv-episodes")
    assert len(rows) == len(data["episodes"])
    for row, episode in zip(rows, data["episodes"]):
        assert row["task_id"] == episode["task_id"] and row["trace_id"] == episode["trace_id"]
        assert row["success"] == str(episode["success"]).lower()
        assert _number(row["f1"]) == episode["f1"]  # null (undefined) is an empty cell
        assert _number(row["dollars"]) == episode["dollars"]
        assert int(row["input_tokens"]) == episode["cost"]["input_tokens"]
        assert row["explanation"] == episode["explanation"]
    tasks = _download(page, "#csv-tasks")
    assert [t["task_id"] for t in tasks] == list(data["per_task"])
    for t in tasks:
        figures = data["per_task"][t["task_id"]]
        for key in ("episodes", "successes"):
            assert int(t[key]) == figures[key]
        for key in ("success_rate", "f1", "precision", "recall", "dollars", "pass_hat_k"):
            assert _number(t[key]) == figures[key], key
        assert t["verdict"] == "flaky"
    # Filtered: the CSV holds the rows shown.
    page.select_option("#ep-result", "fail")
    assert len(_download(page, "#csv-episodes")) == sum(not e["success"] for e in data["episodes"])
    assert all(url.startswith(("file://", "blob:")) for url in page.requests), page.requests


def test_a_transcript_shows_each_turn_with_the_tool_output(example, open_page):
    html, data = example
    wrong = next(i for i, e in enumerate(data["episodes"])
                 if e["task_id"] == "refund-order-1042" and not e["success"])
    page = open_page(html)
    page.locator(f'#episodes tr[data-row="ep:{wrong}"]').click()
    transcript = page.locator(".episode .transcript")
    kinds = transcript.locator("> li").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert kinds == [e["kind"] for e in data["episodes"][wrong]["transcript"]]
    assert kinds[0] == "user" and kinds[-1] == "answer" and kinds.count("tool") == 2
    assert "refund the $35.50" in transcript.locator("li.user").inner_text()
    refund = transcript.locator("li.tool", has_text="refund").last
    assert '"refunded": 355' in refund.inner_text()  # the tool's output
    span = data["episodes"][wrong]["transcript"][-2]
    assert span["span_id"] in transcript.locator("li.model").last.inner_text()


PAYLOAD = "<img src=x onerror=window.__pwned=1>"


def test_hostile_strings_in_transcripts_show_as_text(tmp_path, open_page):
    # Script in the user's message, a tool result and the final answer, through the real
    # `ek-otel score --transcripts` (the payload holds no quote: the JSON strings stay valid).
    text = TRACES.read_text(encoding="utf-8")
    for original in ("What's the weather in Paris right now, in celsius?", "Refunded $355.00.",
                     r'{\"refunded\": 355.0}'):
        assert original in text, original
    text = (text.replace("What's the weather in Paris right now, in celsius?", PAYLOAD + " </script><!--")
            .replace("Refunded $355.00.", "</script><script>window.__pwned=2</script>")
            .replace(r'{\"refunded\": 355.0}', r'{\"refunded\": \"' + PAYLOAD + r'\"}'))
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(text, encoding="utf-8")
    html, data = _score(hostile, tmp_path, "--transcripts")
    page = open_page(html)
    for i, episode in enumerate(data["episodes"]):
        if episode["task_id"] in ("weather-paris", "refund-order-1042"):
            page.locator(f'#episodes tr[data-row="ep:{i}"]').click()
    shown = page.locator(".transcript").all_inner_texts()
    joined = "\n".join(shown)
    assert PAYLOAD + " </script><!--" in joined
    assert "</script><script>window.__pwned=2</script>" in joined
    assert f'"refunded": "{PAYLOAD}"' in joined
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img, main script").count() == 0
    assert page.errors == [] and page.dialogs == []


@pytest.mark.parametrize("width", [800, 1400, 1920])
def test_no_element_is_wider_than_the_viewport(example, open_page, width):
    html, data = example
    page = open_page(html, viewport={"width": width, "height": 900})
    wrong = next(i for i, e in enumerate(data["episodes"]) if not e["success"])
    page.locator(f'#episodes tr[data-row="ep:{wrong}"]').click()
    page.click('#tasks tr[data-row="task:flight-booking"]')
    page.click("#header summary")
    wide = page.evaluate("""() => { const w = document.documentElement.clientWidth; const out = [];
      for (const e of document.querySelectorAll('body *')) {
        const r = e.getBoundingClientRect(); if (r.right > w + 0.5 || r.left < -0.5) out.push(e.tagName + '.' + e.className); }
      return [w, document.documentElement.scrollWidth, out]; }""")
    assert wide == [width, width, []]


def test_a_slice_row_lists_its_runs(example, open_page):
    html, data = example
    page = open_page(html)
    page.locator('#slices tr[data-row="payments"]').click()
    assert [data["episodes"][i]["task_id"] for i in _shown_episodes(page)] == ["refund-order-1042"] * 2
    assert "slice=payments" in page.url


def test_the_report_verdict_is_read_and_undefined_figures_read_n_a(tmp_path, open_page):
    from ek_otel.report.html import write_run_page

    # A report of the issues on verdicts and undefined figures: per_task[t].verdict, null
    # precision/recall/F1 (no call expected, none made), incomplete cost.
    data = {"aggregate": {"episodes": 3, "successes": 1, "precision": None, "recall": None, "f1": None,
                          "success_rate": 1 / 3, "dollars": None,
                          "cost": {"input_tokens": 5, "complete": False}},
            "per_task": {"a": {"episodes": 2, "successes": 1, "verdict": "fail", "f1": None, "precision": None},
                         "b": {"episodes": 1, "successes": 0, "f1": 0.0}},
            "episodes": [{"task_id": "a", "trace_id": "ab" * 16, "success": True, "f1": None, "calls": []},
                         {"task_id": "a", "trace_id": "cd" * 16, "success": False, "f1": None, "calls": [],
                          "explanation": "x"},
                         {"task_id": "b", "trace_id": "ef" * 16, "success": False, "f1": 0.0, "calls": [
                             {"got": None, "gold": {"tool": "t", "args": {}}, "turn": None}]}]}
    path = tmp_path / "r.html"
    write_run_page(data, str(path), source="r.json")
    page = open_page(path)
    assert page.locator('[data-verdict-count="fail"]').inner_text() == "2"  # a: the report's word
    assert page.locator('#tasks tr[data-row="task:a"] .pill').inner_text() == "fail"
    assert page.locator('.kpi[data-metric="f1"] .value').inner_text() == "n/a"
    assert page.locator('.kpi[data-metric="dollars"] .ci').inner_text() == "cost incomplete"
    f1_cell = page.locator('#tasks tr[data-row="task:a"] td').nth(8).inner_text()
    assert f1_cell == "n/a"
    kinds = page.locator("#by-kind tbody tr[data-row] td:first-child").all_inner_texts()
    assert sorted(kinds) == ["missing call", "other"]
    assert page.errors == []


def test_runs_of_two_models_each_get_a_headline_and_the_breakdown_follows_the_run(tmp_path, open_page):
    from .conftest import two_model_traces

    html, data = _score(two_model_traces(tmp_path), tmp_path)
    assert len(data["groups"]) == 2
    page = open_page(html, viewport={"width": 800, "height": 900})
    lines = page.locator("#run-headlines li").all_inner_texts()
    assert "gpt-4o-mini" in lines[0] and "8 of 9 runs passed" in lines[0]
    assert "gpt-4o-large" in lines[1] and "1 of 9 runs passed" in lines[1]

    def kinds():
        return dict(zip(page.locator("#by-kind tbody tr[data-row] td:nth-child(1)").all_inner_texts(),
                        page.locator("#by-kind tbody tr[data-row] td:nth-child(2)").all_inner_texts()))
    assert kinds() == {"spurious call": "1"}  # the first run: only the joke's spurious call
    page.select_option("#run-filter", "1")
    assert kinds() == {"wrong value": "7", "spurious call": "1"}
    assert "gpt-4o-large" in page.locator("#failures h2").inner_text()
    assert len(_shown_episodes(page)) == 9 and "run=1" in page.url
    assert page.evaluate("document.documentElement.scrollWidth") == 800
