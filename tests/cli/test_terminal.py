"""What the terminal says: tables that fit 80 columns (never a value wrapped), --wide for all,
the worst tasks and failures by kind after the tables, one dollar precision, gold show's
unambiguous values and marks, and every written file named on stderr."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ["examples/traces.jsonl", "--gold", "examples/tasks.jsonl", "--pricing", "examples/pricing.yaml"]


def _run(*args, columns="80"):
    result = CliRunner(env={"COLUMNS": columns}).invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_score_fits_80_columns_and_tells_why_runs_failed(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = _run("score", *EXAMPLE).stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "4 of 9 runs failed: 3 wrong value, 1 spurious call" in lines
    start = next(i for i, line in enumerate(lines) if line.startswith("worst tasks"))
    assert lines[start + 1].startswith("  flight-booking: 1 of 2 runs failed (wrong value ×1)")
    assert "book_flight.flight: expected one of" in lines[start + 2]
    # every row of a table is one line: no value wrapped onto a second line
    rows = [line for line in lines if line.startswith("│")]
    assert len([r for r in rows if "weather-paris" in r]) == 1
    # one dollar precision in the dollars column
    dollars = [line.rsplit("│", 2)[-2].strip() for line in rows[:5]]
    assert len({len(d.split(".")[1]) for d in dollars}) == 1, dollars


def test_wide_shows_every_column_whole(monkeypatch):
    monkeypatch.chdir(ROOT)
    narrow = _run("score", *EXAMPLE).stdout
    wide = _run("score", *EXAMPLE, "--wide").stdout
    assert "prec" not in narrow.split("by slice")[0] and "recall" in wide and "exact" in wide
    assert "9f5c066a7a206c4d66aba91dc51d8ac7" in wide  # the unmatched trace id, whole
    row = next(line for line in narrow.splitlines() if "weather-tokyo" in line)
    assert "9f5c066a7a206c4d66aba91dc51d8ac7" not in row and "9f5c066a " in row  # its unique prefix


def test_every_written_file_is_named_on_stderr(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    html, json_out = tmp_path / "r.html", tmp_path / "r.json"
    result = _run("score", *EXAMPLE, "--html", str(html), "--json", str(json_out))
    assert f"ek-otel: wrote the HTML page to {html}" in result.stderr
    assert f"ek-otel: wrote the JSON report to {json_out}" in result.stderr


def test_episodes_table_fits_80_columns(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = _run("episodes", "examples/traces.jsonl", "--table").stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert all(line.count("│") == 7 for line in out.splitlines() if line.startswith("│"))
    assert "convert_temperature" not in out or "…" in out


def test_gold_show_writes_admissible_values_unambiguously(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = _run("gold", "show", "examples/tasks.jsonl").stdout
    assert 'get_weather(city="Paris" or "Paris, France", unit="celsius" or omitted)' in out
    assert '2. refund(order_id="1042", amount=35.5, reason=omitted or "damaged" or "arrived broken")' in out
    assert "tools: lookup_order, refund [destructive]" in out
    assert "[destructive]: a tool that changes state" in out.replace("\n", " ")
    assert " !" not in out
