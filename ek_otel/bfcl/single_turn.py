"""Verdicts on single-turn entries: decode the model result, then check it as BFCL does.

- AST categories: decode failure -> ``ast_decoder:decoder_failed``; a decoded value that
  is not a list of ``{name: {params}}`` -> ``ast_decoder:decoder_wrong_output_format``;
  otherwise :func:`~ek_otel.bfcl.ast_checker.check_ast`.
- Relevance categories: ``irrelevance`` passes when there is no call (a decode failure,
  ``[]`` or ``[{}]``), ``live_relevance`` when there is one.

``Verdict.detail`` holds the fields of the official score line that follow ``valid``, in
the official order, so :mod:`ek_otel.bfcl.score_files` writes them back unchanged.

Example:
    >>> from ek_otel.bfcl.data import BfclEntry
    >>> doc = {"name": "f", "parameters": {"required": ["x"], "properties": {"x": {"type": "integer"}}}}
    >>> entry = BfclEntry("simple_python_0", "simple_python", {"id": "simple_python_0",
    ...                   "function": [doc]}, {"ground_truth": [{"f": {"x": [1]}}]})
    >>> check_single_turn(entry, [{"f": '{"x": 1}'}]).valid
    True
    >>> check_single_turn(entry, "[f(x=2)]").error_type
    'value_error:others'
    >>> check_single_turn(entry, "[f(x=").error_type
    'ast_decoder:decoder_failed'
"""

from __future__ import annotations

from typing import Any, Optional

from .ast_checker import check_ast
from .categories import is_relevance, language_of
from .data import BfclEntry
from .decode import decode_ast, is_empty_output, is_function_calling_format
from .verdict import Verdict

__all__ = ["check_single_turn", "check_relevance", "check_ast_entry", "relevance_verdict",
           "make_verdict"]

_new = object.__new__
_set = object.__setattr__


def make_verdict(entry_id: str, category: str, valid: bool, error_type: Optional[str] = None,
                 errors: tuple = (), detail: Optional[dict] = None,
                 prompt_line: Any = None) -> Verdict:
    """A :class:`Verdict`, built about 3x faster than through its frozen ``__init__``.

    Thousands are made per run; this sets the instance dict directly, to exactly the state
    ``__init__`` produces.

    Example:
        >>> make_verdict("a_1", "a", False, "t", ("m",)) == Verdict("a_1", "a", False, "t", ("m",))
        True
        >>> make_verdict("a_1", "a", True)
        Verdict(id='a_1', category='a', valid=True, error_type=None, errors=(), detail={})
    """
    verdict = _new(Verdict)
    _set(verdict, "__dict__", {"id": entry_id, "category": category, "valid": valid,
                               "error_type": error_type, "errors": errors,
                               "detail": {} if detail is None else detail,
                               "prompt_line": prompt_line})
    return verdict


def check_single_turn(entry: BfclEntry, result: Any, *, underscore_to_dot: bool = False,
                      style: Optional[str] = None, exact_ints: bool = True) -> Verdict:
    """The verdict on one single-turn entry (AST or relevance) for the model ``result``.

    ``style`` forces ``"fc"`` or ``"prompting"`` decoding; by default it follows the
    result's form (a string is prompting output). ``exact_ints=False``: the result holds
    no integer beyond 64 bits (see :func:`~ek_otel.bfcl.decode.decode_ast`).

    Example:
        >>> from ek_otel.bfcl.data import BfclEntry
        >>> e = BfclEntry("irrelevance_0", "irrelevance", {"id": "irrelevance_0", "function": []})
        >>> check_single_turn(e, []).valid, check_single_turn(e, "[f(a=1)]").error_type
        (True, 'irrelevance_error:decoder_success')
    """
    if is_relevance(entry.category):
        return check_relevance(entry, result, style=style, exact_ints=exact_ints)
    return check_ast_entry(entry, result, underscore_to_dot=underscore_to_dot, style=style,
                           exact_ints=exact_ints)


def check_relevance(entry: BfclEntry, result: Any, *, style: Optional[str] = None,
                    exact_ints: bool = True) -> Verdict:
    """Relevance/irrelevance: is there a call at all?

    Example:
        >>> from ek_otel.bfcl.data import BfclEntry
        >>> e = BfclEntry("live_relevance_0-0-0", "live_relevance", {"function": []})
        >>> check_relevance(e, [{"f": "{}"}]).valid, check_relevance(e, [{}]).valid
        (True, False)
    """
    return relevance_verdict(entry.id, entry.category, entry.question, result, style=style,
                             question_line=entry.question_line, exact_ints=exact_ints)


def relevance_verdict(entry_id: str, category: str, question: Any, result: Any, *,
                      style: Optional[str] = None, question_line: Any = None,
                      exact_ints: bool = True) -> Verdict:
    """:func:`check_relevance` from the parts of an entry; ``question`` may be a callable
    that returns it, called only when the verdict is a failure; ``question_line`` is its
    data line, when kept (:attr:`~ek_otel.bfcl.data.BfclEntry.question_line`).

    Example:
        >>> relevance_verdict("irrelevance_0", "irrelevance", lambda: {"id": 0}, "[f(a=1)]").detail["prompt"]
        {'id': 0}
    """
    decoded = None
    decode_error = None
    try:
        decoded = decode_ast(result, "python", style, exact_ints=exact_ints)
        has_call = not is_empty_output(decoded)
    except Exception as exc:  # the official decoder treats any failure as "no call"
        has_call = False
        decode_error = str(exc)
    irrelevance = "irrelevance" in category
    if has_call != irrelevance:
        return make_verdict(entry_id, category, True)
    if irrelevance:
        errors = ("Valid syntax. Successfully decode AST when it should not.",)
        error_type = "irrelevance_error:decoder_success"
    else:
        errors = (f"Invalid syntax. Failed to decode AST when it should have. {decode_error}",)
        error_type = "relevance_error:decoder_failed"
    detail = {
        "prompt": question() if callable(question) else question,
        "model_result": result,
        "decoded_result": decoded,
        "error": list(errors),
        "error_type": error_type,
    }
    return make_verdict(entry_id, category, False, error_type, errors, detail, question_line)


def check_ast_entry(entry: BfclEntry, result: Any, *, underscore_to_dot: bool = False,
                    style: Optional[str] = None, exact_ints: bool = True) -> Verdict:
    """Decode and AST-check one entry of an AST category.

    Example:
        >>> from ek_otel.bfcl.data import BfclEntry
        >>> e = BfclEntry("simple_python_1", "simple_python", {"function": []},
        ...               {"ground_truth": [{"f": {}}]})
        >>> check_ast_entry(e, "[1, 2]").error_type
        'ast_decoder:decoder_failed'
        >>> check_ast_entry(e, "f").error_type
        'ast_decoder:decoder_failed'
    """
    answers = entry.ground_truth
    language = language_of(entry.category)
    try:
        decoded = decode_ast(result, language, style, exact_ints=exact_ints)
    except Exception as exc:  # any decoder failure, as the official runner catches
        errors = (f"Invalid syntax. Failed to decode AST. {exc}",)
        detail = {
            "error": list(errors),
            "error_type": "ast_decoder:decoder_failed",
            "prompt": entry.question,
            "model_result_raw": result,
            "possible_answer": answers,
        }
        return make_verdict(entry.id, entry.category, False, "ast_decoder:decoder_failed",
                            errors, detail, entry.question_line)
    if not is_function_calling_format(decoded):
        errors = ("Did not output in the specified format. Note: the model_result is wrapped "
                  "in a string to ensure json serializability.",)
        detail = {
            "error": list(errors),
            "error_type": "ast_decoder:decoder_wrong_output_format",
            "prompt": entry.question,
            "model_result_raw": str(result),
            "model_result_decoded": str(decoded),
            "possible_answer": answers,
        }
        return make_verdict(entry.id, entry.category, False,
                            "ast_decoder:decoder_wrong_output_format", errors, detail,
                            entry.question_line)
    failure = check_ast(entry.functions, decoded, answers, entry.category, underscore_to_dot)
    if failure is None:
        return make_verdict(entry.id, entry.category, True)
    detail = {
        "error": list(failure.errors),
        "error_type": failure.error_type,
        "prompt": entry.question,
        "model_result_raw": result,
        "model_result_decoded": decoded,
        "possible_answer": answers,
    }
    return make_verdict(entry.id, entry.category, False, failure.error_type, failure.errors,
                        detail, entry.question_line)
