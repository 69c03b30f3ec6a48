"""``ek-otel bfcl --score-dir`` on a real submission: the official score files byte for byte,
and the official summary figures.

The score files ek-otel writes for ``bfcl-real`` are compared with the official ones as
bytes (key order, spacing, number and string formatting included), and the summary figures
of :mod:`ek_otel.bfcl.summary` with what the official ``eval_runner_helper`` computes
(``update_leaderboard_table_with_local_score_file`` + ``generate_leaderboard_csv``, run as
they are; only the CSV writer is replaced, to read the figures before they are rounded).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.bfcl.official import _official_module
from ek_otel.bfcl.simulator import simulator_available
from ek_otel.bfcl.summary import aggregates
from ek_otel.cli import cli

MODEL = "glyphh-ada-1.1"


@pytest.fixture(scope="module")
def ek_score_dir(bfcl_real, bfcl_data, tmp_path_factory):
    """The score files of ``ek-otel bfcl`` for every result file of bfcl-real."""
    assert simulator_available(), "bfcl_eval's simulated APIs (multi-turn state mode)"
    out = tmp_path_factory.mktemp("ek-score")
    result = CliRunner().invoke(cli, ["bfcl", str(bfcl_real / "result"), "--score-dir", str(out),
                                      "--multi-turn", "state"])
    assert result.exit_code == 0, result.output
    return out


def _score_files(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("BFCL_v4_*_score.json"))}


#: Python 3.13 adds a suggestion to the TypeError of an unexpected keyword argument
#: ("... got an unexpected keyword argument 'x'. Did you mean 'y'?"); the official files were
#: written by such a Python. ek-otel reports the message of the Python it runs on.
_SUGGESTION = re.compile(rb"\. Did you mean '[^'\\]*'\?")

#: The official run executes every multi-turn entry in one process, so the mutable default
#: of ``TwitterAPI.post_tweet(mentions=[])``, which ``mention()`` extends, leaks
#: "VehicleGuru" from an earlier entry into every later tweet posted without mentions.
#: ek-otel checks each entry as a fresh official process would (``ek_otel.bfcl.simulator``).
_LEAKED_MENTIONS = ((b'"mentions": ["VehicleGuru"]', b'"mentions": []'),
                    (b'\\"mentions\\": [\\"VehicleGuru\\"]', b'\\"mentions\\": []'))


def _without_official_run_artifacts(line: bytes) -> bytes:
    for leaked, fresh in _LEAKED_MENTIONS:
        line = line.replace(leaked, fresh)
    return _SUGGESTION.sub(b"", line)


def test_score_files_are_the_official_bytes(bfcl_real, ek_score_dir):
    official = _score_files(bfcl_real / "score")
    ours = _score_files(ek_score_dir)
    assert sorted(ours) == sorted(official)
    assert len(official) == 21
    differing = []
    for name, expected in official.items():
        if ours[name] == expected:
            continue
        if "/multi_turn/" not in name:
            differing.append(name)
            continue
        # multi-turn: a line may differ only by the official run's two artifacts above
        got_lines, expected_lines = ours[name].split(b"\n"), expected.split(b"\n")
        assert len(got_lines) == len(expected_lines), name
        for got, want in zip(got_lines, expected_lines):
            if got != want and _SUGGESTION.sub(b"", got) != _without_official_run_artifacts(want):
                differing.append(name)
                break
    assert differing == []
    identical = [name for name in official if ours[name] == official[name]]
    assert len(identical) == 17 and not any("/multi_turn/" in name for name in identical)


def _official_figures(score_dir: Path) -> dict:
    """Column → accuracy of every figure the official leaderboard computes for MODEL."""
    helper = _official_module("bfcl_eval.eval_checker.eval_runner_helper")
    assert helper is not None, "bfcl_eval's eval_runner_helper"
    captured = {}

    def capture(data, file_path, header, sort_column_index, no_conversion_numeric_column_index=()):
        (row,) = data
        captured[Path(file_path).stem] = dict(zip(header, row))

    table: dict = {}
    helper.update_leaderboard_table_with_local_score_file(table, score_dir)
    original = helper.write_score_csv_file
    helper.write_score_csv_file = capture
    try:
        helper.generate_leaderboard_csv({MODEL: table[MODEL]}, score_dir)
    finally:
        helper.write_score_csv_file = original
    return captured


#: ek-otel's figure → (official table, column).
_OFFICIAL_COLUMN = {
    "Overall": ("data_overall", "Overall Acc"),
    "Non-Live AST": ("data_overall", "Non-Live AST Acc"),
    "Non-Live simple AST": ("data_overall", "Non-Live Simple AST"),
    "Live AST": ("data_overall", "Live Acc"),
    "Irrelevance": ("data_overall", "Irrelevance Detection"),
    "Multi-Turn": ("data_overall", "Multi Turn Acc"),
    "Agentic": ("data_agentic", "Agentic Overall Acc"),
    "Web search": ("data_overall", "Web Search Acc"),
    "Memory": ("data_overall", "Memory Acc"),
}


def _counts(score_dir: Path) -> dict:
    import json

    counts = {}
    for path in score_dir.rglob("BFCL_v4_*_score.json"):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        category = path.name[len("BFCL_v4_"):-len("_score.json")]
        counts[category] = (header["correct_count"], header["total_count"])
    return counts


@pytest.mark.parametrize("source", ["ek-otel", "official"])
def test_summary_figures_are_the_official_leaderboard_figures(bfcl_real, ek_score_dir, source):
    """Overall (weights 10/10/10/30/40), Non-Live AST, Live AST, Irrelevance, Multi-Turn,
    Agentic, Web search and Memory: ek-otel's figures from ek-otel's own score files equal
    the official leaderboard's, computed from ek-otel's files and from the official ones."""
    official_dir = bfcl_real / "score" if source == "official" else ek_score_dir
    official = _official_figures(official_dir)
    ours = {a.name: a for a in aggregates(_counts(ek_score_dir / MODEL))}
    # bfcl-real has no live_relevance file: Relevance is not reported (N/A officially)
    assert set(ours) == set(_OFFICIAL_COLUMN)
    assert official["data_overall"]["Relevance Detection"] == "N/A"
    for name, (table, column) in _OFFICIAL_COLUMN.items():
        assert ours[name].accuracy == pytest.approx(official[table][column], abs=1e-12), name
    assert round(ours["Overall"].accuracy, 4) == 0.7450
    assert ours["Overall"].total_count == 1150 + 1351 + 1124 + 800 + 665
