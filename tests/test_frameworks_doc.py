"""docs/frameworks.md is the corpus's word: regenerated in memory, it equals the committed file,
and every cell it says is read was checked against the ground truth by running ek-otel."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_frameworks_doc",
                                                  ROOT / "scripts" / "gen_frameworks_doc.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(gen):
    return gen.rows()


def test_the_committed_matrix_is_current(gen, rows):
    committed = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
    assert committed == gen.render(rows), (
        "docs/frameworks.md is stale: run python scripts/gen_frameworks_doc.py")


def test_every_scenario_of_the_corpus_is_a_row(gen, rows):
    scenarios = {p.name for p in gen.CORPUS.iterdir() if (p / "expected.json").is_file()}
    assert {r.scenario for r in rows} == scenarios
    for row in rows:
        assert set(row.cells) == set(gen.SUPPORT_ITEMS), row.scenario


def test_every_item_said_to_be_read_is_read(gen, rows):
    wrong = {r.scenario: r.differences for r in rows if r.differences}
    assert wrong == {}


def test_a_gap_of_a_row_comes_with_its_fix_where_one_is_known(gen, rows):
    row = next(r for r in rows if r.scenario == "openai-v2-2.4b0-no_content")
    assert row.cells["arguments"] == gen.NOT_RECORDED
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in row.fixes["arguments"]
    full = next(r for r in rows if r.scenario == "langgraph-agent-openinference-0.1.80")
    assert set(full.cells.values()) == {gen.READ} and full.fixes == {}


def test_check_mode_says_whether_the_file_is_stale(gen, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gen, "DOC", tmp_path / "frameworks.md")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
