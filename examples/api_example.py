"""Score a few agent runs against examples/tasks.jsonl with the ek-otel library API.

Run it from anywhere:  python examples/api_example.py

The episodes are built by hand here; `ek-otel score` builds them from OpenTelemetry traces.
"""

from __future__ import annotations

from pathlib import Path

from ek_otel import (
    Cost,
    Episode,
    RunProvenance,
    Step,
    ToolCallMetric,
    Trajectory,
    evaluate,
    headline_of,
    load_pricing,
    load_tasks,
    match_calls,
    task_verdict,
)

HERE = Path(__file__).resolve().parent

tasks = load_tasks(HERE / "tasks.jsonl")
prices = load_pricing(HERE / "pricing.yaml")  # EXAMPLE prices, dated inside the file
by_id = {task.task_id: task for task in tasks}
run = RunProvenance(model="gpt-4o-mini", suite_version="examples-v1")


def episode(task_id: str, *steps: Step, input_tokens: int = 1200, output_tokens: int = 80) -> Episode:
    """One run of the agent on one task."""
    cost = Cost(input_tokens=input_tokens, output_tokens=output_tokens)
    return Episode(task_id, Trajectory(steps), cost=cost, run=run)


episodes = [
    # Right tool, an admissible city spelling, unit omitted (the gold allows that): exact.
    episode("weather-paris", Step("get_weather", {"city": "paris, france"})),
    # Looked the order up, then refunded the wrong amount: a costly error on a destructive tool.
    episode(
        "refund-order-1042",
        Step("lookup_order", {"order_id": "1042"}),
        Step("refund", {"order_id": "1042", "amount": 53.5}),
    ),
    # Nothing to call for a joke, but the agent called a tool anyway: a spurious call.
    episode("joke-no-tool", Step("get_weather", {"city": "London"})),
    # Two turns: searched, then booked the right flight.
    episode(
        "flight-booking",
        Step("search_flights", {"origin": "SFO", "destination": "JFK", "date": "2026-12-20"}),
        Step("book_flight", {"flight": "UA 512", "seat": "window"}),
        input_tokens=3000,
        output_tokens=150,
    ),
]

# 1. One call list against one task's gold, with the task's cost grammar.
refund_task = by_id["refund-order-1042"]
metric = ToolCallMetric(level="arg", grammar=refund_task.grammar())
score = metric(episodes[1].calls, refund_task.gold)
print(f"refund, argument level: f1={score.f1:.3f}  ({score.explanation})")

# 2. The raw pairing: (pairs, unmatched predicted, unmatched gold).
pairs, extra, missing = match_calls(episodes[2].calls, by_id["joke-no-tool"].gold)
print(f"joke: {len(pairs)} matched, {len(extra)} spurious, {len(missing)} missing")



def fmt(x) -> str:
    """A rate, or "n/a" when it is undefined (precision with no call made, recall with no
    call expected, F1 with neither; any rate of an empty cut)."""
    return "n/a" if x is None else f"{x:.3f}"


# 3. The whole corpus: micro figures, slices, value-weighted success, cost and dollars.
report = evaluate(episodes, tasks, prices=prices)
print(f"corpus: precision={fmt(report.precision)} recall={fmt(report.recall)} f1={fmt(report.f1)} "
      f"exact={fmt(report.exact_rate)} value-weighted success={fmt(report.value_weighted_success)}")
for name, cut in sorted(report.per_slice.items()):
    print(f"  slice {name:<12} precision={fmt(cut.precision)} recall={fmt(cut.recall)} "
          f"f1={fmt(cut.f1)}  exact={fmt(cut.exact_rate)}")
print(f"tokens={report.cost.total_tokens}  dollars={report.dollars:.6f} (example prices)")
for s in report.scores:
    print(f"  {s.task_id:<18} {s.label:<4} {s.explanation}")

# 4. Each task's verdict from its trials (pass: every trial succeeded, flaky: some, fail: none)
# and the run's headline.
for task_id, cut in report.per_task.items():
    print(f"  {task_id:<18} {task_verdict(cut.n, cut.successes)} ({cut.successes}/{cut.n})")
print(headline_of((cut.n, cut.successes) for cut in report.per_task.values()).text)
