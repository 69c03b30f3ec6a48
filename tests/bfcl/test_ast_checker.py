"""The AST checker's rules and quirks, one by one."""

from __future__ import annotations

from ek_otel.bfcl.ast_checker import check_ast, check_parallel, check_simple, standardize_string


def doc(name="f", required=(), **props):
    return {"name": name, "parameters": {"type": "dict", "required": list(required),
                                         "properties": props}}


def error_type(failure):
    return None if failure is None else failure.error_type


def test_required_comes_before_empty_string_optionality():
    d = doc(required=["x"], x={"type": "integer"})
    assert error_type(check_simple(d, {"f": {}}, {"f": {"x": [1, ""]}})) == \
        "simple_function_checker:missing_required"


def test_types_are_exact_but_int_is_accepted_for_a_float():
    d = doc(x={"type": "float"}, n={"type": "integer"})
    answer = {"f": {"x": [2.0], "n": [1]}}
    assert check_simple(d, {"f": {"x": 2, "n": 1}}, answer) is None
    assert error_type(check_simple(d, {"f": {"x": 2.0, "n": True}}, answer)) == "type_error:simple"
    assert error_type(check_simple(d, {"f": {"x": 2.0, "n": 1.0}}, answer)) == "type_error:simple"


def test_a_variable_answer_accepts_its_own_type_and_compares_exactly():
    d = doc(x={"type": "integer"})
    assert check_simple(d, {"f": {"x": "n"}}, {"f": {"x": ["n"]}}) is None
    assert error_type(check_simple(d, {"f": {"x": "N"}}, {"f": {"x": ["n"]}})) == "value_error:others"


def test_nested_type_check_is_skipped_when_an_allowed_entry_is_not_a_list():
    d = doc(xs={"type": "array", "items": {"type": "float"}})
    assert error_type(check_simple(d, {"f": {"xs": [1, 3]}}, {"f": {"xs": [[1.0, 3.0]]}})) == \
        "type_error:nested"
    # skipped, and the list comparison then uses ==, so 1 == 1.0
    assert check_simple(d, {"f": {"xs": [1, 3]}}, {"f": {"xs": [[1.0, 3.0], ""]}}) is None
    assert check_simple(d, {"f": {"xs": []}}, {"f": {"xs": [[1.0], ""]}}) is None  # len("") == 0


def test_strings_are_standardized():
    assert standardize_string("St. Louis, MO") == "stlouismo"
    assert standardize_string("(a)!") == "(a)!"
    d = doc(s={"type": "string"})
    assert check_simple(d, {"f": {"s": "new-york"}}, {"f": {"s": ["New York"]}}) is None


def test_dict_checker_quirks():
    d = doc(o={"type": "dict"})
    answer = {"f": {"o": [{"a": ["x"], "b": ["", 1]}]}}
    assert check_simple(d, {"f": {"o": {"a": "X"}}}, answer) is None
    assert error_type(check_simple(d, {"f": {"o": {"c": 1}}}, answer)) == "value_error:dict_key"
    only_empty = {"f": {"o": [""]}}
    assert error_type(check_simple(d, {"f": {"o": {}}}, only_empty)) == "dict_checker:unclear"


def test_parallel_matching_is_greedy_first_fit():
    d = doc(a={"type": "string"}, b={"type": "string"})
    answers = [{"f": {"a": ["x", "y"], "b": ["", "1"]}}, {"f": {"a": ["x"]}}]
    in_order = [{"f": {"a": "x"}}, {"f": {"a": "y"}}]
    assert error_type(check_parallel([d], in_order, answers)) == \
        "parallel_function_checker_no_order:cannot_find_match"
    assert check_parallel([d], list(reversed(in_order)), answers) is None


def test_dispatch_by_category_name():
    d = doc(x={"type": "integer"})
    two = [{"f": {"x": 1}}, {"f": {"x": 1}}]
    assert error_type(check_ast([d], two, [{"f": {"x": [1]}}], "simple_python")) == \
        "simple_function_checker:wrong_count"
    assert error_type(check_ast([d], two, [{"f": {"x": [1]}}], "live_multiple")) == \
        "multiple_function_checker:wrong_count"


def test_underscore_to_dot_renames_the_doc_name():
    d = doc(name="math.add")
    assert check_simple(d, {"math_add": {}}, {"math.add": {}}, underscore_to_dot=True) is None
    assert error_type(check_simple(d, {"math_add": {}}, {"math.add": {}})) == \
        "simple_function_checker:wrong_func_name"


def test_java_and_javascript_values_must_be_strings_and_are_converted():
    d = doc(n={"type": "long"})
    assert check_ast([d], [{"f": {"n": "5L"}}], [{"f": {"n": [5]}}], "simple_java") is None
    # without its L suffix the value stays a string
    assert error_type(check_ast([d], [{"f": {"n": "5"}}], [{"f": {"n": [5]}}], "simple_java")) \
        == "type_error:simple"
    assert error_type(check_ast([d], [{"f": {"n": 5}}], [{"f": {"n": [5]}}], "simple_java")) \
        == "type_error:java"
    js = doc(n={"type": "Bigint"})
    assert check_ast([js], [{"f": {"n": "5n"}}], [{"f": {"n": [5]}}], "simple_javascript") is None
