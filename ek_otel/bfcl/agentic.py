"""Agentic BFCL entries (memory_*, web_search_*): is the expected answer in the last message?

Note to the runner (bfcl-single): call
``check_agentic_entry(entry_id, category, model_result, question_entry,
possible_answer_entry, *, style=None)`` with ``model_result`` the raw ``result`` field and
the parsed data entries (only ``possible_answer_entry["ground_truth"]``, a list of accepted
answer strings, is read). Memory result ids are ``memory_<backend>_...`` while the data
file says ``memory_...``; the official aligns answers by position, as ``BfclData.entries``
does. For a failure, ``Verdict.detail`` is the official score line from ``error`` on, in
the official order and JSON-safe (``error``, ``prompt``, ``model_result_raw``,
``last_non_fc_message``, ``possible_answer``); only the record's ``inference_log`` is left
for the runner to append.

Mirrors ``_evaluate_single_agentic_entry`` and ``agentic_checker`` of bfcl_eval:

1. the result must be a list of exactly one element (the single turn), else
   ``agentic:inference_error``;
2. each step of that turn goes through the handler's ``decode_execute``; a step that fails
   to decode or decodes to no call is a candidate "last non-function-call message", the
   last one wins; when there is none, or it is falsy (``""``, ``[]``),
   ``agentic:no_last_message``;
3. the message (its first element if it is a list, ``str()`` of anything else) and every
   accepted answer are standardized — ``,./-_*^()`` deleted, lowercased, ``'`` → ``"``;
   whitespace is kept — and an answer must occur delimited by regex word boundaries
   (``\\b<answer>\\b``), else ``agentic:answer_not_found``.

Example:
    >>> answer = {"ground_truth": ["Dong-Sup Yoon", "Yoon Dong-Sup"]}
    >>> v = check_agentic_entry("web_search_base_2", "web_search_base",
    ...                         [["The president is **Dong-Sup Yoon**."]], {}, answer)
    >>> v.valid
    True
    >>> check_agentic_entry("web_search_base_2", "web_search_base",
    ...                     [["I do not know."]], {}, answer).error_type
    'agentic:answer_not_found'
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from .decode import decode_execute
from .multi_turn import entry_style
from .score_files import json_safe
from .verdict import Verdict

__all__ = ["standardize_answer", "answer_found", "last_non_call_message", "check_agentic_entry"]

_PUNCTUATION = re.compile(r"[\,\.\/\-\_\*\^\(\)]")


def standardize_answer(text: str) -> str:
    """The agentic checker's standardization: drop ``,./-_*^()``, lowercase, ``'`` → ``"``.

    Example:
        >>> standardize_answer("April 1, 2024 (Mon.)")
        'april 1 2024 mon'
    """
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def answer_found(model_response: Any, possible_answers: list) -> bool:
    """Whether one standardized answer occurs, on word boundaries, in the response.

    Example:
        >>> answer_found(["Paris, France."], ["paris"]), answer_found("Parisian", ["Paris"])
        (True, False)
    """
    return _find(_response_text(model_response), possible_answers)


def _response_text(model_response: Any) -> str:
    if type(model_response) is list:
        model_response = model_response[0]
    if type(model_response) is not str:
        model_response = str(model_response)
    return model_response


def _find(response: str, possible_answers: list) -> bool:
    standardized = standardize_answer(response)
    return any(
        re.search(rf"\b{re.escape(standardize_answer(answer))}\b", standardized)
        for answer in possible_answers
    )


def last_non_call_message(steps: Any, style: str) -> Any:
    """The last step that fails to decode as calls (or decodes to none); None if none.

    Returns the step itself (a string, usually).

    Example:
        >>> last_non_call_message([[{"search": '{"q": "x"}'}], "It is 42."], "fc")
        'It is 42.'
        >>> last_non_call_message([[{"search": '{"q": "x"}'}]], "fc") is None
        True
    """
    return _scan_steps(steps, style)[0]


def _scan_steps(steps: Any, style: str) -> tuple:
    """``(last non-call message or None, decoded call steps)``."""
    last = None
    decoded = []
    try:
        steps = list(steps)
    except TypeError:
        return None, decoded
    for step in steps:
        try:
            calls = decode_execute(step, style)
        except Exception:
            last = step
            continue
        if len(calls) == 0 or (len(calls) == 1 and len(calls[0]) == 0):
            last = step
            continue
        decoded.append(calls)
    return last, decoded


def check_agentic_entry(entry_id: str, category: str, model_result: Any,
                        question_entry: Mapping[str, Any],
                        possible_answer_entry: Mapping[str, Any], *,
                        style: Optional[str] = None) -> Verdict:
    """Check one memory/web-search entry, as ``_evaluate_single_agentic_entry`` does.

    ``style`` is the handler kind (``"fc"``/``"prompting"``), None to infer it from the
    result (:func:`~ek_otel.bfcl.multi_turn.entry_style`).

    Example:
        >>> check_agentic_entry("memory_kv_1", "memory_kv", [[]], {},
        ...                     {"ground_truth": ["x"]}).error_type
        'agentic:no_last_message'
        >>> check_agentic_entry("memory_kv_1", "memory_kv", [["a"], ["b"]], {},
        ...                     {"ground_truth": ["x"]}).error_type
        'agentic:inference_error'
    """
    possible_answers = list(possible_answer_entry["ground_truth"])
    prompt = {k: v for k, v in question_entry.items() if k != "function"}
    if type(model_result) is not list or len(model_result) != 1:
        return _failure(entry_id, category, "agentic:inference_error",
                        ["Error during inference phase. Model did not output a list of model "
                         "responses."],
                        {"prompt": prompt, "model_result": model_result,
                         "possible_answer": possible_answers})
    message, decoded = _scan_steps(model_result[0], style or entry_style(model_result))
    if not message:
        return _failure(entry_id, category, "agentic:no_last_message",
                        ["Cannot find the last chat message that is not a function call."],
                        {"prompt": prompt, "model_result": model_result,
                         "model_result_decoded": decoded,
                         "possible_answer": possible_answers})
    response = _response_text(message)
    if _find(response, possible_answers):
        return Verdict(id=entry_id, category=category, valid=True)
    return _failure(
        entry_id, category, "agentic:answer_not_found",
        "None of the expected answers were found in the model response.",
        {
            "prompt": question_entry.get("question"),
            "model_result_raw": model_result,
            "last_non_fc_message": message,
            "possible_answer": possible_answers,
        },
        details={
            "model_response": response,
            "possible_answers": possible_answers,
            "standardized_model_response": standardize_answer(response),
            "standardized_possible_answers": [standardize_answer(a) for a in possible_answers],
        },
    )


def _failure(entry_id: str, category: str, error_type: str, message: Any,
             fields: Mapping[str, Any], *, details: Optional[Mapping[str, Any]] = None
             ) -> Verdict:
    """A failed verdict whose ``detail`` is the official score line after ``valid``."""
    error = {"error_message": message, "error_type": error_type}
    if details is not None:
        error["details"] = dict(details)
    messages = tuple(message) if isinstance(message, list) else (message,)
    return Verdict(id=entry_id, category=category, valid=False, error_type=error_type,
                   errors=messages, detail=json_safe({"error": error, **fields}))
