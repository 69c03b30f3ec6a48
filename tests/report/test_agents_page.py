"""The by-agent table of multi-agent runs in the JSON report and the page (real headless
Chromium): figures as ``ek-otel score`` counts them, agent names from the trace shown as
text."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ek_otel.cli import cli

HOSTILE = "<img src=x onerror=window.__pwned=1>"


def _attrs(**values):
    return [{"key": k.replace("__", "."), "value": {"stringValue": str(v)}} for k, v in values.items()]


def _span(trace, span, parent, name, start, **attributes):
    out = {"traceId": trace, "spanId": span, "name": name,
           "startTimeUnixNano": str(start * 1_000_000), "endTimeUnixNano": str((start + 5) * 1_000_000),
           "attributes": _attrs(**attributes)}
    if parent:
        out["parentSpanId"] = parent
    return out


def _run(n, refund_agent):
    """One trace: a planner agent looks the order up and hands off to a billing agent (its
    name hostile), which refunds; ``refund_agent`` says who made the refund call."""
    t = f"{n:032x}"
    s = lambda i: f"{n:08x}{i:08x}"  # noqa: E731
    agents = {"planner": s(2), HOSTILE: s(3)}
    spans = [
        _span(t, s(1), None, "run", 0, ek__task__id="refund-1"),
        _span(t, s(2), s(1), "invoke_agent planner", 1, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name="planner"),
        _span(t, s(3), s(1), f"invoke_agent {HOSTILE}", 10, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name=HOSTILE),
        _span(t, s(4), s(2), "execute_tool lookup", 2, gen_ai__operation__name="execute_tool",
              gen_ai__tool__name="lookup", gen_ai__tool__call__arguments='{"id": 1}'),
        _span(t, s(5), agents[refund_agent], "execute_tool refund", 11,
              gen_ai__operation__name="execute_tool", gen_ai__tool__name="refund",
              gen_ai__tool__call__arguments='{"amount": 10}'),
        _span(t, s(6), s(3), "execute_tool email", 12, gen_ai__operation__name="execute_tool",
              gen_ai__tool__name="email", gen_ai__tool__call__arguments="{}"),
    ]
    return json.dumps({"resourceSpans": [{"resource": {"attributes": _attrs(service__name="shop")},
                                          "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})


def test_the_json_report_and_the_page_carry_the_by_agent_table(tmp_path, open_page):
    (tmp_path / "traces.jsonl").write_text(_run(1, HOSTILE) + "\n" + _run(2, "planner") + "\n")
    (tmp_path / "gold.jsonl").write_text(json.dumps(
        {"task_id": "refund-1", "calls": [{"lookup": {"id": [1]}},
                                          {"refund": {"amount": [10]}, "agent": HOSTILE}]}) + "\n")
    result = CliRunner().invoke(cli, ["score", str(tmp_path / "traces.jsonl"), "--gold",
                                      str(tmp_path / "gold.jsonl"), "--json", str(tmp_path / "r.json"),
                                      "--html", str(tmp_path / "r.html")], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    data = json.loads((tmp_path / "r.json").read_text())
    # run 1: lookup (planner) matched, refund (billing) matched, email (billing) spurious;
    # run 2: the planner made the refund: paired with its gold call, the wrong agent: an error
    assert [r["agent"] for r in data["agents"]] == sorted([HOSTILE, "planner"])
    by_agent = {r["agent"]: r for r in data["agents"]}
    assert by_agent[HOSTILE] == {"agent": HOSTILE, "calls": 3, "matched": 1, "spurious": 2, "errors": 0}
    assert by_agent["planner"] == {"agent": "planner", "calls": 3, "matched": 2, "spurious": 0,
                                   "errors": 1}
    # the table's figures are the rows' own
    rows = [c for e in data["episodes"] for c in e["calls"] if c["got"]]
    assert sum(r["calls"] for r in data["agents"]) == len(rows)
    page = open_page(tmp_path / "r.html")
    cells = [row.locator("td").all_inner_texts() for row in page.locator("#agents tbody tr").all()]
    assert cells == [[r["agent"], str(r["calls"]), str(r["matched"]), str(r["spurious"]),
                      str(r["errors"])] for r in data["agents"]]
    assert HOSTILE in page.locator("#agents").inner_text()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img").count() == 0
    assert page.errors == [] and page.dialogs == []


def test_a_single_agent_report_has_no_agents_key(tmp_path):
    from tests.report.conftest import GOLD, TRACES

    out = tmp_path / "r.json"
    CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD), "--json", str(out)],
                       catch_exceptions=False)
    assert "agents" not in json.loads(out.read_text())
