"""The pages in a real headless Chromium: figures, sorting, expanding, filtering, paging,
hostile strings, and a screenshot that is not blank."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from ek_otel.cli import cli
from ek_otel.report.model import load_report
from ek_otel.report.stats import task_intervals

from .conftest import GOLD, PRICING, TRACES

TRACE_URL = "https://jaeger.example/trace/{trace_id}"


def _score(traces, tmp_path, *extra):
    html, out = tmp_path / "report.html", tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["score", str(traces), "--gold", str(GOLD), "--json",
                                      str(out), "--html", str(html), *extra],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return html, json.loads(out.read_text(encoding="utf-8")), out


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return _score(TRACES, tmp_path_factory.mktemp("page"), "--pricing", str(PRICING),
                  "--trace-url", TRACE_URL)


def _kpi(page, metric):
    box = page.locator(f'.kpi[data-metric="{metric}"]')
    ci = box.locator(".ci")
    return (box.locator(".value").inner_text(), ci.get_attribute("data-ci-low"),
            ci.get_attribute("data-ci-high"))


def test_the_figures_of_score_json_are_in_the_page(example, open_page):
    html, data, json_path = example
    page = open_page(html)
    agg = data["aggregate"]
    intervals = task_intervals([t.counts for t in load_report(str(json_path)).tasks])
    value, low, high = _kpi(page, "success_rate")
    assert value == f"{agg['success_rate']:.3f}"
    iv = intervals["success_rate"]
    assert (low, high) == (f"{iv.low:.3f}", f"{iv.high:.3f}")
    assert float(low) <= agg["success_rate"] <= float(high)
    # Exact match is the same figure as success on every task here: shown once.
    assert agg["exact_match"] == agg["success_rate"]
    assert page.locator('.kpi[data-metric="exact_match"]').count() == 0
    assert "(= exact match)" in page.locator('.kpi[data-metric="success_rate"] .label').inner_text()
    assert page.locator('#tasks th[data-key="exact_match"]').count() == 0
    assert page.locator('#tasks th[data-key="success_rate"]').inner_text().startswith("success (= exact)")
    # Figures without a valid interval on 4 tasks say so instead of showing one.
    for metric in ("precision", "recall", "f1", "mean_pass_at_k", "mean_pass_hat_k"):
        value, low, high = _kpi(page, metric)
        assert value == f"{agg[metric]:.3f}", metric
        assert low is None and high is None, metric
        assert intervals[metric].reason in page.locator(f'.kpi[data-metric="{metric}"] .ci').inner_text()
    assert data["headline"]["text"] == "5 of 9 runs passed; tasks: 0 pass, 4 flaky, 0 fail"
    shown = " ".join(page.locator("#headline").inner_text().split())
    assert "5 of 9 runs passed" in shown and "tasks: 0 pass, 4 flaky, 0 fail" in shown
    assert _kpi(page, "dollars")[0] == f"${agg['dollars']:.3g}"
    assert _kpi(page, "dollars_per_success")[0] == f"${agg['dollars_per_success']:.3g}"
    assert page.locator("#header").get_attribute("open") is None  # provenance: folded away
    page.click("#header summary")
    assert page.locator("#gold-sha256").inner_text() == data["provenance"]["gold_sha256"]
    assert page.locator('[data-count="episodes"]').inner_text() == str(agg["episodes"])
    assert page.locator('[data-count="unmatched"]').inner_text() == "1"
    assert page.locator('[data-tokens="input"]').inner_text() == f"{agg['cost']['input_tokens']:,}"
    assert "level=call" in page.locator("#matcher").inner_text()
    assert page.errors == [] and page.dialogs == []
    assert all(url.startswith("file://") for url in page.requests), page.requests


def _open_failing_episode(page, data, task_id):
    """Click the task, then its failing episode; the episode's data."""
    page.click(f'tr[data-row="task:{task_id}"]')
    wrong = next(i for i, e in enumerate(data["episodes"])
                 if e["task_id"] == task_id and not e["success"])
    page.click(f'tr[data-row="ep:{wrong}"]')
    return data["episodes"][wrong]


def test_the_refund_ten_times_too_large_shows_its_argument_difference(example, open_page):
    html, data, _ = example
    page = open_page(html)
    episode = _open_failing_episode(page, data, "refund-order-1042")
    detail = page.locator(f'.episode[data-trace="{episode["trace_id"]}"]')
    assert "expected 35.5, got 355.0" in detail.locator(".explanation").inner_text()
    row = detail.locator('.call[data-status="differs"] tr.diff[data-arg="amount"]')
    assert row.locator("td.got").inner_text() == "355"
    assert row.locator("td.expected").inner_text() == "35.5"
    assert row.locator("td.weight").inner_text() == "20"
    assert row.locator("td.kind").inner_text() == "wrong value"
    # The matched lookup beside it, the dollars, and the trace link from --trace-url.
    assert detail.locator('.call[data-status="match"] .tool').inner_text() == "lookup_order"
    assert detail.locator('[data-field="dollars"]').inner_text() == f"${episode['dollars']:.3g}"
    link = detail.locator("a", has_text=episode["trace_id"]).first
    assert link.get_attribute("href") == TRACE_URL.format(trace_id=episode["trace_id"])


def test_the_multi_turn_task_is_shown_turn_by_turn(example, open_page):
    html, data, _ = example
    page = open_page(html)
    _open_failing_episode(page, data, "flight-booking")
    calls = page.locator(".episode .calls")
    assert calls.locator("h4").all_inner_texts() == ["TURN 1", "TURN 2"]
    assert calls.locator('.call[data-status="differs"] .tool').inner_text() == "book_flight"
    # each user turn's own verdict, as the JSON report gives it: the second turn failed
    episode = next(e for e in data["episodes"]
                   if e["task_id"] == "flight-booking" and not e["success"])
    verdicts = page.locator(".episode ol.turns li")
    assert [v.get_attribute("data-status") for v in verdicts.all()] == [
        "pass" if t["success"] else "fail" for t in episode["turns"]] == ["pass", "fail"]
    assert episode["turns"][1]["explanation"] in verdicts.nth(1).inner_text()
    assert "turn 2" in verdicts.nth(1).inner_text()


def _column(page, root, index):
    return page.locator(f"{root} > table > tbody > tr[data-row] > td:nth-child({index})").all_inner_texts()


def test_sorting_by_clicking_a_header(example, open_page):
    html, data, _ = example
    page = open_page(html)
    header = page.locator('#tasks th[data-key="f1"] button')
    header.click()  # numbers sort high to low first
    assert page.locator('#tasks th[data-key="f1"]').get_attribute("aria-sort") == "descending"
    f1 = [float(x.split()[-1]) for x in _column(page, "#tasks", 9)]
    assert f1 == sorted(f1, reverse=True) and len(f1) == len(data["per_task"])
    header.click()
    f1_up = [float(x.split()[-1]) for x in _column(page, "#tasks", 9)]
    assert f1_up == sorted(f1_up)
    page.locator('#tasks th[data-key="task_id"] button').click()
    ids = _column(page, "#tasks", 2)
    assert ids == sorted(data["per_task"])


def test_filtering_by_slice_and_status(example, open_page):
    html, _, _ = example
    page = open_page(html)
    page.select_option("#slice-filter", "payments")
    assert _column(page, "#tasks", 2) == ["refund-order-1042"]
    page.select_option("#slice-filter", "")
    page.select_option("#status-filter", "pass")
    assert page.locator("#tasks td.empty").inner_text() == "no task matches the filters"
    page.select_option("#status-filter", "fail")  # no trial succeeded: none here
    assert page.locator("#tasks td.empty").inner_text() == "no task matches the filters"
    page.select_option("#status-filter", "flaky")  # some trials succeeded: all four
    assert len(_column(page, "#tasks", 2)) == 4
    page.select_option("#status-filter", "not-pass")
    assert len(_column(page, "#tasks", 2)) == 4
    assert _column(page, "#tasks", 3) == ["flaky"] * 4  # the verdict column
    page.fill("#task-search", "joke")
    assert _column(page, "#tasks", 2) == ["joke-no-tool"]


def test_screenshot_is_not_blank(example, open_page, tmp_path):
    html, _, _ = example
    page = open_page(html)
    image = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert image.size[1] > 900 and len(colours) > 200
    # Not one colour with a few specks: the most common colour covers well under 90%.
    assert max(n for n, _ in colours) < 0.9 * image.size[0] * image.size[1]


def test_paging_a_long_task_table(tmp_path, open_page):
    per_task = {f"task-{i:03d}": {"episodes": 1, "successes": i % 2, "exact_match": i % 2,
                                  "tp": i % 2, "fp": 1 - i % 2, "fn": 1 - i % 2,
                                  "f1": float(i % 2)} for i in range(120)}
    data = {"aggregate": {"episodes": 120}, "per_task": per_task, "episodes": []}
    from ek_otel.report.html import write_run_page

    write_run_page(data, str(tmp_path / "p.html"), source="many")
    page = open_page(tmp_path / "p.html")
    assert len(_column(page, "#tasks", 2)) == 50
    assert page.locator("#tasks .pager span").inner_text() == "1\u201350 of 120"
    page.locator("#tasks .pager button", has_text="next").click()
    assert _column(page, "#tasks", 2)[0] == "task-050"
    page.locator("#tasks .pager button", has_text="next").click()
    assert len(_column(page, "#tasks", 2)) == 20


PAYLOADS = {
    "tool": "<script>window.__pwned=1;alert(1)</script>",
    "value": "</script><img src=x onerror=window.__pwned=2;alert(2)>",
    "task": "<svg onload=window.__pwned=3>",
}


def _hostile(value):
    if isinstance(value, str):
        return (value.replace("get_weather", PAYLOADS["tool"]).replace("Lyon", PAYLOADS["value"])
                .replace("weather-tokyo", PAYLOADS["task"]))
    if isinstance(value, list):
        return [_hostile(v) for v in value]
    if isinstance(value, dict):
        return {k: _hostile(v) for k, v in value.items()}
    return value


def test_hostile_strings_in_traces_show_as_text_and_run_nothing(tmp_path, open_page):
    # The example traces, with script in a tool name, an argument value and a task id,
    # through the real `ek-otel score` (the payloads hold no quote, so the JSON inside
    # attribute strings stays valid).
    lines = TRACES.read_text(encoding="utf-8").splitlines()
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text("\n".join(json.dumps(_hostile(json.loads(line))) if line.strip() else line
                                 for line in lines) + "\n", encoding="utf-8")
    html, data, _ = _score(hostile, tmp_path, "--trace-url", TRACE_URL)
    page = open_page(html)
    page.click('tr[data-row="task:weather-paris"]')
    for i, episode in enumerate(data["episodes"]):
        if episode["task_id"] == "weather-paris":
            page.click(f'tr[data-row="ep:{i}"]')
    tools = page.locator(".call .tool").all_inner_texts()
    assert PAYLOADS["tool"] in tools
    got = page.locator(".call td.got").all_inner_texts()
    assert json.dumps(PAYLOADS["value"]) in got
    assert PAYLOADS["task"] in page.locator("#unmatched").inner_text()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == [] and page.errors == []
    assert page.locator("main img, main svg").count() == 0


def test_compare_page_lists_regressions_first(base_and_worse, tmp_path, open_page):
    base, worse = base_and_worse
    out = tmp_path / "compare.html"
    result = CliRunner().invoke(cli, ["compare", str(base), str(worse), "--html", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    page = open_page(out)
    statuses = _column(page, "#comparison", 3)
    assert statuses[:3] == ["regressed"] * 3 and statuses[3] == "unchanged"
    assert page.locator("[data-regressed]").inner_text() == "3"
    # 4 shared tasks: no result could be significant, and the page says so.
    verdict = page.locator(".verdict")
    assert verdict.get_attribute("data-test") == "too few tasks"
    assert "significant" not in verdict.inner_text().replace("be significant", "")
    assert "at least 6" in verdict.inner_text()
    assert "tasks at" in page.locator("#power").inner_text()
    assert page.errors == []


def test_runs_of_two_models_are_columns_apart_and_compared_on_their_tasks(tmp_path, open_page):
    from .conftest import two_model_traces

    # The worse run is another model's: other trace ids, another model name.
    html, data, _ = _score(two_model_traces(tmp_path), tmp_path)
    assert len(data["groups"]) == 2
    page = open_page(html)
    heads = page.locator("#groups th.group-col").all_inner_texts()
    assert heads[0].startswith("gpt-4o-mini") and heads[1].startswith("gpt-4o-large")
    assert "against" in page.locator("#groups h3").first.inner_text()
    assert page.locator("#groups [data-regressed]").inner_text() == "3"
    statuses = _column(page, "#comparison-0", 2)
    assert statuses[:3] == ["regressed"] * 3
    # One run at a time in the tables (the first by default), each episode naming its run.
    def refund_runs():
        page.click('tr[data-row="task:refund-order-1042"]')
        cells = page.locator("#tasks tr.detail tbody tr[data-row] > td:nth-child(5)").all_inner_texts()
        page.click('tr[data-row="task:refund-order-1042"]')
        return sorted(set(r.split("-2024")[0] for r in cells))

    def refund_success():
        return page.locator('#tasks tr[data-row="task:refund-order-1042"] > td:nth-child(6)').inner_text()

    assert refund_runs() == ["gpt-4o-mini"] and refund_success() == "1.000"
    page.select_option("#run-filter", "1")
    assert refund_runs() == ["gpt-4o-large"] and refund_success() == "0.000"
    assert page.locator("#run-shown").inner_text().startswith("gpt-4o-large")
    page.select_option("#run-filter", "")
    assert refund_runs() == ["gpt-4o-large", "gpt-4o-mini"] and refund_success() == "0.500"
    # The pooled figures are there for the record, folded away.
    assert page.locator("#pooled").get_attribute("open") is None


def test_a_huge_argument_value_is_cut_for_display(tmp_path, open_page):
    from ek_otel.report.html import write_run_page

    huge = "x" * 10_000
    data = {"aggregate": {"episodes": 1}, "per_task": {"t": {"episodes": 1, "successes": 0}},
            "episodes": [{"task_id": "t", "trace_id": "ab" * 16, "success": False,
                          "calls": [{"got": {"tool": "f", "args": {"body": huge}}, "gold": None,
                                     "turn": None, "exact": False, "arg_diffs": []}]}]}
    write_run_page(data, str(tmp_path / "p.html"), source="huge")
    page = open_page(tmp_path / "p.html")
    page.click('tr[data-row="task:t"]')
    page.click('tr[data-row="ep:0"]')
    shown = page.locator(".call td.got").inner_text()
    assert shown.startswith('"xxx') and shown.endswith("(6,002 more characters)")
    assert page.locator('.call[data-status="spurious"]').count() == 1


def test_each_run_column_shows_pass_k_with_its_own_k(tmp_path, open_page):
    from ek_otel.core.episode import Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
    from ek_otel.report.html import write_run_page
    from ek_otel.scoring import ScoreSettings, score_episodes

    # Model "two" tried each task twice, "three" three times: pooled, k would be 5 and both
    # columns would show "–"; each run gets the k of its own trials instead.
    tasks = {"t": TaskSpec("t", gold=[("search", {"q": "cats"})]),
             "u": TaskSpec("u", gold=[("search", {"q": "dogs"})])}
    good = {"t": [("search", {"q": "cats"})], "u": [("search", {"q": "dogs"})]}
    runs = [("two", "t", 1), ("two", "t", 0), ("two", "u", 1), ("two", "u", 1),
            ("three", "t", 1), ("three", "t", 1), ("three", "t", 1),
            ("three", "u", 1), ("three", "u", 1), ("three", "u", 0)]
    episodes = [Episode(task, Trajectory([Step(n, a) for n, a in good[task]] if ok else []),
                        run=RunProvenance(model=model),
                        provenance=Provenance(trace_id=f"{i + 1:032x}", root_span_id="b7ad6b7169203331"))
                for i, (model, task, ok) in enumerate(runs)]
    data = score_episodes(episodes, tasks, ScoreSettings()).to_dict()
    write_run_page(data, str(tmp_path / "p.html"), source="two-runs")
    page = open_page(tmp_path / "p.html")
    row = page.locator('#groups tr[data-metric="mean_pass_hat_k"]')
    assert row.locator("td").first.inner_text() == "pass^k"
    cells = row.locator("td[data-k]")
    assert [cells.nth(i).get_attribute("data-k") for i in range(2)] == ["2", "3"]
    assert [cells.nth(i).locator("strong").inner_text() for i in range(2)] == ["0.500", "0.500"]

    def task_pass_hat(task_id):
        head = page.locator('#tasks th[data-key="pass_hat_k"]').inner_text()
        index = page.eval_on_selector('#tasks th[data-key="pass_hat_k"]',
                                      "th => Array.from(th.parentNode.children).indexOf(th)")
        cell = page.locator(f'#tasks tr[data-row="task:{task_id}"] > td').nth(index)
        return head, cell.inner_text()

    assert task_pass_hat("t") == ("pass^2", "0.000") and task_pass_hat("u") == ("pass^2", "1.000")
    page.select_option("#run-filter", "1")
    assert task_pass_hat("t") == ("pass^3", "1.000") and task_pass_hat("u") == ("pass^3", "0.000")
    page.select_option("#run-filter", "")
    assert task_pass_hat("t")[0] == "pass^5"
    assert page.errors == []


def test_undefined_precision_recall_and_f1_read_n_a_in_the_page(example, open_page):
    html, data, _ = example
    page = open_page(html)
    row = page.locator('#tasks tr[data-row="task:joke-no-tool"] > td').all_inner_texts()
    heads = page.locator("#tasks > table > thead th").all_inner_texts()
    recall = [h.strip().lower() for h in heads].index("recall")
    assert data["per_task"]["joke-no-tool"]["recall"] is None
    assert row[recall].strip() == "n/a", (heads, row)
    slices = page.locator('#slices tr[data-row="irrelevance"] > td').all_inner_texts()
    assert "n/a" in [c.strip() for c in slices], slices
    page.click('tr[data-row="task:joke-no-tool"]')
    trials = page.locator("#tasks tr.detail tbody tr[data-row]")
    cells = [[c.strip() for c in trials.nth(i).locator("> td").all_inner_texts()]
             for i in range(trials.count())]
    right = [c for c in cells if "pass" in c]  # the trial that rightly made no call: F1 n/a
    assert len(right) == 1 and "n/a" in right[0], cells
    assert all("n/a" not in c for c in cells if "fail" in c), cells  # its F1 is 0.000
    assert page.errors == []
