"""Reading JSON reports: what `score --json` writes, and clear errors naming the file."""

from __future__ import annotations

import json

import pytest

from ek_otel.report.model import ReportFileError, load_report, report_from_dict


def test_the_example_report_reads_with_slices_and_counts(example_report):
    path, data = example_report
    report = load_report(str(path))
    assert report.gold_sha256 == data["provenance"]["gold_sha256"]
    assert report.matcher == data["provenance"]["matcher"]
    refund = report.task("refund-order-1042")
    assert refund.slice == "payments"
    assert (refund.counts.episodes, refund.counts.successes, refund.counts.exact) == (2, 1, 1)
    assert refund.counts.tp == data["per_task"]["refund-order-1042"]["tp"]
    assert [t.task_id for t in report.tasks] == list(data["per_task"])


@pytest.mark.parametrize("content, message", [
    (b"", "not JSON"),
    (b"{nope", "not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"per_task": {}}', "no 'aggregate' key"),
    (b'{"aggregate": {}, "per_task": []}', "per_task must be an object"),
    (b'{"aggregate": {}, "per_task": {"t": {"episodes": "2", "successes": 1}}}',
     "per_task['t'].episodes must be a number"),
    (b'{"aggregate": {}, "per_task": {}, "episodes": {}}', "'episodes' must be a list"),
])
def test_invalid_reports_are_one_clear_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad report.json"
    path.write_bytes(content)
    with pytest.raises(ReportFileError) as info:
        load_report(str(path))
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_an_unreadable_report_names_the_file(tmp_path):
    with pytest.raises(ReportFileError, match="missing.json: cannot read the report"):
        load_report(str(tmp_path / "missing.json"))
    with pytest.raises(ReportFileError, match="cannot read the report"):
        load_report(str(tmp_path))  # a directory


def test_groups_are_read_apart():
    data = {"aggregate": {}, "per_task": {}, "groups": [
        {"key": ["model-a", "", "", ""], "aggregate": {"episodes": 1},
         "per_task": {"t": {"episodes": 1, "successes": 1}}}]}
    report = report_from_dict(json.loads(json.dumps(data)), "r.json")
    assert report.groups[0].label == "model-a / - / - / -"
    assert report.groups[0].tasks[0].counts.passed
