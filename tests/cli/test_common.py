"""Shared CLI helpers: progress bars stay off the output when not on a terminal."""

from __future__ import annotations

import io
import sys

from ek_otel.cli._common import echo_errors, is_interactive, progress, stderr_console, track
from ek_otel.errors import GoldFileError


def test_progress_is_silent_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not is_interactive()
    assert list(track(range(3), "work")) == [0, 1, 2]
    assert sys.stderr.getvalue() == ""


def test_forced_progress_draws_on_stderr_and_counts(monkeypatch):
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    with progress("decoding", total=2, enabled=True) as advance:
        advance()
        advance()
    assert buffer.getvalue() != ""  # something was drawn (transient bars clear themselves)


def test_track_passes_items_through_unchanged():
    items = [{"a": 1}, None, "x"]
    assert list(track(iter(items), "items")) == items


def test_echo_errors_prints_one_line_each(capsys):
    count = echo_errors([GoldFileError("g.jsonl", 3, "task_id is missing"), GoldFileError("g.jsonl", None, "no such file")])
    assert count == 2
    assert capsys.readouterr().err.splitlines() == ["g.jsonl:3: task_id is missing", "g.jsonl: no such file"]


def test_stderr_console_writes_to_stderr(monkeypatch):
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    stderr_console().print("hello")
    assert buffer.getvalue() == "hello\n"


def test_nothing_read_error_only_when_everything_was_bad():
    from ek_otel.cli._common import nothing_read_error
    from ek_otel.ingest.bad_input import INVALID_JSON, BadInputReport
    from ek_otel.ingest.records import Origin

    report = BadInputReport()
    assert nothing_read_error(report) is None  # an empty dump is not an error
    report.add(INVALID_JSON, "expected value", Origin("d.jsonl", 3))
    report.add(INVALID_JSON, "expected value", Origin("d.jsonl", 4))
    error = nothing_read_error(report)
    assert str(error) == "no trace could be read (2 bad input records; first: d.jsonl:3: invalid JSON: expected value)"


def test_write_json_writes_a_file_and_refuses_an_unwritable_path(tmp_path):
    import json

    import pytest

    from ek_otel.cli._common import write_json
    from ek_otel.errors import InputError

    out = tmp_path / "r.json"
    write_json({"aggregate": {"f1": 0.5}}, str(out))
    assert json.loads(out.read_text()) == {"aggregate": {"f1": 0.5}}
    with pytest.raises(InputError, match="cannot write the JSON report"):
        write_json({}, str(tmp_path / "missing" / "r.json"))
