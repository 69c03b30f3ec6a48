"""DeepEval goldens: real files (JSON, CSV; other projects' files, read from
``../shared/foreign/gold/deepeval``) in, and goldens out."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.episode import Episode, Step, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.gold.importers import import_file
from ek_otel.gold.native import task_to_dict
from ek_otel.gold.schema import task_problems

DEEPEVAL = ("goldens.csv", "goldens.json")


@pytest.fixture
def goldens(foreign):
    """The foreign DeepEval folder."""
    return foreign / "gold" / "deepeval"


@pytest.mark.parametrize("name", DEEPEVAL)
def test_deepeval_goldens_import_with_their_expected_tools(name, goldens):
    path = goldens / name
    tasks, notes = import_file("deepeval", str(path))
    assert tasks and all(task_problems(task_to_dict(t)) == [] and not t.ordered for t in tasks)
    for task in tasks:  # the golden's own expected calls pass, in any order
        run = Episode(task.task_id, Trajectory([Step(tool, {a: v.values[0] for a, v in args.items()})
                                                for tool, args in reversed(task.gold)]))
        assert score_episode(run, task).exact
    assert sum("judged by DeepEval's LLM metrics" in n for n in notes) == len(tasks)


def test_deepeval_json_goldens_name_the_one_without_tools(goldens):
    tasks, notes = import_file("deepeval", str(goldens / "goldens.json"))
    assert len(tasks) == 3 and "goldens.json#3: skipped: no expected_tools (nothing for a tool-call score)" in notes
    assert [t for t, _ in tasks[2].gold] == ["search_biology_database", "search_ecology_database"]


def test_deepeval_csv_goldens_are_named_by_their_name(goldens):
    tasks, _ = import_file("deepeval", str(goldens / "goldens.csv"))
    assert tasks[6].task_id == "Name 7"
    assert task_to_dict(tasks[6])["calls"] == [{"translator": {"query": ["Hello"], "target_language": ["Spanish"]}}]


def test_deepeval_export_round_trips_names_inputs_and_tools(tmp_path, goldens):
    tasks, _ = import_file("deepeval", str(goldens / "goldens.csv"))
    out = tmp_path / "goldens.json"
    gold = tmp_path / "gold.jsonl"
    runner = CliRunner()
    assert runner.invoke(cli, ["gold", "import", "deepeval", str(goldens / "goldens.csv"),
                               "--out", str(gold)]).exit_code == 0
    result = runner.invoke(cli, ["gold", "export", "deepeval", str(gold), "--out", str(out)])
    assert result.exit_code == 0, result.output
    back, _ = import_file("deepeval", str(out))
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]


def test_deepeval_round_trip_keeps_a_no_call_task(tmp_path, goldens):
    """Finding 8 of issue 30: export writes ``expected_tools: []`` for a no-call task; import
    keeps it as a task, beside the real goldens (whose tool-less golden has no key: skipped)."""
    from ek_otel.core.episode import TaskSpec
    from ek_otel.gold.deepeval import export_deepeval, import_deepeval
    real, _ = import_file("deepeval", str(goldens / "goldens.json"))
    tasks = [*real, TaskSpec("chit-chat", input="hello", gold=[])]
    exported, _ = export_deepeval(tasks)
    assert exported[-1]["expected_tools"] == []
    back, notes = import_deepeval(exported, source=str(tmp_path / "out.json"))
    assert [(t.task_id, t.input, t.gold) for t in back] == [(t.task_id, t.input, t.gold) for t in tasks]
    assert not any("skipped" in n for n in notes)
