"""Framework-internal tools: removed before matching, neither TP nor FP, in every entry point."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
from ek_otel import evaluate
from ek_otel.core.evaluate import score_episode
from ek_otel.core.ignore import check_ignore_patterns, is_ignored, without_ignored

TASK = TaskSpec("t", gold=[("search", {"q": "cats"})])


def run(*steps):
    return Episode("t", Trajectory(list(steps)))


@pytest.mark.parametrize("name, patterns, ignored", [
    ("final_answer", ["final_answer"], True),
    ("final_answer_2", ["final_answer"], False),       # exact names are exact
    ("Final_Answer", ["final_answer"], False),          # and case-sensitive
    ("transfer_to_billing", ["transfer_to_*"], True),
    ("transfer_to_", ["transfer_to_*"], True),
    ("my_transfer_to_x", ["transfer_to_*"], False),     # anchored at the start
    ("agent.think", ["*think"], True),
    ("a.b", ["a?b"], False),                            # only * is special
    ("a?b", ["a?b"], True),
])
def test_patterns(name, patterns, ignored):
    assert is_ignored(name, patterns) is ignored


def test_ignored_calls_are_neither_true_nor_false_positives():
    episode = run(Step("search", {"q": "cats"}), Step("final_answer", {"answer": "x"}),
                  Step("transfer_to_billing"))
    plain = score_episode(episode, TASK)
    assert (plain.tp, plain.fp, plain.exact) == (1.0, 2.0, False)
    score = score_episode(episode, TASK, ignore_tools=["final_answer", "transfer_to_*"])
    assert (score.tp, score.fp, score.fn, score.exact) == (1.0, 0.0, 0.0, True)
    assert score.settings["ignored_calls"] == 2
    assert score.explanation.endswith("ignored: final_answer, transfer_to_billing")


def test_an_ignored_call_without_arguments_does_not_mark_the_run_uncaptured():
    episode = run(Step("search", {"q": "cats"}), Step("final_answer", args_captured=False))
    assert score_episode(episode, TASK).settings["args_captured"] is False
    assert score_episode(episode, TASK, ignore_tools=["final_answer"]).settings["args_captured"] is True


def test_the_task_and_the_caller_lists_are_a_union():
    task = TaskSpec("t", gold=[("search", {"q": "cats"})], ignore_tools=("think",))
    episode = run(Step("think"), Step("search", {"q": "cats"}), Step("final_answer"), Step("think"))
    score = score_episode(episode, task, ignore_tools=["final_answer"])
    assert (score.fp, score.exact) == (0.0, True)
    assert score.explanation.endswith("ignored: think x2, final_answer")
    assert score.settings["ignore_tools"] == ["final_answer", "think"]


def test_scores_without_ignore_keep_their_settings_shape():
    assert "ignore_tools" not in score_episode(run(Step("search", {"q": "cats"})), TASK).settings


def test_evaluate_takes_and_records_ignore_tools():
    episodes = [run(Step("search", {"q": "cats"}), Step("final_answer"))] * 2
    report = evaluate(episodes, [TASK], ignore_tools=["final_answer"])
    assert (report.f1, report.exact_rate, report.settings["ignore_tools"]) == (1.0, 1.0, ["final_answer"])
    assert "ignore_tools" not in evaluate(episodes, [TASK]).settings
    with pytest.raises(ValueError, match="would ignore every call"):
        evaluate(episodes, [TASK], ignore_tools=["**"])


def test_without_ignored_keeps_everything_else_of_the_episode():
    episode = Episode("t", Trajectory([Step("a"), Step("b")]), output="done", meta={"k": 1})
    kept, ignored = without_ignored(episode, ["b"])
    assert (kept.trajectory.tools, kept.output, kept.meta, ignored) == (("a",), "done", {"k": 1}, ("b",))


def test_check_patterns_refuses_a_string_and_blank_names():
    with pytest.raises(ValueError, match="got a string"):
        check_ignore_patterns("final_answer")
    with pytest.raises(ValueError, match="non-empty"):
        check_ignore_patterns(["  "])


# -- on spans of the real frameworks (tests/ingest/corpus): their own tools, e.g. smolagents'
# final_answer, are recorded as any other call; ignored, the run scores as the task's calls alone.

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from ek_otel.core.episode import AnyOf  # noqa: E402
from ek_otel.ingest.bad_input import BadInputReport  # noqa: E402
from ek_otel.pipeline import read_episodes  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "corpus"
WITH_INTERNAL_TOOLS = sorted(
    p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file()
    and json.loads((p / "expected.json").read_text())["records"].get("internal_tools"))


@pytest.mark.parametrize("scenario", WITH_INTERNAL_TOOLS)
def test_a_frameworks_own_tools_are_ignored_on_its_real_spans(scenario):
    expected = json.loads((CORPUS / scenario / "expected.json").read_text())
    internal = expected["records"]["internal_tools"]
    (episode,) = read_episodes(sorted(str(p) for p in (CORPUS / scenario).glob("*.pb")),
                               report=BadInputReport())
    assert any(step.tool in internal for step in episode.trajectory)
    task = TaskSpec(expected["task_id"], gold=[
        (c["tool"], {k: AnyOf((v,)) for k, v in c["args"].items()})
        for c in expected["calls"] if c["tool"] not in internal])
    plain = score_episode(episode, task, level="arg")
    ignored = score_episode(episode, task, level="arg", ignore_tools=internal)
    assert plain.fp > 0 and not plain.exact
    assert (ignored.fp, ignored.fn, ignored.exact) == (0.0, 0.0, True)


@settings(max_examples=2000, derandomize=True, database=None)
@given(st.text(alphabet="ab.\n*", min_size=1, max_size=12), st.text(alphabet="ab.\n", max_size=14))
def test_glob_match_agrees_with_fnmatch(pattern, name):
    from fnmatch import fnmatchcase

    from ek_otel.core.ignore import glob_match

    assert glob_match(pattern, name) == fnmatchcase(name, pattern)


def test_a_many_star_glob_never_backtracks():
    from ek_otel.core.ignore import glob_match, is_ignored

    # *a*a*a*a*a*a*a*b on a backtracking matcher costs about n**7 on this name: never ends
    assert not is_ignored("a" * 100_000, ["*a*a*a*a*a*a*a*b"])
    assert glob_match("*a*a*a*a*a*a*a*b", "a" * 100_000 + "b")
