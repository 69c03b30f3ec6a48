"""`ek-otel bfcl --html`: the leaderboard layout, error types and failing entries, in Chromium,
with hostile strings in the model name and in the model's output."""

from __future__ import annotations

import ast
import json

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from tests.outside import find_bfcl_real

MODEL = "<img src=x onerror=window.__pwned=1>"
CALL = "[calc(x='<script>window.__pwned=2</script>')]"
WRONG = "[foo(a='</script><svg onload=window.__pwned=3>')]"
LONG = "w" * 3000 + "<b>x</b>"
ENTRIES = ("multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_2")


def _multi_turn_results() -> list:
    """Results of the first three multi_turn_base entries: the real submission's lines
    (bfcl-real, beside the checkout), else function-calling results written here from
    bfcl_eval's possible answers (each call as ``{name: JSON arguments}``)."""
    real = find_bfcl_real()
    if real is not None:
        (path,) = real.glob("result/glyphh-ada-1.1/multi_turn/BFCL_v4_multi_turn_base_result.json")
        entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [e for e in entries if e["id"] in ENTRIES]
    from ek_otel.bfcl.data import BfclData

    results = []
    for entry in BfclData.locate().entries("multi_turn_base")[:len(ENTRIES)]:
        turns = []
        for turn in entry.ground_truth:
            calls = [ast.parse(text, mode="eval").body for text in turn]
            turns.append([[{call.func.id: json.dumps({k.arg: ast.literal_eval(k.value)
                                                      for k in call.keywords})}
                           for call in calls]] if calls else [])
        results.append({"id": entry.id, "result": turns})
    return results


@pytest.fixture(scope="module")
def bfcl_page(tmp_path_factory):
    pytest.importorskip("bfcl_eval", reason="BFCL data: pip install --no-deps bfcl-eval==2026.3.23")
    root = tmp_path_factory.mktemp("bfcl")
    results = root / "result" / MODEL / "non_live"
    results.mkdir(parents=True)
    with open(results / "BFCL_v4_irrelevance_result.json", "w", encoding="utf-8") as f:
        for i in range(10):
            text = "I cannot help with that." if i % 2 else CALL
            f.write(json.dumps({"id": f"irrelevance_{i}", "result": text}) + "\n")
    with open(results / "BFCL_v4_simple_python_result.json", "w", encoding="utf-8") as f:
        for i in range(10):
            f.write(json.dumps({"id": f"simple_python_{i}", "result": WRONG}) + "\n")
    html, out = root / "bfcl.html", root / "bfcl.json"
    result = CliRunner().invoke(cli, ["bfcl", str(root / "result"), "--html", str(html),
                                      "--json", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return html, json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def multi_turn_page(tmp_path_factory):
    """Multi-turn results (a real submission's when bfcl-real is here), one of them with a
    3,000-character value."""
    pytest.importorskip("bfcl_eval", reason="BFCL data: pip install --no-deps bfcl-eval==2026.3.23")
    root = tmp_path_factory.mktemp("bfcl-multi-turn")
    turns = root / "result" / "glyphh-ada-1.1" / "multi_turn"
    turns.mkdir(parents=True)
    lines = []
    for entry in _multi_turn_results():  # entry 2 with its first call's value far too long
        if entry["id"] == "multi_turn_base_2":
            entry["result"][0][0][0] = {"create_ticket": json.dumps({"title": LONG})}
        lines.append(json.dumps(entry))
    (turns / "BFCL_v4_multi_turn_base_result.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    html, out = root / "bfcl.html", root / "bfcl.json"
    result = CliRunner().invoke(cli, ["bfcl", str(root / "result"), "--html", str(html),
                                      "--json", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return html, json.loads(out.read_text(encoding="utf-8"))


def test_the_bfcl_page_lays_out_the_leaderboard_and_the_failures(bfcl_page, open_page):
    html, data = bfcl_page
    page = open_page(html)
    row = page.locator("#leaderboard tbody tr")
    assert row.locator("td").first.inner_text() == MODEL  # the hostile model name, as text
    heads = page.locator("#leaderboard thead th.group").all_inner_texts()
    assert heads == ["Non-Live", "Live", "Multi-Turn", "Agentic", "Hallucination"]
    # Irrelevance needs live_irrelevance too: N/A, as the official table shows it.
    assert row.locator('td[data-figure="Irrelevance"]').inner_text() == "N/A"
    assert row.locator('td[data-figure="Overall"]').inner_text() == "N/A"
    categories = page.locator("#categories tbody tr")
    assert categories.count() == 2
    irrelevance = page.locator('#categories tr[data-category="irrelevance"]')
    accuracy = data["categories"]["irrelevance"]["accuracy"]
    assert f"{accuracy * 100:.2f}%" in irrelevance.inner_text()
    errors = page.locator("#error-types").inner_text()
    assert "irrelevance_error:decoder_success" in errors
    assert "simple_function_checker:wrong_func_name" in errors
    failing = [e for e in data["entries"] if not e["valid"]]
    assert f"{len(failing)} failing entries" in page.locator("h2", has_text="failing").inner_text()
    page.select_option("#category-filter", "irrelevance")
    ids = page.locator("#failing tbody tr[data-row] td:nth-child(2)").all_inner_texts()
    assert sorted(ids) == sorted(e["id"] for e in failing if e["category"] == "irrelevance")
    page.locator("#failing tbody tr[data-row]").first.click()
    page.click("#failing tr.detail details.raw summary")
    detail = page.locator("#failing tr.detail").inner_text()
    assert "decode" in detail.lower() and CALL in detail
    page.select_option("#category-filter", "simple_python")
    page.locator("#failing tbody tr[data-row]").first.click()
    page.click("#failing tr.detail details.raw summary")
    assert WRONG in page.locator("#failing tr.detail").inner_text()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == [] and page.errors == []


def test_a_failing_multi_turn_entry_open_at_1400_px_keeps_the_page_1400_px_wide(multi_turn_page, open_page):
    html, data = multi_turn_page
    page = open_page(html, viewport={"width": 1400, "height": 900})
    # The leaderboard, Agentic and Hallucination included, without a horizontal scroll.
    assert page.evaluate("document.documentElement.scrollWidth") == 1400
    for figure in ("Agentic", "Relevance"):
        box = page.locator(f'#leaderboard td[data-figure="{figure}"]').bounding_box()
        assert box["x"] + box["width"] <= 1400
    page.select_option("#category-filter", "multi_turn_base")
    failing = [e for e in data["entries"] if e["category"] == "multi_turn_base" and not e["valid"]]
    assert failing
    page.locator('#failing tbody tr[data-row$="/multi_turn_base_2"]').click()
    detail = page.locator("#failing tr.detail")
    expected = next(e for e in failing if e["id"] == "multi_turn_base_2")
    assert expected["error_type"] in detail.locator(".pill").first.inner_text()
    # Turn by turn: the model's decoded calls beside the possible answer.
    first = detail.locator('.answer-pair[data-turn="0"]')
    assert LONG in first.locator(".side-model").inner_text()
    assert first.locator(".side-answer .call-line").count() >= 1
    wide = page.evaluate("""() => { const w = document.documentElement.clientWidth; const out = [];
      for (const e of document.querySelectorAll('body *')) { const r = e.getBoundingClientRect();
        if (r.right > w + 0.5) out.push(e.tagName + '.' + e.className); }
      return [w, document.documentElement.scrollWidth, out]; }""")
    assert wide == [1400, 1400, []]
    assert page.errors == []


def test_a_failing_single_turn_entry_shows_its_arguments_against_the_allowed_values(bfcl_page, open_page):
    html, _ = bfcl_page
    page = open_page(html)
    page.select_option("#category-filter", "simple_python")
    page.locator("#failing tbody tr[data-row]").first.click()
    detail = page.locator("#failing tr.detail")
    assert "simple_function_checker:wrong_func_name" in detail.locator(".pill").first.inner_text()
    calls = detail.locator(".answer .call")
    statuses = calls.evaluate_all("els => els.map(e => e.dataset.status)")
    assert "missing" in statuses and "spurious" in statuses  # foo called, the answer's function not
