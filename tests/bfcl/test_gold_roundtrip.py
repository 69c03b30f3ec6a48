"""BFCL results turned into episodes, scored against from-bfcl gold with the BFCL matcher,
get the very verdicts of ``ek-otel bfcl`` — for every entry of every single-turn category."""

from __future__ import annotations

import pytest

from ek_otel.bfcl.categories import SINGLE_TURN, checker_kind
from ek_otel.bfcl.matcher import bfcl_verdict_for_episode, episode_from_result
from ek_otel.bfcl.result_files import ResultFile, find_result_files
from ek_otel.bfcl.runner import score_category
from ek_otel.bfcl.gold import bfcl_tasks
from ek_otel.gold.native import dump_tasks, load_tasks


def _results(bfcl_real, category):
    if bfcl_real is not None:
        for result_file in find_result_files([str(bfcl_real / "result")]):
            if result_file.category == category:
                return result_file
    return None


def _synthetic_results(bfcl_data, category):
    """Results that pass, when bfcl-real has none: the first allowed value of every argument."""
    records = []
    for entry in bfcl_data.entries(category):
        if checker_kind(category) == "relevance":
            records.append({"id": entry.id, "result": "[]" if "irrelevance" in category else
                            [{entry.functions[0]["name"]: "{}"}]})
            continue
        calls = []
        for answer in entry.ground_truth:
            name, allowed = next(iter(answer.items()))
            args = {k: next((v for v in vals if v != ""), None) for k, vals in allowed.items()}
            calls.append({name: {k: v for k, v in args.items() if v is not None}})
        records.append({"id": entry.id, "result": str(calls)})
    return ResultFile("synthetic", "synthetic", category, tuple(records))


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_episodes_scored_against_bfcl_gold_match_ek_otel_bfcl(bfcl_data, bfcl_real_optional,
                                                              tmp_path, category):
    result_file = (_results(bfcl_real_optional, category)
                   or _synthetic_results(bfcl_data, category))
    gold = tmp_path / "gold.jsonl"
    dump_tasks(bfcl_tasks(bfcl_data, category), gold)
    tasks = {task.task_id: task for task in load_tasks(gold)}

    _, expected = score_category(result_file, bfcl_data)
    got = []
    for record in result_file.records:
        episode = episode_from_result(record["id"], record["result"], category)
        got.append(bfcl_verdict_for_episode(episode, tasks[record["id"]]))
    assert [(v.id, v.valid, v.error_type, v.errors) for v in got] == \
        [(v.id, v.valid, v.error_type, v.errors) for v in expected]


@pytest.mark.parametrize("category", ["simple_javascript", "parallel_multiple", "live_multiple",
                                      "live_relevance", "multi_turn_miss_func", "memory_rec_sum",
                                      "web_search_base"])
def test_from_bfcl_loses_nothing(bfcl_data, tmp_path, category):
    from ek_otel.bfcl.gold import task_dict_from_entry
    from ek_otel.gold.native import task_to_dict

    entries = bfcl_data.entries(category)
    gold = tmp_path / "gold.jsonl"
    dump_tasks(bfcl_tasks(bfcl_data, category), gold)
    loaded = load_tasks(gold)
    assert [task_to_dict(t) for t in loaded] == [task_dict_from_entry(e) for e in entries]
    for task, entry in zip(loaded, entries):
        docs = {d["name"]: d for d in entry.functions}
        for turn in (entry.question.get("missed_function") or {}).values():
            docs.update({d["name"]: d for d in turn})
        assert {t.name for t in task.tools} == set(docs)
        assert task.meta["bfcl_id"] == entry.id and task.meta["question"] == entry.question["question"]
        if entry.answer is not None and task.turns is None:
            truth = task.meta.get("bfcl_ground_truth", entry.ground_truth)
            assert truth == entry.ground_truth
        if task.turns is not None:
            assert task.meta["bfcl_turns"] == entry.ground_truth
            assert [len(turn) for turn in task.turns] == [len(turn) for turn in entry.ground_truth]
