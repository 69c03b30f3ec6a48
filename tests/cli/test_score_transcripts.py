"""`ek-otel score --transcripts`: the same transcripts in one process, in several, and through
the spool; none without the flag."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ek_otel.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = [str(ROOT / "examples" / "traces.jsonl"), "--gold", str(ROOT / "examples" / "tasks.jsonl")]


def _report(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    result = CliRunner().invoke(cli, ["score", *EXAMPLE, "--json", str(out), *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


def test_transcripts_only_when_asked(tmp_path):
    plain = _report(tmp_path, "plain")
    assert not any("transcript" in e for e in plain["episodes"])
    with_them = _report(tmp_path, "with", "--transcripts")
    assert all(e["transcript"][0]["kind"] == "user" for e in with_them["episodes"])
    # nothing else changes
    stripped = [{k: v for k, v in e.items() if k != "transcript"} for e in with_them["episodes"]]
    assert stripped == plain["episodes"] and with_them["aggregate"] == plain["aggregate"]


def test_transcripts_are_the_same_over_several_processes_and_through_the_spool(tmp_path, monkeypatch):
    one = _report(tmp_path, "one", "--transcripts", "--jobs", "1")
    two = _report(tmp_path, "two", "--transcripts", "--jobs", "2")
    assert two["episodes"] == one["episodes"]
    from ek_otel.scoring import run as run_module

    monkeypatch.setitem(run_module.EpisodeRows.__init__.__globals__, "SPOOL_AFTER", 0)
    spooled = _report(tmp_path, "spooled", "--transcripts")
    assert spooled["episodes"] == one["episodes"]
