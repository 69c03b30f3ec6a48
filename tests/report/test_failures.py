"""Failure kinds read from real JSON reports (the example, scored by `ek-otel score`)."""

from __future__ import annotations

from ek_otel.report.failures import failure_counts, failures_of


def test_the_example_fails_by_wrong_values_and_one_spurious_call(example_report):
    _, data = example_report
    failing = [e for e in data["episodes"] if not e["success"]]
    found = {e["task_id"]: [(f.kind, f.tool, f.arg) for f in failures_of(e)] for e in failing}
    assert found == {"weather-paris": [("wrong_value", "get_weather", "city")],
                     "refund-order-1042": [("wrong_value", "refund", "amount")],
                     "joke-no-tool": [("spurious_call", "get_weather", None)],
                     "flight-booking": [("wrong_value", "book_flight", "flight")]}
    assert failure_counts(data["episodes"]) == {"wrong_value": 3, "spurious_call": 1}
    assert all(failures_of(e) == () for e in data["episodes"] if e["success"])


def test_a_call_to_another_tool_is_a_wrong_tool_not_a_missing_and_a_spurious_call():
    episode = {"success": False, "calls": [
        {"got": {"tool": "cancel_order", "args": {}}, "gold": None, "turn": None},
        {"got": None, "gold": {"tool": "refund", "args": {}}, "turn": None},
        {"got": None, "gold": {"tool": "notify", "args": {}}, "turn": None}]}
    assert [(f.kind, f.tool, f.detail) for f in failures_of(episode)] == [
        ("wrong_tool", "refund", "cancel_order"), ("missing_call", "notify", None)]


def test_every_failing_run_counts_even_without_a_pairing():
    assert [f.kind for f in failures_of({"success": False, "calls": []})] == ["other"]
    # the arg_diffs of an older report, without the pairing
    old = {"success": False, "arg_diffs": [{"tool": "f", "arg": "x", "kind": "missing"}],
           "spurious_calls": [{"tool": "g", "args": {}}]}
    assert [(f.kind, f.tool, f.arg, f.detail) for f in failures_of(old)] == [
        ("wrong_value", "f", "x", "missing"), ("spurious_call", "g", None, None)]
