"""Agentic (memory, web search) answer checking, as bfcl_eval's agentic checker."""

from __future__ import annotations

import json

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
    assert verdict.detail["error"]["details"]["standardized_model_response"] == "the capital is lyon"


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
