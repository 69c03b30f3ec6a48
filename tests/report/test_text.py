"""A scored episode as text (``report.text.score_text``): the page's call cards, in words a
terminal shows. Checked against the page itself in a real Chromium, episode by episode, and
on the cases the cards have (types, unexpected and left-out arguments, turns, hostile and
long values)."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, ToolSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.grammar import FieldSpec
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.pipeline import score_dump
from ek_otel.report.text import _card, score_text
from ek_otel.scoring.link import load_settings

from .conftest import GOLD, TRACES


def _js_number_text(cell: str) -> str:
    """The page's JSON.stringify writes 355.0 as 355: the text keeps Python's 355.0."""
    return re.sub(r"(?<![\w.])(-?\d+)\.0(?![\d])", r"\1", cell)


def test_the_text_has_the_cards_of_the_page(tmp_path, open_page):
    html, out = tmp_path / "r.html", tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--json",
                                      str(out), "--html", str(html)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    tasks, settings = load_settings(str(GOLD))
    run = score_dump([str(TRACES)], tasks, settings, report=BadInputReport())
    scores = {e.trace_id: e.score for e in run.envelopes}
    page = open_page(html)
    checked = 0
    for index, episode in enumerate(data["episodes"]):
        if episode["success"]:
            continue
        page.click(f'tr[data-row="task:{episode["task_id"]}"]')
        page.click(f'tr[data-row="ep:{index}"]')
        detail = page.locator(f'.episode[data-trace="{episode["trace_id"]}"]')
        shown = []
        for card in detail.locator(".call").all():
            rows = [tuple(_js_number_text(cell) for cell in row.locator("td").all_inner_texts())
                    for row in card.locator("tbody tr").all()]
            shown.append((card.get_attribute("data-status"), card.locator(".tool").inner_text(), rows))
        score = scores[episode["trace_id"]]
        mine = [_card(row, tuple(score.arg_diffs)) for row in score.calls]
        mine = [(status, tool, [tuple(_js_number_text(c) for c in cells) for cells in rows])
                for status, tool, rows in mine]
        assert mine == shown, episode["task_id"]
        assert score_text(score).splitlines()[0] == f"fail: {episode['explanation']}"
        checked += 1
        page.click(f'tr[data-row="task:{episode["task_id"]}"]')  # fold it again
    assert checked >= 3


def test_wrong_type_unexpected_and_left_out():
    tool = ToolSpec("refund", params={"amount": FieldSpec("amount", "number", required=True),
                                      "note": FieldSpec("note", "string")})
    task = TaskSpec("t", gold=[("refund", {"amount": AnyOf((10,)), "note": AnyOf(("ok", ""))})],
                    tools=[tool])
    got = Episode("t", Trajectory([Step("refund", {"amount": "10", "extra": 1})]))
    text = score_text(score_episode(got, task, level="arg"))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert lines[0].startswith("fail: 0/1 calls matched; refund.amount: expected a number, got str '10'")
    assert "differs refund" in lines
    assert 'amount "10" 10 1 wrong type' in lines
    assert 'note (absent) "ok" (or left out)' in lines
    assert "extra 1 (not expected) 1 unexpected" in lines


def test_turns_hostile_and_long_values():
    task = TaskSpec("t", gold=[("a", {"x": AnyOf((1,))}), ("b", {})],
                    turns=[[("a", {"x": AnyOf((1,))})], [("b", {})]])
    hostile = "\x1b[31mred\x1b[0m\n" + "y" * 400
    episode = Episode("t", Trajectory([Step("a", {"x": hostile}), Step("b", {})]))
    text = score_text(score_episode(episode, task))
    assert "\x1b" not in text and "\\u001b[31mred" in text     # no terminal escape gets through
    assert re.search(r"\u2026 \(\d+ more\s+characters\)", text)
    assert [line for line in text.splitlines() if line.startswith("turn")] == ["turn 1", "turn 2"]
