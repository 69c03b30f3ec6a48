"""The spool of a large scoring run (ek_otel.scoring.spool) and the one-pass aggregation
(ek_otel.core.tally): a run whose episodes went to the spool reports exactly what the same
run held in memory reports, byte for byte."""

from __future__ import annotations

import json
import os
import random
import re
import sys

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli as cli_main
from ek_otel.cli._common import write_json
from ek_otel.core.cost import ModelPrice, PriceTable
from ek_otel.core.episode import (Cost, Episode, Provenance, RunProvenance, Step, TaskSpec,
                                  Trajectory)
from ek_otel import evaluate
from ek_otel.core.tally import CutTally, RunningSum
from ek_otel.scoring import ScoreSettings, score_episodes
from ek_otel.scoring.spool import EpisodeRows

HERE = os.path.dirname(os.path.abspath(__file__))
CLI_TESTS = os.path.join(os.path.dirname(HERE), "cli")
BASELINE = os.path.join(CLI_TESTS, "data", "output_baseline")


def set_spool_after(monkeypatch, n: int) -> None:
    """SPOOL_AFTER where the corpus loop reads it (the globals of the module that defines
    EpisodeRows: with --import-mode=importlib a doctest run may import a second copy)."""
    from ek_otel.scoring import run as run_module

    monkeypatch.setitem(run_module.EpisodeRows.__init__.__globals__, "SPOOL_AFTER", n)


@pytest.fixture
def spool_everything(monkeypatch):
    set_spool_after(monkeypatch, 0)


def test_running_sum_is_the_builtin_sum_bit_for_bit():
    rng = random.Random(5)
    for _ in range(300):
        values = [rng.choice([rng.random(), rng.uniform(-1, 1) * 10 ** rng.randint(-20, 20),
                              0.1, 1e16, -1e16, 1.0, 0.0, -0.0])
                  for _ in range(rng.randint(0, 40))]
        total = RunningSum()
        for v in values:
            total.add(v)
        assert repr(total.value) == repr(sum(values)), values
    ints = RunningSum()
    for v in (1, 2, 3):
        ints.add(v)
    assert ints.value == 6 and type(ints.value) is int


def test_cut_tally_is_cut_figures_of_the_list():
    from ek_otel.core.tally import CutFigures
    from ek_otel.core.scores import EpisodeScore

    rng = random.Random(9)
    pairs = [(EpisodeScore("t", tp=rng.random() * 3, fp=rng.random(), fn=rng.random() * 2,
                           exact=rng.random() < 0.5, success=rng.random() < 0.4), rng.random() * 5)
             for _ in range(200)]
    tally = CutTally()
    for score, value in pairs:
        tally.add(score, value)
    assert tally.figures() == CutFigures.of(pairs)


def _corpus(n: int = 60):
    """Episodes with several models (groups), slices, prices, costs, unmatched ones, a
    trace-less one, and revisions (an episode key that comes again)."""
    rng = random.Random(2)
    tasks = {f"t{i}": TaskSpec(f"t{i}", gold=[("f", {"x": i}), ("g", {})],
                               slice=("easy" if i % 2 else "hard") if i < 4 else None,
                               value=1.0 + i % 3)
             for i in range(6)}
    episodes = []
    for i in range(n):
        task = f"t{rng.randrange(7)}"  # t6 is not a task: unmatched
        steps = [Step("f", {"x": rng.choice([int(task[1:]), 99])})] + (
            [Step("g")] if rng.random() < 0.6 else [Step("h", {"y": rng.random()})])
        key = i if i % 10 else i - 5  # every tenth episode revises an earlier one
        episodes.append(Episode(
            task, Trajectory(steps),
            cost=Cost(input_tokens=rng.randrange(1000), output_tokens=rng.randrange(300),
                      latency_s=rng.random()),
            run=RunProvenance(model=rng.choice(["m-1", "m-2", "m-3"])),
            provenance=Provenance(trace_id=f"{key + 1:032x}", root_span_id=f"{key + 1:016x}")))
    return tasks, episodes


def _dumps(run) -> bytes:
    from ek_otel.scoring.report_json import indented_json_chunks

    return b"".join(indented_json_chunks(run.to_dict(lazy_episodes=True)))


def test_a_spooled_run_reports_what_a_run_in_memory_reports(monkeypatch):
    tasks, episodes = _corpus()
    prices = PriceTable({"m": ModelPrice(2.0, 8.0)})
    settings = ScoreSettings(scored_at_ns=1, prices=prices)
    held = score_episodes(episodes, tasks, settings)
    set_spool_after(monkeypatch, 7)  # spills in the middle of the run
    spooled = score_episodes(episodes, tasks, settings)
    assert type(spooled.envelopes).__name__ == "EpisodeRows" and spooled.envelopes.spooled
    assert isinstance(held.envelopes, tuple) and isinstance(held.unmatched, tuple)
    assert spooled.unmatched.spooled and list(spooled.unmatched) == list(held.unmatched)
    assert list(spooled.report.unmatched) == list(held.report.unmatched)
    assert held.report.groups and held.revisions == spooled.revisions > 0
    assert _dumps(spooled) == _dumps(held)
    assert spooled.to_dict() == held.to_dict() == json.loads(_dumps(held))
    assert tuple(spooled.envelopes) == held.envelopes
    assert list(spooled.report.scores) == list(held.report.scores)
    for g_spooled, g_held in zip(spooled.report.groups, held.report.groups):
        assert list(g_spooled.report.scores) == list(g_held.report.scores)
        assert len(g_spooled.report.scores) == len(g_held.report.scores)
    assert spooled.envelopes[3] == held.envelopes[3] and spooled.envelopes[-1] == held.envelopes[-1]
    assert spooled.envelopes[1:3] == list(held.envelopes[1:3])
    for task_id in tasks:
        assert spooled.task_dollars(task_id) == held.task_dollars(task_id)
    assert spooled.ignored_calls == held.ignored_calls


@pytest.mark.parametrize("spool_after", [None, 7, 0])
def test_rows_encoded_where_they_are_scored_give_the_same_report(monkeypatch, spool_after):
    """ScoreSettings.json_rows: each outcome carries its row encoded (what a worker of a
    parallel run sends), and the report joins them: the same bytes, groups (several models),
    revisions, a float orjson writes differently (1e-05) and a spool included."""
    from dataclasses import replace

    tasks, episodes = _corpus()
    episodes[3] = replace(episodes[3], trajectory=Trajectory([Step("f", {"x": 1e-05}), Step("g", {"é": "\ud800"})]))
    prices = PriceTable({"m": ModelPrice(2.0, 8.0)})
    settings = ScoreSettings(scored_at_ns=1, prices=prices)
    plain = score_episodes(episodes, tasks, settings)
    if spool_after is not None:
        set_spool_after(monkeypatch, spool_after)
    encoded = score_episodes(episodes, tasks, replace(settings, json_rows=True))
    assert plain.json_rows is None and encoded.json_rows is not None
    assert encoded.json_rows.spooled == (spool_after is not None)
    data = encoded.to_dict(lazy_episodes=True)
    assert data["episodes"].encoded is not None and encoded.report.groups and encoded.revisions
    assert _dumps(encoded) == _dumps(plain)
    assert list(data["episodes"]) == plain.to_dict()["episodes"]  # the dicts, for the HTML page


def test_the_library_evaluate_with_a_spool(monkeypatch):
    tasks, episodes = _corpus(40)
    held = evaluate(episodes, tasks, group_by_provenance=True)
    set_spool_after(monkeypatch, 3)
    spooled = evaluate(episodes, tasks, group_by_provenance=True)
    assert spooled.to_dict() == held.to_dict()
    assert list(spooled.scores) == list(held.scores)


def test_rows_keep_first_seen_order_and_the_latest_revision():
    from ek_otel.core.scores import EpisodeScore

    rows = EpisodeRows(spool_after=0)
    for i in range(3000):  # more than a write batch, and revisions across batches
        rows.put(("k", i % 1200), EpisodeScore(f"t{i % 1200}", tp=float(i)), ("m",))
    assert rows.spooled and len(rows) == 1200
    assert [s.tp for s in rows][:3] == [2400.0, 2401.0, 2402.0]
    assert [s.task_id for s, _ in rows.facts()][:2] == ["t0", "t1"]
    assert rows[-1].tp == 2399.0
    rows.close()
    assert len(rows) == 0


def test_ek_otel_score_with_a_spool_writes_the_baseline_bytes(tmp_path, spool_everything):
    sys.path.insert(0, CLI_TESTS)
    try:
        import identity_dump
    finally:
        sys.path.remove(CLI_TESTS)
    out_dir = str(tmp_path)
    paths = identity_dump.write_dump(out_dir)
    report, emit = os.path.join(out_dir, "report.json"), os.path.join(out_dir, "scores.jsonl")
    result = CliRunner().invoke(cli_main, ["score", paths["dump"], "--gold", paths["gold"], "--json",
                                           report, "--emit-file", emit],
                                env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output

    def baseline(name: str) -> str:
        with open(os.path.join(BASELINE, name), encoding="utf-8") as f:
            return f.read()

    assert open(report).read().replace(out_dir, "OUT") == baseline("cli.report.json")
    assert result.stdout.replace(out_dir, "OUT") == baseline("cli.stdout")  # the tables
    assert identity_dump.normalized_emit(open(emit).read()).replace(out_dir, "OUT") == \
        baseline("cli.scores.jsonl")
    # late spans: revisions in the spool
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.pipeline import score_dump
    from ek_otel.scoring.link import load_settings

    tasks, settings = load_settings(paths["gold"])
    run = score_dump([paths["dump"]], tasks, settings, report=BadInputReport(),
                     close_after=identity_dump.CLOSE_AFTER)
    assert run.envelopes.spooled and run.revisions
    late = os.path.join(out_dir, "late.json")
    write_json(run.to_dict(lazy_episodes=True), late)
    assert open(late).read().replace(out_dir, "OUT") == baseline("late.report.json")


def test_revision_numbers_come_from_the_last_episodes(monkeypatch):
    from ek_otel.scoring import run as run_module

    monkeypatch.setitem(run_module.score_stream.__globals__, "REVISION_MEMORY", 3)
    task = {"t": TaskSpec("t")}

    def episode(i):
        return Episode("t", provenance=Provenance(trace_id=f"{i:032x}", root_span_id=f"{i:016x}"))

    # 1 again after 2 others: a revision; 1 again after 4 others: numbered 0 again, and still
    # the one score of its episode in the report
    order = [1, 2, 3, 1, 4, 5, 6, 7, 1]
    run = score_episodes([episode(i) for i in order], task, ScoreSettings(scored_at_ns=1))
    revisions = [o.revision for o in run_module.score_stream([episode(i) for i in order], task,
                                                             ScoreSettings(scored_at_ns=1))]
    assert revisions == [0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert len(run.envelopes) == 7 and run.report.n_episodes == 7


def test_many_unmatched_episodes_are_spooled_and_chained(spool_everything):
    eps = [Episode("nope", provenance=Provenance(trace_id=f"{i + 1:032x}", root_span_id=f"{i + 1:016x}"))
           for i in range(1500)]
    run = score_episodes(eps, {"t": TaskSpec("t")}, ScoreSettings(scored_at_ns=1))
    assert run.unmatched.spooled and len(run.unmatched) == 1500
    both = run.unmatched + ("late",)
    assert len(both) == 1501 and both[-1] == "late" and both[0].task_id == "nope"
    data = json.loads(_dumps(run))
    assert len(data["unmatched"]) == 1500 and data["aggregate"]["unmatched"] == 1500


def test_the_html_page_of_a_spooled_run_is_the_same(tmp_path, monkeypatch):
    sys.path.insert(0, CLI_TESTS)
    try:
        import identity_dump
    finally:
        sys.path.remove(CLI_TESTS)
    paths = identity_dump.write_dump(str(tmp_path))
    pages = []
    for spool_after in (None, 0):
        if spool_after is not None:
            set_spool_after(monkeypatch, spool_after)
        page = str(tmp_path / f"page-{spool_after}.html")
        result = CliRunner().invoke(cli_main, ["score", paths["dump"], "--gold", paths["gold"],
                                               "--html", page], env={"COLUMNS": "1000"})
        assert result.exit_code == 0, result.output
        # the time the page was written (to the second) is the one thing allowed to differ
        pages.append(re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "<written>",
                            open(page, encoding="utf-8").read()))
    assert pages[0] == pages[1] and "task-" in pages[0]
