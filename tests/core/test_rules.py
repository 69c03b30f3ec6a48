"""Argument rules: what each admits, how scoring explains them, optional calls, alternatives."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.episode import Alternative, AnyOf, Episode, Step, TaskSpec, ToolSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.core.jsonable import to_jsonable
from ek_otel.core.grammar import FieldSpec
from ek_otel.core.rules import (AnyValue, Contains, Exact, Number, Pattern, RuleError, parse_rule,
                                rule_problems)
from ek_otel.core.toolcalls import ToolCallMetric, align_calls
from ek_otel.emit.tagged_json import from_tagged, to_tagged
from ek_otel.gold.native import task_from_dict


def run(*calls) -> Episode:
    return Episode("t", Trajectory([Step(tool, args) for tool, args in calls]))


REFUND = task_from_dict({"task_id": "t", "calls": [
    {"refund": {"order_id": {"any": True}, "amount": {"number": 35.5, "abs_tol": 0.01}}}]})


def test_the_issue_s_two_explanations():
    ok = score_episode(run(("refund", {"order_id": "A-77", "amount": 35.5})), REFUND)
    assert ok.exact and ok.explanation == (
        "1/1 calls matched exactly; refund.order_id: any value, got 'A-77'; "
        "refund.amount: 35.5 ± 0.01, got 35.5")
    bad = score_episode(run(("refund", {"order_id": "A-78", "amount": 355.0})), REFUND)
    assert not bad.exact
    assert bad.explanation == ("0/1 calls matched; refund.amount: expected 35.5 ± 0.01, got 355.0; "
                               "refund.order_id: any value, got 'A-78'")
    assert [(d.arg, d.kind, d.expected) for d in bad.arg_diffs] == [
        ("amount", "wrong_value", Number(35.5, abs_tol=0.01))]


def test_any_value_still_needs_the_argument_unless_optional():
    missing = score_episode(run(("refund", {"amount": 35.5})), REFUND)
    assert not missing.exact and "refund.order_id: missing (expected any value)" in missing.explanation
    lenient = task_from_dict({"task_id": "t", "calls": [
        {"refund": {"order_id": {"any": True, "optional": True}, "amount": [35.5]}}]})
    assert score_episode(run(("refund", {"amount": 35.5})), lenient).exact


@pytest.mark.parametrize("rule, yes, no", [
    ({"regex": "A-[0-9]+"}, ["A-77", "A-1"], ["a-77", "A-77x", "xA-77", 77, None, ["A-7"]]),
    ({"regex": "[0-9]+"}, ["123", 123], [True, 1.5, "12a"]),
    ({"number": 35.5, "abs_tol": 0.01}, [35.5, 35.51, 35.49], [35.52, 355, "35.5", True, math.nan]),
    ({"number": 100, "rel_tol": 0.05}, [95.5, 105, 100], [94, 106]),
    ({"number": 1}, [1, 1.0], [True, 1.0000001, "1"]),
    ({"min": 10, "max": 20}, [10, 15.5, 20], [9.99, 20.01, None]),
    ({"min": 0}, [0, 1e9], [-1]),
    ({"exact": "/Tmp/Report.PDF"}, ["/Tmp/Report.PDF"], ["/tmp/report.pdf", " /Tmp/Report.PDF"]),
    ({"exact": 3}, [3, 3.0], [True, "3"]),
    ({"exact": True}, [True], [1, "true"]),
    ({"contains": "refund issued"}, ["Your REFUND  issued.", "refund issued"], ["refunded", 3]),
    ({"contains": "Refund", "case_sensitive": True}, ["A Refund"], ["a refund"]),
    ({"any": True}, ["x", None, [], {}, 0], []),
])
def test_what_each_rule_admits(rule, yes, no):
    parsed = parse_rule(rule)
    for value in yes:
        assert parsed.matches(value), (rule, value)
    for value in no:
        assert not parsed.matches(value), (rule, value)
    assert parse_rule(parsed.to_dict()) == parsed


def test_the_default_case_folding_does_not_reach_an_exact_rule():
    task = task_from_dict({"task_id": "t", "calls": [{"login": {"password": {"exact": "S3cret"},
                                                                 "user": ["alice"]}}]})
    assert score_episode(run(("login", {"password": "S3cret", "user": "ALICE"})), task).exact
    assert not score_episode(run(("login", {"password": "s3cret", "user": "alice"})), task).exact


def test_a_rule_does_not_bypass_the_schema_type_check():
    task = TaskSpec("t", gold=[("f", {"n": Number(low=1, high=5)})],
                    tools=[ToolSpec("f", params={"n": FieldSpec("n", "integer")})])
    s = score_episode(run(("f", {"n": 2.5})), task)
    assert [d.kind for d in s.arg_diffs] == ["wrong_type"]


@pytest.mark.parametrize("rule, problem", [
    ({"regex": "A-("}, "bad regular expression 'A-(': missing ), unterminated subpattern at position 2"),
    ({"regex": "[z-a]"}, "bad regular expression '[z-a]': bad character range z-a at position 1"),
    ({"number": math.inf}, "number must be a finite number, got inf"),
    ({"number": 1, "rel_tol": "5%"}, "rel_tol must be a number >= 0, got '5%'"),
    ({"min": 3, "max": 1}, "min (3) is greater than max (1)"),
    ({"contains": 5}, "contains must be a non-empty string, got 5"),
    ({"any": True, "regex": "a"}, "give one kind of rule, got 'any' and 'regex' together"),
    ({"exact": "a", "case_sensitive": False},
     "case_sensitive goes with 'contains' ('exact' is always case-sensitive)"),
])
def test_bad_rules_are_named(rule, problem):
    assert rule_problems(rule)[0] == problem
    with pytest.raises(RuleError, match="^" + __import__("re").escape(problem) + "$"):
        parse_rule(rule)


def test_a_bad_regex_in_a_gold_file_names_file_and_line(tmp_path):
    from ek_otel.errors import GoldFileError
    from ek_otel.gold.native import load_tasks

    path = tmp_path / "gold.jsonl"
    path.write_text('{"task_id": "a", "calls": []}\n'
                    '{"task_id": "b", "calls": [{"f": {"id": {"regex": "ORD-(["}}}]}\n')
    with pytest.raises(GoldFileError) as info:
        load_tasks(path)
    assert str(info.value) == (f"{path}:2: calls[0].f.id: bad regular expression 'ORD-([': "
                               "unterminated character set at position 5")


def test_rules_survive_the_envelope_and_the_json_report():
    rule = Pattern("A-[0-9]+", optional=True)
    assert from_tagged(to_tagged({"x": rule})) == {"x": rule}
    assert to_jsonable({"x": rule, "y": Number(1, rel_tol=0.1)}) == {
        "x": {"regex": "A-[0-9]+", "optional": True}, "y": {"number": 1, "rel_tol": 0.1}}


def test_describe_reads_like_a_person_wrote_it():
    assert [r.describe() for r in (AnyValue(), Pattern("x+"), Number(35.5, abs_tol=0.01),
                                   Number(2, rel_tol=0.07), Number(low=1.0, high=2), Number(low=0),
                                   Number(high=9.5), Number(3), Exact("P"), Contains("ok"))] == [
        "any value", "matches /x+/", "35.5 ± 0.01", "2 ± 7%", "between 1 and 2", "at least 0",
        "at most 9.5", "= 3", "exactly 'P' (case-sensitive)", "contains 'ok'"]


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(0, 100), st.floats(-1e6, 1e6))
def test_an_absolute_tolerance_is_math_isclose(center, tol, value):
    assert Number(center, abs_tol=tol).matches(value) == (
        (value == center) if tol == 0 else math.isclose(value, center, abs_tol=tol))


# ---------------------------------------------------------------------------
# Optional calls
# ---------------------------------------------------------------------------

LOOKUP_THEN_PAY = task_from_dict({"task_id": "t", "calls": [
    {"lookup": {"id": {"any": True}}, "optional": True}, {"pay": {"amount": [10]}}]})


def test_an_optional_call_left_out_is_no_false_negative():
    s = score_episode(run(("pay", {"amount": 10})), LOOKUP_THEN_PAY)
    assert (s.exact, s.tp, s.fp, s.fn) == (True, 1.0, 0.0, 0.0)
    assert s.explanation == "1/1 calls matched exactly; optional, not made: lookup"


def test_an_optional_call_made_counts_like_any_other():
    s = score_episode(run(("lookup", {"id": 7}), ("pay", {"amount": 10})), LOOKUP_THEN_PAY)
    assert (s.exact, s.tp, s.fp, s.fn) == (True, 2.0, 0.0, 0.0)
    wrong = score_episode(run(("lookup", {}), ("pay", {"amount": 10})), LOOKUP_THEN_PAY)
    assert not wrong.exact and "lookup.id: missing" in wrong.explanation


def test_optional_calls_in_an_ordered_task_and_at_arg_level():
    task = task_from_dict({"task_id": "t", "ordered": True, "calls": [
        {"a": {}}, {"b": {"x": [1]}, "optional": True}, {"c": {}}]})
    assert score_episode(run(("a", {}), ("c", {})), task).exact
    assert not score_episode(run(("c", {}), ("a", {})), task).exact
    arg = score_episode(run(("a", {}), ("c", {})), task, level="arg")
    assert (arg.fn, arg.fp) == (0.0, 0.0)
    assert align_calls([("a", {})], [("a", {}), ("b", {})], optional=[1]).exact


def test_only_optional_calls_and_none_made():
    task = task_from_dict({"task_id": "t", "calls": [{"a": {}, "optional": True}]})
    s = score_episode(run(), task)
    assert s.exact and s.explanation == "no call required; optional, not made: a"


# ---------------------------------------------------------------------------
# Alternatives
# ---------------------------------------------------------------------------

TWO_WAYS = task_from_dict({"task_id": "t", "alternatives": [
    [{"refund": {"amount": [10]}}],
    [{"escalate": {"reason": {"contains": "refund"}}}, {"notify": {}}]]})


def test_alternatives_score_against_the_best_and_name_it():
    first = score_episode(run(("refund", {"amount": 10})), TWO_WAYS)
    assert first.exact and first.explanation.startswith("alternative 1 of 2: 1/1 calls matched exactly")
    second = score_episode(run(("escalate", {"reason": "Refund over limit"}), ("notify", {})), TWO_WAYS)
    assert second.exact and second.explanation.startswith("alternative 2 of 2: 2/2 calls matched exactly")
    neither = score_episode(run(("escalate", {"reason": "other"})), TWO_WAYS, level="arg")
    assert not neither.exact   # at arg level the right tool earns credit: the second is closer
    assert neither.explanation.startswith("alternative 2 of 2: 0/2 calls matched")
    fewer_errors = score_episode(run(("escalate", {"reason": "other"})), TWO_WAYS)
    assert fewer_errors.explanation.startswith("alternative 1 of 2")   # F1 0 both; 2 errors < 3
    nothing = score_episode(run(), TWO_WAYS)   # equal F1 (0): the first alternative
    assert nothing.explanation.startswith("alternative 1 of 2")


def test_alternatives_keep_their_own_optional_calls():
    task = TaskSpec("t", gold=[("a", {})], alternatives=[
        Alternative([("a", {})]), Alternative([("b", {}), ("c", {})], optional=[1])])
    assert score_episode(run(("b", {})), task).exact


def test_the_metric_micro_f1_never_sees_a_skipped_optional_call():
    a = align_calls([("pay", {})], [("lookup", {}), ("pay", {})], optional=[0])
    assert ToolCallMetric().score_alignment(a).f1 == 1.0


def test_the_bfcl_matcher_refuses_what_bfcl_cannot_check():
    from ek_otel.bfcl.matcher import entry_from_task
    from ek_otel.errors import BfclDataError

    for task, uses in ((LOOKUP_THEN_PAY, "argument rules and optional calls"),
                       (TWO_WAYS, "alternatives"),
                       (TaskSpec("t", gold=[("f", {"x": AnyOf((1,))})], optional=[0]),
                        "optional calls")):
        with pytest.raises(BfclDataError, match=f"this task uses {uses},"):
            entry_from_task(task)
