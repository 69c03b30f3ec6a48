"""Agentic (memory, web search) answer checking, as bfcl_eval's agentic checker."""

from __future__ import annotations

import json
import random

import pytest

from ek_otel.bfcl.agentic import (
    answer_found,
    check_agentic_entry,
    last_non_call_message,
    standardize_answer,
)


def check(result, answers, **kw):
    return check_agentic_entry("web_search_base_7", "web_search_base", result, {},
                               {"ground_truth": answers}, **kw)


def test_standardization_drops_only_the_official_punctuation_and_keeps_spaces():
    assert standardize_answer("U.S.-based (Inc.) it's 5*3^2_x/y") == 'usbased inc it"s 532xy'
    assert standardize_answer("Hello,  World!?") == "hello  world!?"


@pytest.mark.parametrize(
    "response, answer, found",
    [
        ("The answer is April 1, 2024.", "April 1 2024", True),
        ("The answer is April 1,2024.", "April 1, 2024", False),  # spaces are not removed
        ("He is Dong-Sup Yoon.", "Dongsup yoon", True),
        ("Born in Parisian suburbs", "Paris", False),  # word boundaries
        ("It costs $1,000,000", "1000000", True),
        ("answer: **42**", "42", True),
        ("x", "", True),  # an empty answer matches anything (\b\b)
    ],
)
def test_answer_matching(response, answer, found):
    assert answer_found(response, [answer]) is found


def test_any_of_several_answers_and_list_messages():
    assert answer_found(["Yoon Dong-Sup", "ignored"], ["Dong-Sup Yoon", "Yoon Dong-Sup"])
    assert answer_found({"text": "Paris"}, ["paris"])  # str() of a non-string


def test_last_non_call_message_skips_calls_and_keeps_the_last_text():
    steps = ["First thoughts.", [{"search": json.dumps({"q": "x"})}], "Final: Paris.", [{}]]
    # `[{}]` decodes to no call, so it is the last non-call message.
    assert last_non_call_message(steps, "fc") == [{}]
    assert last_non_call_message(steps[:3], "fc") == "Final: Paris."
    # For a prompting model, a string that parses as calls is a call step.
    assert last_non_call_message(["Answer: Paris", "[search(q='x')]"], "prompting") == \
        "Answer: Paris"


def test_valid_and_not_found():
    assert check([["Searching...", "The capital is Paris."]], ["Paris"]).valid
    verdict = check([["The capital is Lyon."]], ["Paris"])
    assert (verdict.valid, verdict.error_type) == (False, "agentic:answer_not_found")
    assert verdict.errors == ("None of the expected answers were found in the model response.",)
    assert verdict.detail["last_non_fc_message"] == "The capital is Lyon."
    details = verdict.detail["error"]["details"]
    assert details["standardized_model_response"] == "the capital is lyon"


def test_error_types_for_malformed_results():
    assert check("Paris", ["Paris"]).error_type == "agentic:inference_error"
    assert check([["Paris"], ["Paris"]], ["Paris"]).error_type == "agentic:inference_error"
    assert check([[]], ["Paris"]).error_type == "agentic:no_last_message"
    # Only calls: no message to read the answer from.
    only_calls = [[[{"search": json.dumps({"q": "Paris"})}]]]
    assert check(only_calls, ["Paris"]).error_type == "agentic:no_last_message"
    # An empty last message is falsy: the official reports no message either.
    assert check([["Paris", ""]], ["Paris"]).error_type == "agentic:no_last_message"


def test_style_decides_whether_a_call_like_text_is_the_answer():
    result = [["paris()"]]
    assert check(result, ["paris"], style="fc").valid  # FC: a string is never a call
    assert check(result, ["paris"], style="prompting").error_type == "agentic:no_last_message"


def test_agrees_with_the_official_agentic_checker_on_random_messages():
    official = pytest.importorskip("bfcl_eval.eval_checker.agentic_eval.agentic_checker")
    rng = random.Random(11)
    alphabet = "abcXYZ 019,./-_*^()'\"!?:;[]{}\\$é ß\n"

    def text(limit):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, limit)))

    outcomes = set()
    for _ in range(3000):
        answers = [text(8) for _ in range(rng.randint(1, 3))]
        message = text(10) + rng.choice(answers) + text(10) if rng.random() < 0.6 else text(20)
        expected = official.agentic_checker(message, answers)["valid"]
        verdict = check([["Let me look.", [{"search": json.dumps({"q": "x"})}], message]],
                        answers, style="fc")
        if message == "":  # an empty last message counts as no message at all
            assert verdict.error_type == "agentic:no_last_message"
            continue
        assert verdict.valid == expected, (message, answers)
        assert standardize_answer(message) == official.standardize_string(message)
        outcomes.add(verdict.valid)
    assert outcomes == {True, False}
