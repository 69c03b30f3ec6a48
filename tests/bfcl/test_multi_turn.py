"""Multi-turn checking: decoding, the simulator (state mode) and the AST mode."""

from __future__ import annotations

import ast
import json
import math
import random

import pytest

from ek_otel.bfcl import multi_turn, simulator
from ek_otel.bfcl.data import BfclData
from ek_otel.bfcl.multi_turn import (
    check_multi_turn_entry,
    decode_multi_turn_result,
    entry_style,
    unordered_missing,
)
from ek_otel.bfcl.official import OfficialFcHandler
from ek_otel.bfcl.score_files import json_safe
from ek_otel.bfcl.simulator import (
    SimulatedPair,
    SimulatorUnavailable,
    instance_global_name,
    simulator_available,
)
from ek_otel.errors import BfclDataError

needs_simulator = pytest.mark.skipif(
    not simulator_available(),
    reason="bfcl_eval simulated APIs not importable "
    "(pip install --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0)",
)

FS_CONFIG = {
    "GorillaFileSystem": {
        "root": {
            "alex": {
                "type": "directory",
                "contents": {
                    "docs": {
                        "type": "directory",
                        "contents": {"a.txt": {"type": "file", "content": "hello world"}},
                    },
                    "notes.txt": {"type": "file", "content": "b\na\n"},
                },
            }
        }
    }
}


def fs_question(entry_id: str = "multi_turn_base_900") -> dict:
    return {"id": entry_id, "involved_classes": ["GorillaFileSystem", "MathAPI"],
            "initial_config": FS_CONFIG}


def fc(name: str, **args) -> dict:
    """One function-calling item, as FC handlers write it."""
    return {name: json.dumps(args)}


def check(result, ground_truth, *, mode="state", entry_id="multi_turn_base_900", **kw):
    return check_multi_turn_entry(entry_id, entry_id.rsplit("_", 1)[0], result,
                                  fs_question(entry_id), {"ground_truth": ground_truth},
                                  mode=mode, **kw)


# -- decoding ------------------------------------------------------------------------------


def test_fc_steps_decode_and_text_or_broken_steps_are_dropped():
    result = [[[fc("cd", folder="docs")], "I moved into docs.", [{"ls": "{not json"}], []],
              [[fc("pwd"), fc("ls", a=True)]]]
    assert decode_multi_turn_result(result, "fc") == [
        [["cd(folder='docs')"]],
        [["pwd()", "ls(a=True)"]],
    ]


def test_prompting_steps_decode_and_chatter_is_dropped():
    result = [["[cd(folder='docs'), cat(file_name='a.txt')]", "Sure, here you go."]]
    assert decode_multi_turn_result(result, "prompting") == [
        [["cd(folder='docs')", "cat(file_name='a.txt')"]]
    ]


def test_style_is_read_from_the_result_form():
    assert entry_style([[[fc("ls")]]]) == "fc"
    assert entry_style([["[ls()]"]]) == "prompting"
    # A text step that happens to parse as a call is dropped for an FC model...
    assert decode_multi_turn_result([[[fc("pwd")], "ls()"]], "fc") == [[["pwd()"]]]
    # ...and kept for a prompting model.
    assert decode_multi_turn_result([["ls()"]], "prompting") == [[["ls()"]]]


def test_unordered_missing_is_a_multiset_difference():
    assert unordered_missing(["x", "x"], ["x"]) == ["x"]
    assert unordered_missing(["x", "y"], ["y", "x", "z"]) == []


# -- entry-level errors ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["state", "ast"])
def test_turn_count_and_result_type_errors(mode):
    if mode == "state" and not simulator_available():
        pytest.skip("bfcl_eval simulated APIs not importable")
    short = check([[[fc("pwd")]]], [["pwd()"], ["ls()"]], mode=mode)
    assert (short.valid, short.error_type) == (False, "multi_turn:force_terminated")
    assert "(1) does not match the length of the ground truth turns (2)" in short.errors[0]
    bad = check({"not": "a list"}, [["pwd()"]], mode=mode)
    assert bad.error_type == "multi_turn:inference_error"


# -- simulator ------------------------------------------------------------------------------


@needs_simulator
def test_simulator_runs_methods_and_mirrors_official_error_strings():
    pair = SimulatedPair.create(["GorillaFileSystem", "MathAPI"], FS_CONFIG,
                                entry_id="multi_turn_base_900")
    results = pair.model.execute([
        "cd(folder='docs')",
        "cat(file_name='a.txt')",
        "mean(numbers=[1, 2, 6])",
        "nosuch(x=1)",
        "cat(file_name='a.txt', bogus=1)",
        "remove(x=1)",
        "cd(folder=nan)",
        "json(indent=2)",
        "print(end='')",
        "len(obj=[1])",
    ])
    assert results[0] == '{"current_working_directory": "docs"}'
    assert results[1] == '{"file_content": "hello world"}'
    assert results[2] == '{"result": 3.0}'
    assert results[3] == "Error during execution: name 'nosuch' is not defined"
    assert results[4] == ("Error during execution: GorillaFileSystem.cat() got an "
                          "unexpected keyword argument 'bogus'")
    assert results[5] == "Error during execution: Function call remove is not allowed."
    assert results[6] == "Error during execution: name 'nan' is not defined"
    # Names eval would find in the official executor's namespace, and builtins:
    assert results[7] == "Error during execution: 'module' object is not callable"
    assert results[8] == "None"
    assert results[9] == "Error during execution: len() takes no keyword arguments"


@needs_simulator
def test_simulator_never_evaluates_arbitrary_python():
    pair = SimulatedPair.create(["GorillaFileSystem"], FS_CONFIG, entry_id="multi_turn_base_900")
    attacks = [
        "__import__(name='os')",
        "open(file='/etc/passwd')",
        "cd(folder=().__class__)",
        "pwd().__class__.__subclasses__()",
        "cd(folder=[x for x in 'ab'])",
        "cd(folder=(lambda: 'docs')())",
    ]
    for result in pair.model.execute(attacks):
        assert result.startswith("Error during execution: ek-otel does not execute"), result
    assert pair.model.execute(["pwd()"]) == ['{"current_working_directory": "/alex"}']


@needs_simulator
def test_method_names_inside_string_arguments_are_rewritten_as_officially():
    # The official regex prefixes every `<method>(` of the text, string literals included.
    pair = SimulatedPair.create(["GorillaFileSystem"], FS_CONFIG,
                                entry_id="multi_turn_base_900", model_name="m-1")
    pair.model.execute(["touch(file_name='x.txt')",
                        "echo(content='run ls(now)', file_name='x.txt')"])
    content = pair.model.execute(["cat(file_name='x.txt')"])[0]
    prefix = instance_global_name("m-1", "multi_turn_base_900", "GorillaFileSystem")
    assert json.loads(content)["file_content"] == f"run {prefix}.ls(now)"


@needs_simulator
def test_fresh_instances_for_every_check():
    result = [[[fc("cd", folder="docs"), fc("mkdir", dir_name="new")]]]
    answer = [["cd(folder='docs')", "mkdir(dir_name='new')"]]
    first = check(result, answer)
    second = check(result, answer)  # the official would reuse the mutated instances here
    assert first.valid and second.valid


# -- state mode ---------------------------------------------------------------------------


@needs_simulator
def test_state_mode_passes_an_equivalent_but_different_call_sequence():
    answer = [["cd(folder='docs')", "mkdir(dir_name='new')"], ["cd(folder='new')"]]
    result = [
        [[fc("ls")], [fc("cd", folder="docs")], "Now creating it.", [fc("mkdir", dir_name="new")]],
        [[fc("cd", folder="new")]],
    ]
    assert check(result, answer).valid


@needs_simulator
def test_state_mismatch_is_reported_with_the_class_name_and_differences():
    verdict = check([[[fc("cd", folder="docs"), fc("mkdir", dir_name="old")]]],
                    [["cd(folder='docs')", "mkdir(dir_name='new')"]])
    assert verdict.error_type == "multi_turn:instance_state_mismatch"
    assert verdict.errors == ("Model instance for GorillaFileSystem does not match the state "
                              "with ground truth instance.",)
    assert "root" in verdict.detail["error"]["details"]["differences"]
    json.dumps(verdict.detail)  # JSON-safe


@needs_simulator
def test_execution_response_mismatch_when_a_read_is_missing():
    # Same final state, but the answer's `cat` output never appears among the model's results.
    verdict = check([[[fc("cd", folder="docs")]]],
                    [["cd(folder='docs')", "cat(file_name='a.txt')"]])
    assert verdict.error_type == "multi_turn:execution_response_mismatch"
    missing = verdict.detail["error"]["details"]["missing_items"]
    assert missing == ['{"file_content": "hello world"}']


@needs_simulator
def test_results_from_earlier_turns_count_for_later_turns():
    answer = [["cd(folder='docs')"], ["cat(file_name='a.txt')"]]
    # The model read the file one turn early and does something harmless in turn 2.
    result = [[[fc("cd", folder="docs"), fc("cat", file_name="a.txt")]], [[fc("pwd")]]]
    assert check(result, answer).valid


@needs_simulator
def test_empty_turn_and_empty_answer_turns():
    answer = [["cd(folder='docs')"], [], ["mkdir(dir_name='new')"]]
    no_step = check([[[fc("cd", folder="docs")]], [], ["Cannot do that."]], answer)
    assert no_step.error_type == "multi_turn:empty_turn_model_response"
    assert no_step.errors == ("Model response list is empty for turn 2",)
    # Calls made in an empty-answer turn are not checked there, but they still run, so
    # their effect on the state shows at the next checked turn.
    extra = check([[[fc("cd", folder="docs")]], [[fc("touch", file_name="z")]],
                   [[fc("mkdir", dir_name="new")]]], answer)
    assert extra.error_type == "multi_turn:instance_state_mismatch"
    quiet = check([[[fc("cd", folder="docs")]], [], [[fc("mkdir", dir_name="new")]]], answer)
    assert quiet.valid


@needs_simulator
def test_long_context_flag_comes_from_the_entry_id():
    answer = [["cd(folder='docs')", "ls()"]]
    result = [[[fc("cd", folder="docs"), fc("ls")]]]
    pair = SimulatedPair.create(["GorillaFileSystem"], FS_CONFIG,
                                entry_id="multi_turn_long_context_900")
    listing = json.loads(pair.model.execute(["cd(folder='docs')", "ls()"])[1])
    assert len(listing["current_directory_content"]) > 1  # populated with extra files
    assert check(result, answer, entry_id="multi_turn_long_context_900").valid


# -- AST mode -----------------------------------------------------------------------------


def test_ast_mode_scores_turns_in_order():
    answer = [["cd(folder='docs')", "mkdir(dir_name='new')"], ["pwd()"], []]
    result = [[[fc("mkdir", dir_name="new"), fc("cd", folder="docs")]], [[fc("pwd")]], []]
    verdict = check(result, answer, mode="ast")
    assert verdict.valid is False
    assert verdict.error_type == "multi_turn_ast:turn_mismatch"
    assert verdict.detail["turn_exact"] == [False, True, True]
    assert verdict.detail["episode_success"] is False
    assert verdict.detail["tool_recall"] == 1.0  # right tools, wrong order


def test_ast_mode_success_and_recall():
    answer = [["cd(folder='docs')"], ["cat(file_name='a.txt')", "pwd()"]]
    good = check([[[fc("cd", folder="docs")]], [[fc("cat", file_name="a.txt")], [fc("pwd")]]],
                 answer, mode="ast")
    assert good.valid and good.detail == {"turn_exact": [True, True], "episode_success": True,
                                          "tool_recall": 1.0}
    partial = check([[[fc("cd", folder="docs")]], [[fc("ls")]]], answer, mode="ast")
    assert partial.detail["tool_recall"] == pytest.approx(1 / 3)
    empty = check([[[fc("cd", folder="docs")]], ["no calls"]], answer, mode="ast")
    assert empty.error_type == "multi_turn:empty_turn_model_response"


@needs_simulator
def test_mutable_default_arguments_do_not_leak_between_checks():
    # TwitterAPI.post_tweet(mentions=[]) shares its default list; `mention` extends it.
    config = {"TwitterAPI": {"username": "u", "password": "p", "authenticated": True,
                             "tweet_counter": 0}}
    first = SimulatedPair.create(["TwitterAPI"], config, entry_id="multi_turn_base_901")
    first.model.execute(["post_tweet(content='a')",
                         "mention(tweet_id=0, mentioned_usernames=['@x'])"])
    # Within one check both sides share the default, as in a fresh official process...
    assert json.loads(first.ground_truth.execute(["post_tweet(content='b')"])[0])[
        "mentions"] == ["@x"]
    # ...but the next check starts from a pristine default (the official's does not).
    second = SimulatedPair.create(["TwitterAPI"], config, entry_id="multi_turn_base_902")
    assert json.loads(second.model.execute(["post_tweet(content='c')"])[0])["mentions"] == []


# -- differential check against the official checker ---------------------------------------


def _fuzzed_result(ground_truth, rng):
    """A plausible, imperfect FC result for an entry: calls dropped, mangled, shuffled."""
    odd_values = [None, 0, -1, "ls(x)", [], {}, 1.5, True, math.nan, "../x"]
    odd_names = ["GorillaFileSystem.cd", "functions.ls", "print", "len", "nosuch", "exit",
                 "remove", "json", "mean", "ls", "cd", "pwd", "model_name"]
    turns = []
    for turn in ground_truth:
        calls = []
        for text in turn:
            if rng.random() < 0.1:
                continue
            tree = ast.parse(text, mode="eval").body
            name = ast.unparse(tree.func)
            kwargs = {k.arg: ast.literal_eval(k.value) for k in tree.keywords}
            for position, arg in enumerate(tree.args):
                kwargs[f"p{position}" if rng.random() < 0.3 else "file_name"] = \
                    ast.literal_eval(arg)
            roll = rng.random()
            if roll < 0.15:
                name = rng.choice(odd_names)
            elif roll < 0.3 and kwargs:
                kwargs[rng.choice(sorted(kwargs))] = rng.choice(odd_values)
            elif roll < 0.4:
                kwargs["bogus"] = 1
            calls.append({name: json.dumps(kwargs)})
        if rng.random() < 0.2:
            rng.shuffle(calls)
        steps = []
        while calls:
            size = rng.randint(1, 3)
            steps.append(calls[:size])
            calls = calls[size:]
        if rng.random() < 0.3:
            steps.append("Done, anything else?")
        if rng.random() < 0.1:
            steps.append([{"broken": "not json"}])
        turns.append(steps)
    return turns


@needs_simulator
def test_state_mode_agrees_with_the_official_checker_on_fuzzed_results(capsys):
    checker = pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker")
    utils = pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils")
    posting = pytest.importorskip(
        "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api")
    official_decode = OfficialFcHandler().decode_execute  # bfcl_eval's convert_to_function_call
    try:
        data = BfclData.locate()
    except BfclDataError as exc:
        pytest.skip(f"no BFCL data: {exc}")
    rng = random.Random(2026)
    checked = failed = 0
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                     "multi_turn_long_context"):
        for entry in data.entries(category)[::3]:
            result = _fuzzed_result(entry.ground_truth, rng)
            ours = check_multi_turn_entry(entry.id, category, result, entry.question,
                                          entry.answer, mode="state", style="fc",
                                          model_name="fuzz")
            decoded = []
            for turn in result:
                steps = []
                for step in turn:
                    try:
                        calls = official_decode(step, False)
                    except Exception:
                        continue
                    if calls:
                        steps.append(calls)
                decoded.append(steps)
            # A fresh official process: no cached instances, pristine default arguments.
            for name in [n for n in vars(utils) if n.endswith("_instance")]:
                del vars(utils)[name]
            posting.TwitterAPI.post_tweet.__defaults__ = ([], [])
            official = checker.multi_turn_checker(decoded, entry.ground_truth,
                                                  dict(entry.question), category, "fuzz")
            assert ours.detail.get("model_result_decoded", decoded) == decoded
            assert ours.valid == official["valid"], entry.id
            if not ours.valid:
                failed += 1
                expected = json.loads(json.dumps(json_safe(
                    {k: v for k, v in official.items() if k != "valid"})))
                assert json.loads(json.dumps(ours.detail["error"])) == expected, entry.id
            checked += 1
    capsys.readouterr()  # the official executor really prints for `print(...)` calls
    assert checked > 200 and 0 < failed < checked


def _as_prompting_text(step, rng):
    """An FC step re-written as a prompting model writes it, in one of several layouts."""
    if not isinstance(step, list):
        return step
    calls = []
    for item in step:
        for name, arguments in item.items():
            try:
                args = json.loads(arguments)
            except ValueError:
                return f"[{name}(x=)]"  # broken syntax: the step is dropped
            parts = [f"{k}={v!r}" if not (isinstance(v, float) and math.isnan(v))
                     else f"{k}=float('nan')" for k, v in args.items()]
            if rng.random() < 0.05:
                parts.insert(0, "'positional'")
            calls.append(f"{name}(" + rng.choice([", ", ","]).join(parts) + ")")
    body = rng.choice([", ", ",\n"]).join(calls)
    return rng.choice([f"[{body}]", body, f"```\n[{body}]\n```", f"```python\n{body}\n```",
                       f" [{body}] "])


@needs_simulator
def test_state_mode_agrees_with_the_official_checker_on_prompting_results(capsys):
    checker = pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker")
    utils = pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils")
    posting = pytest.importorskip(
        "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api")
    try:
        from bfcl_eval.model_handler.utils import default_decode_execute_prompting
    except ImportError as exc:
        pytest.skip(f"the official prompting decoder needs {exc.name}")
    try:
        data = BfclData.locate()
    except BfclDataError as exc:
        pytest.skip(f"no BFCL data: {exc}")
    rng = random.Random(7)
    checked = failed = 0
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                     "multi_turn_long_context"):
        for entry in data.entries(category)[1::4]:
            result = [[_as_prompting_text(step, rng) for step in turn]
                      for turn in _fuzzed_result(entry.ground_truth, rng)]
            if result and rng.random() < 0.1:
                result[0].append("[]")
            ours = check_multi_turn_entry(entry.id, category, result, entry.question,
                                          entry.answer, mode="state", style="prompting",
                                          model_name="fuzz")
            decoded = []
            for turn in result:
                steps = []
                for step in turn:
                    try:
                        calls = default_decode_execute_prompting(step)
                    except Exception:
                        continue
                    if calls and not (len(calls) == 1 and not calls[0]):
                        steps.append(calls)
                decoded.append(steps)
            for name in [n for n in vars(utils) if n.endswith("_instance")]:
                del vars(utils)[name]
            posting.TwitterAPI.post_tweet.__defaults__ = ([], [])
            official = checker.multi_turn_checker(decoded, entry.ground_truth,
                                                  dict(entry.question), category, "fuzz")
            assert ours.detail.get("model_result_decoded", decoded) == decoded, entry.id
            assert ours.valid == official["valid"], entry.id
            if not ours.valid:
                failed += 1
                assert ours.error_type == official["error_type"], entry.id
            checked += 1
    capsys.readouterr()
    assert checked > 150 and 0 < failed < checked


def test_without_the_simulator_state_mode_fails_clearly_and_ast_is_the_default(monkeypatch):
    monkeypatch.setattr(simulator, "_CLASS_CACHE", {})
    monkeypatch.setitem(simulator.BACKEND_MODULES, "GorillaFileSystem",
                        "ek_otel_no_such_module.gorilla_file_system")
    assert simulator.simulator_available() is False
    assert multi_turn.default_mode() == "ast"
    with pytest.raises(SimulatorUnavailable, match="pip install --no-deps bfcl-eval"):
        check([[[fc("pwd")]]], [["pwd()"]], mode="state")
    assert check([[[fc("pwd")]]], [["pwd()"]], mode=None).detail["turn_exact"] == [True]
