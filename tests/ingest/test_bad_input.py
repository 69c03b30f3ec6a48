"""The bad-input report: counts by reason, the first cases with where they came from."""

from __future__ import annotations

from ek_otel.ingest.bad_input import INVALID_ID, INVALID_JSON, BadInputReport
from ek_otel.ingest.records import Origin


def test_counts_every_case_but_keeps_only_the_first_ones():
    report = BadInputReport(keep=3)
    for line in range(1, 11):
        report.add(INVALID_JSON, f"line {line} is cut", Origin("dump.jsonl", line))
    report.add(INVALID_ID, "trace id of 3 bytes", Origin("dump.jsonl", 11))
    assert report.total == 11 and report.counts == {INVALID_JSON: 10, INVALID_ID: 1}
    assert [case.origin.line for case in report.cases] == [1, 2, 3]
    summary = report.summary().splitlines()
    assert summary[0] == "11 bad input records skipped or repaired:"
    assert summary[1:3] == ["  10 invalid JSON", "  1 invalid id"]  # most frequent first
    assert summary[4] == "  dump.jsonl:1: invalid JSON: line 1 is cut"
    assert len(summary) == 4 + 3


def test_long_details_are_cut():
    report = BadInputReport()
    report.add(INVALID_JSON, "x" * 10_000)
    assert len(report.cases[0].detail) == 300
