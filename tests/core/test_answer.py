"""The expected answer, scored apart from the tool calls (``ek_otel.core.answer``)."""

from __future__ import annotations

from ek_otel.core.answer import score_answer
from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory
from ek_otel.core.rules import Contains, Exact, Number, Pattern
from ek_otel.scoring.link import score_linked
from ek_otel.scoring.settings import ScoreSettings


def test_each_kind_of_answer():
    assert score_answer("  PARIS ", AnyOf(("paris",))).value == 1.0
    assert score_answer("Paris", Exact("paris")).value == 0.0
    assert score_answer("Total: 1,234.50 EUR", Number(1234.5, abs_tol=0.01)).value == 1.0
    assert score_answer("between 3 and 4", Number(low=3.5, high=3.9)).value == 0.0
    assert score_answer("Refund issued.", Contains("refund ISSUED")).value == 1.0
    assert score_answer("Refunded 10 on A-7.", Pattern(r"Refunded [0-9]+ on A-[0-9]+\.")).value == 1.0
    assert score_answer("", Contains("x")).detail == {"passed": False}


def test_the_answer_never_changes_the_tool_call_score():
    task = TaskSpec("t", gold=[("f", {})], answer=Contains("done"))
    plain = TaskSpec("t", gold=[("f", {})])
    for output, passed in (("all done", True), ("failed", False)):
        run = Episode("t", Trajectory([Step("f")]), output=output)
        scored, bare = score_linked(run, task, ScoreSettings()), score_linked(run, plain, ScoreSettings())
        assert (scored.tp, scored.fp, scored.fn, scored.f1, scored.success) == (
            bare.tp, bare.fp, bare.fn, bare.f1, bare.success)
        assert scored.answer.detail["passed"] is passed and bare.answer is None
