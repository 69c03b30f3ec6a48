"""The by-agent table of multi-agent runs: rows carry the agent, the terminal shows the table."""

from __future__ import annotations

import io

from rich.console import Console

from ek_otel.cli._tables import print_run_tables
from ek_otel.core.episode import Episode, Provenance, Step, Trajectory
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
from ek_otel.gold.native import task_from_dict
from ek_otel.report.agents import agent_table
from ek_otel.scoring import ScoreSettings, score_episodes
from ek_otel.scoring.report import episode_dict
from ek_otel.core.evaluate import score_episode

TASK = task_from_dict({"task_id": "t", "calls": [{"lookup": {"id": [1]}}, {"refund": {"amount": [10]}, "agent": "billing"}]})


def run(n=0):
    return Episode("t", Trajectory([Step("lookup", {"id": 1}, agent="planner"),
                                    Step("refund", {"amount": 10}, agent="planner"),
                                    Step("email", {}, agent="billing")]),
                   provenance=Provenance(trace_id=f"{n + 1:032x}", root_span_id=f"{n + 1:016x}"))


def test_rows_carry_the_agent_and_the_table_counts_them():
    score = score_episode(run(), TASK)
    rows = episode_dict(score)["calls"]
    assert [r.get("agent") for r in rows if r["got"]] == ["planner", "planner", "billing"]
    assert [r.as_list() for r in agent_table([episode_dict(score)])] == [
        ["billing", 1, 0, 1, 0], ["planner", 2, 1, 0, 1]]
    env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", score, ScoreProvenance("0", "", {}))
    assert ScoreEnvelope.from_json(env.to_json()).score.calls == score.calls


def test_single_agent_rows_keep_their_shape():
    one = Episode("t", Trajectory([Step("lookup", {"id": 1}, agent="solo")]))
    score = score_episode(one, task_from_dict({"task_id": "t", "calls": [{"lookup": {"id": [1]}}]}))
    assert all("agent" not in r for r in episode_dict(score)["calls"])
    assert '"agent"' not in ScoreEnvelope("ab" * 16, "cd" * 8, "t", score,
                                          ScoreProvenance("0", "", {})).to_json()


def test_the_terminal_prints_the_table_for_a_multi_agent_run():
    result = score_episodes([run(1), run(2)], {"t": TASK}, ScoreSettings())
    buffer = io.StringIO()
    print_run_tables(result, Console(file=buffer, width=100))
    text = buffer.getvalue()
    assert "tool calls by agent" in text
    table = text.split("tool calls by agent", 1)[1]
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines()
             if line.startswith("│")]
    assert ["billing", "2", "0", "2", "0"] in cells and ["planner", "4", "2", "0", "2"] in cells
