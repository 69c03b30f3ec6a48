"""Run in a peer's own virtualenv: the verdict of Google ADK's ``TrajectoryEvaluator`` or of
LangChain agentevals' trajectory match evaluator on every case of a JSON file, in one batch.

    python peer_verdicts.py adk|adk-turns|agentevals CASES.json OUT.json

CASES.json: ``[{"mode": ..., "args": ..., "gold": [[tool, {arg: value}], ...], "run": [...]}]``
(ADK: ``mode`` is the match type EXACT / IN_ORDER / ANY_ORDER, ``args`` ``exact`` or
``ignore``; agentevals: ``mode`` its trajectory_match_mode, ``args`` its tool_args_match_mode).
OUT.json: one boolean per case, the peer's pass/fail. ``adk-turns``: ``gold`` and ``run`` are
lists of turns (one call list per invocation); OUT.json holds per case ``{"turns": [bool per
invocation], "overall": bool}``, or ``{"refused": message}`` where ADK refuses the pair (its
invocation counts differ). Only the standard library and the peer.
"""

from __future__ import annotations

import json
import sys


def adk_verdicts(cases: list) -> list:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types

    def invocation(calls: list) -> Invocation:
        return Invocation(user_content=types.Content(role="user", parts=[types.Part(text="q")]),
                          intermediate_data=IntermediateData(tool_uses=[
                              types.FunctionCall(name=tool, args=args) for tool, args in calls]))

    evaluators = {}
    out = []
    for case in cases:
        key = (case["mode"], case["args"])
        if key not in evaluators:
            criterion = ToolTrajectoryCriterion(threshold=1.0, match_type=case["mode"],
                                                ignore_args=case["args"] == "ignore")
            evaluators[key] = TrajectoryEvaluator(eval_metric=EvalMetric(
                metric_name="tool_trajectory_avg_score", criterion=criterion))
        result = evaluators[key].evaluate_invocations([invocation(case["run"])],
                                                      [invocation(case["gold"])])
        out.append(result.overall_score == 1.0)
    return out


def adk_turn_verdicts(cases: list) -> list:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types

    def invocation(n: int, calls: list) -> Invocation:
        return Invocation(user_content=types.Content(role="user", parts=[types.Part(text=f"q{n}")]),
                          intermediate_data=IntermediateData(tool_uses=[
                              types.FunctionCall(name=tool, args=args) for tool, args in calls]))

    evaluators = {}
    out = []
    for case in cases:
        key = (case["mode"], case["args"])
        if key not in evaluators:
            criterion = ToolTrajectoryCriterion(threshold=1.0, match_type=case["mode"],
                                                ignore_args=case["args"] == "ignore")
            evaluators[key] = TrajectoryEvaluator(eval_metric=EvalMetric(
                metric_name="tool_trajectory_avg_score", criterion=criterion))
        try:
            result = evaluators[key].evaluate_invocations(
                [invocation(n, calls) for n, calls in enumerate(case["run"])],
                [invocation(n, calls) for n, calls in enumerate(case["gold"])])
        except ValueError as e:
            out.append({"refused": str(e)})
            continue
        out.append({"turns": [r.score == 1.0 for r in result.per_invocation_results],
                    "overall": result.overall_score == 1.0})
    return out


def agentevals_verdicts(cases: list) -> list:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    def messages(calls: list) -> list:  # one assistant message per call, then the answer
        out = [{"role": "user", "content": "q"}]
        for n, (tool, args) in enumerate(calls):
            out.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": f"c{n}", "type": "function",
                 "function": {"name": tool, "arguments": json.dumps(args)}}]})
            out.append({"role": "tool", "content": "ok", "tool_call_id": f"c{n}"})
        out.append({"role": "assistant", "content": "done"})
        return out

    evaluators = {}
    out = []
    for case in cases:
        key = (case["mode"], case["args"])
        if key not in evaluators:
            evaluators[key] = create_trajectory_match_evaluator(
                trajectory_match_mode=case["mode"], tool_args_match_mode=case["args"])
        result = evaluators[key](outputs=messages(case["run"]), reference_outputs=messages(case["gold"]))
        out.append(bool(result["score"]))
    return out


if __name__ == "__main__":
    peer, cases_path, out_path = sys.argv[1:4]
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    verdicts = {"adk": adk_verdicts, "adk-turns": adk_turn_verdicts,
                "agentevals": agentevals_verdicts}[peer](cases)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(verdicts, f)
