"""The official BFCL AST checker, rule for rule, with the same error types and messages.

Semantics copied from ``bfcl_eval/eval_checker/ast_eval/ast_checker.py`` (2026.3.23),
including its quirks: dispatch by category name,
first-failure order name -> required -> unexpected -> type -> value -> optional, exact
``type()`` comparison with int accepted for a Python float, the "variable" rule, one-level
nested type checks, ``standardize_string``, greedy first-fit parallel matching.

It is faster than the original: no deep copies, no per-call model-config lookups, string
standardization cached, and result dicts built only for failures.

A check returns ``None`` when valid, else a :class:`Failure` (``error_type`` + ``errors``,
the official strings).

Example:
    >>> doc = {"name": "get_weather", "parameters": {"type": "dict", "required": ["city"],
    ...        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}
    >>> answer = [{"get_weather": {"city": ["Paris", "paris, france"], "unit": ["", "celsius"]}}]
    >>> check_ast([doc], [{"get_weather": {"city": "PARIS"}}], answer, "simple_python") is None
    True
    >>> check_ast([doc], [{"get_weather": {"city": "Rome"}}], answer, "simple_python").error_type
    'value_error:string'
    >>> check_ast([doc], [{"get_weather": {"city": 3}}], answer, "simple_python").errors
    ("Incorrect type for parameter 'city'. Expected type string, got int. Parameter value: 3.",)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from .categories import language_of
from .java_js import JAVA_TYPES, JS_TYPES, java_convert, js_convert

__all__ = [
    "Failure",
    "PYTHON_TYPES",
    "standardize_string",
    "check_ast",
    "check_simple",
    "check_parallel",
    "check_multiple",
]

#: Declared Python type name -> the exact Python type a value must have.
PYTHON_TYPES = dict(string=str, integer=int, float=float, boolean=bool, array=list,
                    tuple=list, dict=dict, any=str)
_PYTHON_NESTED = ("array", "tuple")
_JAVA_JS_NESTED = ("Array", "ArrayList", "array")


class Failure(NamedTuple):
    """A failed check: the official ``error_type`` and the official ``error`` list.

    Example:
        >>> Failure("simple_function_checker:wrong_count", ("Wrong number of functions.",))[0]
        'simple_function_checker:wrong_count'
    """

    error_type: str
    errors: tuple


_WRONG_COUNT_MESSAGE = ("Wrong number of functions.",)
_STANDARD: dict = {}


def standardize_string(text: str) -> str:
    """The official ``standardize_string``: drop `` ,./-_*^``, lowercase, ``'`` -> ``"``.

    Example:
        >>> standardize_string("New York, NY"), standardize_string("It's 5.0")
        ('newyorkny', 'it"s50')
    """
    out = _STANDARD.get(text)
    if out is None:
        # str.replace per character beats both re.sub and str.translate here
        out = (text.replace(" ", "").replace(",", "").replace(".", "").replace("/", "")
               .replace("-", "").replace("_", "").replace("*", "").replace("^", "").lower())
        if "'" in out:
            out = out.replace("'", '"')
        if len(_STANDARD) < 200_000:
            _STANDARD[text] = out
    return out


def _std_if_str(value: Any) -> Any:
    return standardize_string(value) if type(value) is str else value


# ---------------------------------------------------------------------------
# Type checks
# ---------------------------------------------------------------------------


def _answer_type(allowed: Any) -> Optional[type]:
    for answer in allowed:
        if answer != "":
            return type(answer)
    return None


def _item_type_ok(value: Any, allowed_item: Any, nested: type) -> bool:
    """The inner ``type_checker`` call of a nested check (its messages are never used)."""
    if type(value) is nested:
        return True
    answer_type = _answer_type(allowed_item)
    return answer_type is not None and type(value) is answer_type


def _type_check(param, value, allowed, description, expected, nested):
    """Returns ``(failure_or_None, is_variable)`` exactly as the official ``type_checker``."""
    answer_type = None
    for answer in allowed:
        if answer != "":
            answer_type = type(answer)
            break
    is_variable = answer_type is not None and answer_type is not expected
    nested_failure = None
    if type(value) is expected:
        if nested is None:
            return None, is_variable
        for item in allowed:
            if type(item) is list:
                if all(_item_type_ok(v, item, nested) for v in value):
                    return None, is_variable
            else:
                return None, is_variable
        nested_failure = (
            f"Nested type checking failed for parameter {param!r}. Expected outer type "
            f"{description} with inner type {nested}. Parameter value: {value!r}."
        )
    if answer_type is not None and type(value) is answer_type:
        if nested_failure is not None:
            return Failure("type_error:nested", (nested_failure,)), True
        return None, True
    message = (
        f"Incorrect type for parameter {param!r}. Expected type {description}, got "
        f"{type(value).__name__}. Parameter value: {value!r}."
    )
    errors = (nested_failure, message) if nested_failure is not None else (message,)
    return Failure("type_error:simple", errors), is_variable


# ---------------------------------------------------------------------------
# Value checks
# ---------------------------------------------------------------------------


def _string_check(param, value, allowed):
    if value in allowed:  # an exact match standardizes to a match: skip the work
        return None
    standardized = standardize_string(value)
    for answer in allowed:
        if type(answer) is str and standardize_string(answer) == standardized:
            return None
    return Failure(
        "value_error:string",
        (f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}. "
         "Case insensitive.",),
    )


def _list_check(param, value, allowed):
    if value in allowed:  # equal lists stay equal once their strings are standardized
        return None
    standardized = [_std_if_str(v) for v in value]
    for answer in allowed:
        if standardized == [_std_if_str(answer[j]) for j in range(len(answer))]:
            return None
    return Failure(
        "value_error:list/tuple",
        (f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}.",),
    )


def _dict_check(value, allowed):
    failure = Failure("dict_checker:unclear", ())
    for answer in allowed:
        if answer == "":
            continue
        failure = None
        for key, item in value.items():
            if key not in answer:
                failure = Failure("value_error:dict_key", (f"Unexpected dict key parameter: '{key}'.",))
                break
            standardized_answers = [_std_if_str(a) for a in answer[key]]
            if _std_if_str(item) not in standardized_answers:
                failure = Failure(
                    "value_error:dict_value",
                    (f"Invalid value for parameter {key!r}: {item!r}. Expected one of "
                     f"{standardized_answers}.",),
                )
                break
        for key, options in answer.items():
            if key not in value and "" not in options:
                message = f"Missing dict key parameter: '{key}'."
                errors = failure.errors + (message,) if failure is not None else (message,)
                failure = Failure("value_error:dict_key", errors)
                break
        if failure is None:
            return None
    return failure


def _list_dict_check(value, allowed):
    failure = Failure("list_dict_checker:unclear", ())
    for answer in allowed:
        if len(value) != len(answer):
            failure = Failure("value_error:list_dict_count",
                              ("Wrong number of dictionaries in the list.",))
            continue
        ok = True
        for index in range(len(value)):
            failure = _dict_check(value[index], [answer[index]])
            if failure is not None:
                ok = False
                break
        if ok:
            return None
    return failure


# ---------------------------------------------------------------------------
# One call
# ---------------------------------------------------------------------------


def check_simple(doc: dict, call: dict, answer: dict, language: str = "python",
                 underscore_to_dot: bool = False) -> Optional[Failure]:
    """Check one decoded call ``{name: {param: value}}`` against one answer ``{name: {param: [allowed]}}``.

    Example:
        >>> doc = {"name": "f", "parameters": {"type": "dict", "required": ["x"],
        ...        "properties": {"x": {"type": "float"}}}}
        >>> check_simple(doc, {"f": {"x": 2}}, {"f": {"x": [2.0]}}) is None
        True
        >>> check_simple(doc, {"f": {}}, {"f": {"x": [2.0, ""]}}).error_type
        'simple_function_checker:missing_required'
    """
    for allowed_by_param in answer.values():  # the first (only) value, without iter/next
        break
    name = doc["name"]
    if underscore_to_dot and "." in name:  # _doc_name, inlined
        name = name.replace(".", "_")
    parameters = doc["parameters"]
    properties = parameters["properties"]
    if name not in call:
        return Failure("simple_function_checker:wrong_func_name",
                       (f"Function name {name!r} not found in model output.",))
    model_params = call[name]
    for param in parameters.get("required", ()):
        if param not in model_params:
            return Failure("simple_function_checker:missing_required",
                           (f"Missing required parameter: {param!r}.",))
    for param, value in model_params.items():
        if param not in properties or param not in allowed_by_param:
            return Failure("simple_function_checker:unexpected_param",
                           (f"Unexpected parameter: {param!r}.",))
        failure = _check_param(param, value, properties[param], allowed_by_param[param],
                               language)
        if failure is not None:
            return failure
    if len(model_params) == len(allowed_by_param):
        return None  # every model parameter is an answer parameter: none is missing
    for param, allowed in allowed_by_param.items():
        if param not in model_params and "" not in allowed:
            return Failure(
                "simple_function_checker:missing_optional",
                (f"Optional parameter {param!r} not provided and not marked as optional.",),
            )
    return None


def _check_param(param, value, details, allowed, language):
    description = details["type"]
    nested = None
    if language == "python":
        expected = PYTHON_TYPES[description]
        if description in _PYTHON_NESTED:
            nested = PYTHON_TYPES[details["items"]["type"]]
            if description == "tuple" and type(value) is tuple:
                value = list(value)
        elif description == "float" and type(value) is int:
            value = float(value)
    else:
        if language == "java":
            table, convert, kind = JAVA_TYPES, java_convert, "java"
        else:
            table, convert, kind = JS_TYPES, js_convert, "js"
        expected = table[description]
        if type(value) is not str:
            return Failure(
                f"type_error:{kind}",
                (f"Incorrect type for parameter {param!r}. Expected type String, got "
                 f"{type(value).__name__}. Parameter value: {value!r}.",),
            )
        if description in _JAVA_JS_NESTED:
            item_type = details["items"]["type"]
            nested = table[item_type]
            value = convert(value, description, item_type)
        else:
            value = convert(value, description)

    if nested is None and type(value) is expected:
        # Fast path, same outcome as the general one: a value of the declared type needs no
        # nested type check; only the "variable" rule can still change the value check.
        answer_type = None
        for answer in allowed:
            if answer != "":
                answer_type = type(answer)
                break
        if answer_type is None or answer_type is expected:
            if expected is str:
                return _string_check(param, value, allowed)
            if expected is dict:
                return _dict_check(value, allowed)
            if expected is list:
                return _list_check(param, value, allowed)
            if value not in allowed:
                return Failure(
                    "value_error:others",
                    (f"Invalid value for parameter {param!r}: {value!r}. Expected one of "
                     f"{allowed}.",),
                )
            return None

    failure, is_variable = _type_check(param, value, allowed, description, expected, nested)
    if failure is not None:
        return failure
    if not is_variable:
        if expected is dict:
            return _dict_check(value, allowed)
        if expected is list and nested is dict:
            return _list_dict_check(value, allowed)
        if expected is str:
            return _string_check(param, value, allowed)
        if expected is list:
            return _list_check(param, value, allowed)
    if value not in allowed:
        return Failure(
            "value_error:others",
            (f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}.",),
        )
    return None


# ---------------------------------------------------------------------------
# Several calls
# ---------------------------------------------------------------------------


_DOC_INDEX: dict = {}
_INDEX_FROM = 8  # shorter doc lists are scanned; longer ones (live data shares them) indexed


def _find_doc(docs: Any, name: str) -> Optional[dict]:
    """The first doc called ``name`` (the official ``find_description``)."""
    if type(docs) is not list:
        return docs
    if len(docs) < _INDEX_FROM:
        for doc in docs:
            if doc["name"] == name:
                return doc
        return None
    cached = _DOC_INDEX.get(id(docs))
    if cached is None or cached[0] is not docs or len(cached[1]) > len(docs):
        index: dict = {}
        for doc in docs:
            index.setdefault(doc["name"], doc)
        if len(_DOC_INDEX) > 4096:
            _DOC_INDEX.clear()
        cached = _DOC_INDEX[id(docs)] = (docs, index)
    doc = cached[1].get(name)
    if doc is not None and doc.get("name") == name:
        return doc
    _DOC_INDEX.pop(id(docs), None)  # changed since it was indexed: scan
    return next((d for d in docs if d["name"] == name), None)


def check_parallel(docs: list, calls: list, answers: list, language: str = "python",
                   underscore_to_dot: bool = False) -> Optional[Failure]:
    """Greedy first-fit matching of calls to answers (the official ``no_order`` checker).

    Example:
        >>> doc = {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}
        >>> answers = [{"f": {"x": [1]}}, {"f": {"x": [2]}}]
        >>> check_parallel([doc], [{"f": {"x": 2}}, {"f": {"x": 1}}], answers) is None
        True
        >>> check_parallel([doc], [{"f": {"x": 2}}], answers).error_type
        'parallel_function_checker_no_order:wrong_count'
    """
    if len(calls) != len(answers):
        return _WRONG_COUNT["parallel_function_checker_no_order"]
    matched: list = []
    for answer_index, answer in enumerate(answers):
        doc = _find_doc(docs, next(iter(answer)))
        all_errors: list = []
        found = False
        for index, call in enumerate(calls):
            if index in matched:
                continue
            failure = check_simple(doc, call, answer, language, underscore_to_dot)
            if failure is None:
                matched.append(index)
                found = True
                break
            all_errors.append({
                f"Model Result Index {index}": {
                    "sub_error": list(failure.errors),
                    "sub_error_type": failure.error_type,
                    "model_output_item": call,
                    "possible_answer_item": answer,
                }
            })
        if not found:
            considered = [i for i in range(len(calls)) if i not in matched]
            all_errors.insert(
                0,
                f"Could not find a matching function among index {considered} of model "
                f"output for index {answer_index} of possible answers.",
            )
            return Failure("parallel_function_checker_no_order:cannot_find_match",
                           tuple(all_errors))
    return None


def check_multiple(docs: list, calls: list, answers: list, language: str = "python",
                   underscore_to_dot: bool = False) -> Optional[Failure]:
    """Exactly as many calls as answers; the first call is checked against the first answer.

    Example:
        >>> docs = [{"name": "f", "parameters": {"properties": {}}},
        ...         {"name": "g", "parameters": {"properties": {}}}]
        >>> check_multiple(docs, [{"f": {}}], [{"g": {}}]).error_type
        'simple_function_checker:wrong_func_name'
    """
    if len(calls) != len(answers):
        return _WRONG_COUNT["multiple_function_checker"]
    doc = _find_doc(docs, next(iter(answers[0])))
    return check_simple(doc, calls[0], answers[0], language, underscore_to_dot)


_DISPATCH: dict = {}
_WRONG_COUNT = {
    kind: Failure(f"{kind}:wrong_count", _WRONG_COUNT_MESSAGE)
    for kind in ("simple_function_checker", "multiple_function_checker",
                 "parallel_function_checker_no_order")
}


def _dispatch(category: str) -> tuple:
    found = _DISPATCH.get(category)
    if found is None:
        kind = ("parallel" if "parallel" in category
                else "multiple" if "multiple" in category else "simple")
        found = _DISPATCH[category] = (kind, language_of(category))
    return found


def check_ast(docs: list, calls: list, answers: list, category: str,
              underscore_to_dot: bool = False) -> Optional[Failure]:
    """Check decoded ``calls`` against the possible ``answers`` of a single-turn AST category.

    Dispatch is by category name, as in the official checker: ``parallel`` -> greedy
    first-fit, else ``multiple`` -> :func:`check_multiple`, else exactly one call checked
    against the first function doc.

    Example:
        >>> doc = {"name": "f", "parameters": {"properties": {}}}
        >>> check_ast([doc], [], [{"f": {}}], "simple_python").error_type
        'simple_function_checker:wrong_count'
    """
    kind, language = _dispatch(category)
    if kind == "parallel":
        return check_parallel(docs, calls, answers, language, underscore_to_dot)
    if len(calls) != len(answers) if kind == "multiple" else len(calls) != 1:
        return _WRONG_COUNT["multiple_function_checker" if kind == "multiple"
                            else "simple_function_checker"]
    if kind == "multiple":
        doc = _find_doc(docs, next(iter(answers[0])))
        return check_simple(doc, calls[0], answers[0], language, underscore_to_dot)
    return check_simple(docs[0], calls[0], answers[0], language, underscore_to_dot)
