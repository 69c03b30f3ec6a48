"""``ek-otel doctor`` says nothing false: over EVERY corpus scenario (spans of a real package,
each with what the package records in ``expected.json``), each gap doctor reports is real, and
each real gap is reported.

A gap is **real** when the package does not record an item (``records.support``, or the older
scenarios' flags) that the run had: a tool name or argument of a call that was made, a call
id the model gave, a token kind of which the model used some (the fake server's script says
how many). An item the package records, or one the run did not have (Gemini gives no call
ids; Anthropic reports no reasoning tokens), is no gap, certain or possible.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.instrumentations import SUPPORT_ITEMS
from ek_otel.pipeline import diagnose_dumps, read_episodes

CORPUS = Path(__file__).resolve().parent / "corpus"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())
_USAGE = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
          "cached_tokens": "cached_input_tokens", "reasoning_tokens": "reasoning_tokens"}


def _files(scenario: str) -> list:
    return sorted(str(p) for p in (CORPUS / scenario).glob("*.pb"))


def recorded(expected: dict) -> dict:
    """item -> "read" / "not_recorded" / "not_read": what the package records."""
    records = expected["records"]
    if "support" in records:
        return dict(records["support"])
    names = bool(records.get("args") or records.get("tool_names"))
    usage = "not_recorded" if records.get("no_usage") else "read"
    return {
        "tool_names": "read" if names else "not_recorded",
        "arguments": "read" if records.get("args") else "not_recorded",
        # content off: a tool span names the call, but its id was the model's content
        "call_ids": "read" if records.get("args") else "not_recorded",
        "input_tokens": usage, "output_tokens": usage,
        "cached_tokens": "read" if records.get("cached") else "not_recorded",
        "reasoning_tokens": "read" if records.get("reasoning") else "not_recorded",
    }


def had(expected: dict, item: str) -> bool:
    """Whether the run had the item at all (what the fake server's script made)."""
    calls = expected.get("calls") or []
    if item in ("tool_names", "arguments"):
        return bool(calls)
    if item == "call_ids":
        return any(c.get("call_id") for c in calls)
    return (expected.get("usage") or {}).get(_USAGE[item], 0) > 0


def real_gaps(scenario: str) -> set:
    expected = json.loads((CORPUS / scenario / "expected.json").read_text())
    support = recorded(expected)
    # not_read: recorded in a form ek-otel does not read (a Python repr): the episode lacks
    # it all the same, and the fix the support record names is what gets it
    return {item for item in SUPPORT_ITEMS
            if support.get(item) in ("not_recorded", "not_read") and had(expected, item)}


def reported_gaps(scenario: str) -> set:
    (trace,) = diagnose_dumps(_files(scenario), report=BadInputReport()).traces
    return {gap.item for gap in trace.gaps}


def tally() -> tuple:
    """``(false, missed)``: every (scenario, item) reported but not real, and real but not
    reported."""
    false, missed = [], []
    for scenario in SCENARIOS:
        real, reported = real_gaps(scenario), reported_gaps(scenario)
        false += [(scenario, item) for item in sorted(reported - real)]
        missed += [(scenario, item) for item in sorted(real - reported)]
    return false, missed


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_reported_gap_is_real_and_every_real_gap_is_reported(scenario):
    real, reported = real_gaps(scenario), reported_gaps(scenario)
    assert reported - real == set(), "false gaps"
    assert real - reported == set(), "missed gaps"


def external_tally() -> tuple:
    """``(fixtures, false, missed)`` over the external fixtures (``test_external.tally``)."""
    import importlib.util

    path = Path(__file__).resolve().parent / "test_external.py"
    spec = importlib.util.spec_from_file_location("test_external", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tally()


if __name__ == "__main__":  # the counts for the closing note: corpus and external fixtures
    false, missed = tally()
    print(f"corpus: {len(SCENARIOS)} scenarios: {len(false)} false gaps, {len(missed)} missed gaps")
    for scenario, item in false:
        print("  false:", scenario, item)
    for scenario, item in missed:
        print("  missed:", scenario, item)
    fixtures, external_false, external_missed = external_tally()
    print(f"external: {fixtures} fixtures: {len(external_false)} false gaps, "
          f"{len(external_missed)} missed gaps")
    for row in external_false:
        print("  false:", *row)
    for row in external_missed:
        print("  missed:", *row)
    print(f"together: {len(SCENARIOS) + fixtures} trace sets: "
          f"{len(false) + len(external_false)} false gaps, "
          f"{len(missed) + len(external_missed)} missed gaps")
