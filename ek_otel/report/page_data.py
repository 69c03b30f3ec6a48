"""The data the HTML pages show, built from reports (:mod:`ek_otel.report.html` renders it).

- :func:`run_context`: the run page's context: the headline (:func:`headline`, tasks by
  :func:`verdict_of`), the totals and their intervals, the tasks, slices and runs
  (:func:`slice_rows` per provenance group, the groups compared), and the episodes compacted
  once for embedding (:func:`page_episodes`);
- :func:`compare_page`: the compare page's data: each shared task's change
  (:func:`change_of`), both sides' episodes, the deltas of tokens, dollars and latency, the
  comparison per slice;
- :func:`validate_trace_url`: the ``--trace-url`` template the pages link trace ids with.

All of it is plain data (dicts, lists, strings from the report as they are): the templates
and the page's script show every string as text.

Example:
    >>> from ek_otel.report.model import report_from_dict
    >>> ctx = run_context(report_from_dict({"aggregate": {"episodes": 2, "successes": 1},
    ...     "per_task": {"t": {"episodes": 2, "successes": 1}}}, "r.json"), generated_at="now")
    >>> ctx["headline"]["text"], ctx["headline"]["tasks"]
    ('1 of 2 runs passed (50.0%)', {'pass': 0, 'flaky': 1, 'fail': 0})
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any, Optional
from urllib.parse import urlsplit

from ..core.verdicts import VERDICTS
from ..errors import InputError
from ..ingest.semconv.nonruns import NOT_AN_AGENT_RUN
from .failures import FAILURE_KINDS, KIND_LABELS, failures_of
from .model import RunReport

__all__ = ["TOTAL_RATES", "COST_FIELDS", "verdict_of", "headline", "validate_trace_url",
           "slice_rows", "page_episodes", "run_context", "agent_rows_of", "change_of", "compare_page",
           "now_text"]


#: The rates of the totals, in order: (key in the report's aggregate, label). The first
#: two lead the page (with dollars per solved task); the others follow, smaller.
TOTAL_RATES = (
    ("success_rate", "success rate"),
    ("f1", "micro F1"),
    ("precision", "micro precision"),
    ("recall", "micro recall"),
    ("exact_match", "exact match"),
)


def verdict_of(figures: Mapping[str, Any]) -> Optional[str]:
    """A task's verdict: the report's ``verdict`` when it has one, else derived from its
    trials (``pass``: every trial succeeded, ``flaky``: some did, ``fail``: none did).

    Example:
        >>> verdict_of({"episodes": 3, "successes": 2}), verdict_of({"verdict": "fail"})
        ('flaky', 'fail')
        >>> verdict_of({"episodes": 2, "successes": 2}), verdict_of({"episodes": 0})
        ('pass', None)
    """
    given = figures.get("verdict")
    if given in VERDICTS:
        return given
    n, k = figures.get("episodes"), figures.get("successes")
    if not isinstance(n, (int, float)) or not isinstance(k, (int, float)) or n <= 0:
        return None
    return "pass" if k >= n else "flaky" if k > 0 else "fail"


def headline(aggregate: Mapping[str, Any], tasks: Sequence[Any]) -> dict:
    """The page's first line: runs passed, and tasks by verdict (:func:`verdict_of`).

    Example:
        >>> from ek_otel.report.model import TaskView
        >>> from ek_otel.report.stats import TaskCounts
        >>> h = headline({"episodes": 3, "successes": 2},
        ...              [TaskView("a", None, TaskCounts(2, 2), {"episodes": 2, "successes": 2}),
        ...               TaskView("b", None, TaskCounts(1, 0), {"episodes": 1, "successes": 0})])
        >>> h["text"], h["tasks"]
        ('2 of 3 runs passed (66.7%)', {'pass': 1, 'flaky': 0, 'fail': 1})
    """
    runs, passed = aggregate.get("episodes") or 0, aggregate.get("successes")
    counts = dict.fromkeys(VERDICTS, 0)
    for task in tasks:
        verdict = verdict_of(task.figures)
        if verdict is not None:
            counts[verdict] += 1
    noun = "run" if runs == 1 else "runs"
    if not runs:
        text = "no run was scored"
    elif passed is None:
        text = f"{runs:,} {noun} scored"
    else:
        text = f"{passed:,} of {runs:,} {noun} passed ({100 * passed / runs:.1f}%)"
    worst = "fail" if counts["fail"] else "flaky" if counts["flaky"] else "pass" if counts["pass"] else None
    return {"text": text, "tasks": counts, "worst": worst, "report": None, "runs": runs,
            "runs_passed": passed}


def _disagreeing_headline(data: Mapping[str, Any], shown: Mapping[str, Any]) -> Optional[str]:
    """The report's own headline when its counts differ from the page's ``shown`` headline
    (made from the report's tasks), else None: the counts are shown once.

    Example:
        >>> shown = {"runs": 2, "runs_passed": 1, "tasks": {"pass": 0, "flaky": 1, "fail": 0}}
        >>> mine = {"runs": 2, "runs_passed": 1, "pass": 0, "flaky": 1, "fail": 0, "text": "1 of 2"}
        >>> _disagreeing_headline({"headline": mine}, shown) is None
        True
        >>> _disagreeing_headline({"headline": dict(mine, fail=1, text="other")}, shown)
        'other'
        >>> _disagreeing_headline({"headline": "a text only"}, shown)
        'a text only'
    """
    given = data.get("headline")
    if isinstance(given, Mapping) and all(
            given.get(key) == shown["tasks"][key] for key in VERDICTS) and (
            given.get("runs"), given.get("runs_passed")) == (shown.get("runs"), shown.get("runs_passed")):
        return None
    return _report_headline(data)


def _report_headline(data: Mapping[str, Any]) -> Optional[str]:
    """The run headline the report itself carries (its ``headline``, text or ``{"text"}``)."""
    for holder in (data, data.get("aggregate") or {}):
        value = holder.get("headline") if isinstance(holder, Mapping) else None
        if isinstance(value, Mapping):
            value = value.get("text")
        if isinstance(value, str) and value:
            return value
    return None


def validate_trace_url(template: Optional[str]) -> Optional[str]:
    """Check a ``--trace-url`` template: http(s), with exactly one ``{trace_id}``.

    Raises:
        InputError: any other scheme, a missing or repeated placeholder, or other braces.

    Example:
        >>> validate_trace_url("https://jaeger.example/trace/{trace_id}")
        'https://jaeger.example/trace/{trace_id}'
        >>> validate_trace_url("javascript:alert({trace_id})")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --trace-url must be an http:// or https:// URL, got 'javascript:alert({trace_id})'
    """
    if template is None:
        return None
    parts = urlsplit(template.replace("{trace_id}", "x"))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--trace-url must be an http:// or https:// URL, got {template!r:.200}")
    if template.count("{trace_id}") != 1:
        raise InputError("--trace-url must hold exactly one {trace_id} placeholder, got "
                         f"{template!r:.200}")
    rest = template.replace("{trace_id}", "")
    if "{" in rest or "}" in rest:
        raise InputError(f"--trace-url holds braces other than {{trace_id}}: {template!r:.200}")
    return template


def _intervals(tasks: Sequence[Any]) -> dict:
    from .stats import STATISTICS, task_intervals

    counts = [t.counts for t in tasks]
    return {name: iv.to_dict() for name, iv in task_intervals(counts, STATISTICS).items()}


def _group_comparisons(report: RunReport) -> list:
    """The first provenance group against each other one, on the tasks they share."""
    if len(report.groups) < 2:
        return []
    from .compare import compare_tasks

    base = report.groups[0]
    slices = {t.task_id: t.slice for t in report.tasks}
    out = []
    for other in report.groups[1:]:
        comparison = compare_tasks({t.task_id: t.counts for t in base.tasks},
                                   {t.task_id: t.counts for t in other.tasks}, slices=slices,
                                   base_label=base.label, candidate_label=other.label)
        data = comparison.to_dict()
        for row in data.get("tasks", ()):
            row["change"] = change_of(row["base"]["success_rate"], row["candidate"]["success_rate"])
        out.append(data)
    return out


def _task_rows(tasks: Sequence[Any]) -> list:
    return [dict(t.figures, task_id=t.task_id, passed=t.counts.passed,
                 verdict=t.figures.get("verdict") or t.counts.verdict)
            for t in tasks]


def slice_rows(tasks: Sequence[Any]) -> list:
    """Per-slice figures summed from task views (micro, as the report makes them), for
    the runs of one provenance group (the report's ``per_slice`` pools every run).

    Example:
        >>> from ek_otel.report.model import TaskView
        >>> from ek_otel.report.stats import TaskCounts
        >>> rows = slice_rows([TaskView("a", "s", TaskCounts(1, 1, 1, 1.0), {}),
        ...                    TaskView("b", "s", TaskCounts(1, 0, 0, 0.0, 1.0, 1.0), {}),
        ...                    TaskView("c", None, TaskCounts(1, 1, 1, 1.0), {})])
        >>> [(r["slice"], r["episodes"], r["f1"], r["success_rate"]) for r in rows]
        [('s', 2, 0.5, 0.5)]
    """
    from ..core.fields import defined_precision_recall_f1

    by_slice: dict = {}
    for task in tasks:
        if task.slice is not None:
            by_slice.setdefault(task.slice, []).append(task.counts)
    rows = []
    for name in sorted(by_slice):
        counts = by_slice[name]
        n = sum(c.episodes for c in counts)
        precision, recall, f1 = defined_precision_recall_f1(sum(c.tp for c in counts),
                                                            sum(c.fp for c in counts),
                                                            sum(c.fn for c in counts))
        rows.append({"slice": name, "episodes": n, "successes": sum(c.successes for c in counts),
                     "precision": precision, "recall": recall, "f1": f1,
                     "exact_match": sum(c.exact for c in counts) / n if n else None,
                     "success_rate": sum(c.successes for c in counts) / n if n else None})
    return rows


def now_text() -> str:
    """The time a page is generated, as the pages show it (UTC, to the second).

    Example:
        >>> now_text().endswith(" UTC"), len(now_text())
        (True, 23)
    """
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _traces(data: Mapping[str, Any]) -> int:
    ids = {e.get("trace_id") for e in data.get("episodes") or () if isinstance(e, Mapping)}
    ids |= {u.get("trace_id") for u in data.get("unmatched") or () if isinstance(u, Mapping)}
    ids.discard(None)
    ids.discard("")
    return len(ids)


#: Episode keys the page does without (derived, or shown per task): the data is smaller.
_EPISODE_KEYS_LEFT_OUT = frozenset({"tp", "fp", "fn", "precision", "recall", "label"})
#: The order of an episode's ``cost`` when the page stores it as an array.
COST_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens",
               "retries", "latency_s")


def page_episodes(episodes: Sequence[Any]) -> tuple:
    """``(episodes, gold_calls)``: the episodes as the page embeds them, compacted.

    The data is embedded once and must stay small at 10,000 episodes: each gold call is
    stored once in ``gold_calls`` and the pairing refers to it by index; ``cost`` becomes
    an array in :data:`COST_FIELDS` order; ``missing_calls``/``spurious_calls`` are left
    out when the pairing holds them, and so are the keys of :data:`_EPISODE_KEYS_LEFT_OUT`.

    Example:
        >>> gold = {"tool": "f", "args": {"x": {"any_of": [1]}}}
        >>> eps, golds = page_episodes([{"f1": 1.0, "tp": 1.0, "cost": {"input_tokens": 5},
        ...     "calls": [{"got": {"tool": "f", "args": {"x": 1}}, "gold": gold}]}] * 2)
        >>> eps[1], golds
        ({'f1': 1.0, 'cost': [5, None, None, None, None, None], 'calls': [{'got': {'tool': 'f', 'args': {'x': 1}}, 'gold': 0}]}, [{'tool': 'f', 'args': {'x': {'any_of': [1]}}}])
    """
    import json

    golds: list = []
    index: dict = {}
    out = []
    for episode in episodes:
        if not isinstance(episode, Mapping):
            continue
        has_calls = isinstance(episode.get("calls"), list)
        compact = {}
        for key, value in episode.items():
            if key in _EPISODE_KEYS_LEFT_OUT or (
                    has_calls and key in ("missing_calls", "spurious_calls")):
                continue
            if key == "cost" and isinstance(value, Mapping):
                value = [value.get(name) for name in COST_FIELDS]
            elif key == "calls" and has_calls:
                rows = []
                for row in value:
                    gold = row.get("gold") if isinstance(row, Mapping) else None
                    if gold is not None:
                        key_text = json.dumps(gold, sort_keys=True)
                        if key_text not in index:
                            index[key_text] = len(golds)
                            golds.append(gold)
                        row = dict(row, gold=index[key_text])
                    rows.append(row)
                value = rows
            compact[key] = value
        if episode.get("success") is False:
            compact["failures"] = [f.as_list() for f in failures_of(episode)]
        out.append(compact)
    return out, golds


def run_context(report: RunReport, *, trace_url: Optional[str] = None,
                gold_path: Optional[str] = None, title: Optional[str] = None,
                generated_at: Optional[str] = None, refresh_seconds: Optional[int] = None) -> dict:
    """The template context of :func:`render_run` (the figures the page shows).

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> ctx = run_context(report_from_dict({"aggregate": {"episodes": 0}, "per_task": {}},
        ...                   "r.json"), generated_at="now")
        >>> ctx["intervals"]["success_rate"]["reason"], ctx["headline"]["text"]
        ('no trials', 'no run was scored')
    """
    data = report.data
    aggregate = data.get("aggregate") or {}
    groups = [{"label": g.label, "key": list(g.key), "aggregate": g.aggregate,
               "intervals": _intervals(g.tasks)}
              for g in report.groups]
    comparisons = _group_comparisons(report)
    episodes, gold_calls = page_episodes(data.get("episodes") or ())
    page_headline = headline(aggregate, report.tasks)
    page = {
        "kind": "run",
        "k": data.get("k", aggregate.get("k")),
        "trace_url": validate_trace_url(trace_url),
        "tasks": _task_rows(report.tasks),
        "slices": [dict(v, slice=k) for k, v in (data.get("per_slice") or {}).items()],
        "episodes": episodes,
        "gold_calls": gold_calls,
        "cost_fields": list(COST_FIELDS),
        "groups": [g["label"] for g in groups],
        "runs": [{"label": g.label, "k": g.aggregate.get("k"), "tasks": _task_rows(g.tasks),
                  "slices": slice_rows(g.tasks)}
                 for g in report.groups],
        "comparisons": comparisons,
        "models": [str(g.key[0]) if g.key and g.key[0] else "-" for g in report.groups],
        "failure_kinds": [[kind, KIND_LABELS[kind]] for kind in FAILURE_KINDS],
        "headline": dict(page_headline, report=_disagreeing_headline(data, page_headline)),
        "run_headlines": [headline(g.aggregate, g.tasks) for g in report.groups],
    }
    return {
        "title": title or "ek-otel report",
        "source": report.source,
        "gold_path": gold_path,
        "gold_sha256": report.gold_sha256,
        "evaluator_version": report.provenance.get("evaluator_version"),
        "matcher": dict(report.matcher),
        "generated_at": generated_at or now_text(),
        "aggregate": aggregate,
        "exact_is_success": aggregate.get("exact_match") == aggregate.get("success_rate") and all(
            t.counts.exact == t.counts.successes for t in report.tasks),
        "traces": _traces(data),
        "n_unmatched": len(data.get("unmatched") or ()),
        "n_not_runs": sum(1 for u in data.get("unmatched") or ()
                          if isinstance(u, Mapping)
                          and str(u.get("reason") or "").startswith(NOT_AN_AGENT_RUN)),
        "unmatched": list(data.get("unmatched") or ())[:100],
        "agents": agent_rows_of(data),
        "bad_input": data.get("bad_input"),
        "intervals": _intervals(report.tasks),
        "rates": TOTAL_RATES,
        "groups": groups,
        "comparisons": comparisons,
        "refresh_seconds": refresh_seconds,
        "page": page,
        # the page's first line: runs passed and tasks by verdict, shown once
        "headline": page["headline"],
    }


def agent_rows_of(data: Mapping[str, Any]) -> list:
    """The report's calls by agent (its ``agents``, multi-agent runs only), as the page shows
    them: the agent's name as text, the counts as numbers; rows of another shape left out.

    Example:
        >>> agent_rows_of({"agents": [{"agent": "<b>", "calls": 2, "matched": 1, "spurious": 1,
        ...                            "errors": 0}, "junk"]})
        [{'agent': '<b>', 'calls': 2, 'matched': 1, 'spurious': 1, 'errors': 0}]
        >>> agent_rows_of({})
        []
    """
    out = []
    for row in data.get("agents") or ():
        if isinstance(row, Mapping) and row.get("agent") is not None:
            out.append({"agent": str(row["agent"]), **{
                key: row.get(key) if isinstance(row.get(key), int) else 0
                for key in ("calls", "matched", "spurious", "errors")}})
    return out


def change_of(base_rate: Optional[float], candidate_rate: Optional[float]) -> str:
    """A shared task's change, from its success rates: ``regressed`` (any drop),
    ``improved`` (any rise), else ``unchanged``.

    Example:
        >>> change_of(0.5, 0.0), change_of(0.0, 0.5), change_of(1.0, 1.0), change_of(None, 1.0)
        ('regressed', 'improved', 'unchanged', 'unchanged')
    """
    if base_rate is None or candidate_rate is None or base_rate == candidate_rate:
        return "unchanged"
    return "regressed" if candidate_rate < base_rate else "improved"


def _costs(episodes: Sequence[Any]) -> dict:
    """Tokens, dollars (None unless every episode is priced), latency and successes of episodes."""
    out = {"episodes": 0, "successes": 0, "input_tokens": 0, "output_tokens": 0, "latency_s": 0.0,
           "dollars": 0.0}
    for episode in episodes:
        cost = episode.get("cost") if isinstance(episode.get("cost"), Mapping) else {}
        out["episodes"] += 1
        out["successes"] += 1 if episode.get("success") else 0
        out["input_tokens"] += cost.get("input_tokens") or 0
        out["output_tokens"] += cost.get("output_tokens") or 0
        out["latency_s"] += cost.get("latency_s") or 0.0
        dollars = episode.get("dollars")
        out["dollars"] = None if dollars is None or out["dollars"] is None else out["dollars"] + dollars
    if not out["episodes"]:
        out["dollars"] = None
    out["tokens"] = out["input_tokens"] + out["output_tokens"]
    out["dollars_per_success"] = (out["dollars"] / out["successes"]
                                  if out["dollars"] is not None and out["successes"] else None)
    out["latency_per_run_s"] = out["latency_s"] / out["episodes"] if out["episodes"] else None
    return out


_DELTA_KEYS = ("tokens", "input_tokens", "output_tokens", "dollars", "dollars_per_success",
               "latency_per_run_s")


def _delta(base: Mapping[str, Any], candidate: Mapping[str, Any]) -> dict:
    return {key: (None if base.get(key) is None or candidate.get(key) is None
                  else candidate[key] - base[key]) for key in _DELTA_KEYS}


def compare_page(comparison: Mapping[str, Any], base: RunReport, candidate: RunReport) -> dict:
    """The compare page's data: each shared task's change from its success rates
    (:func:`change_of`), its base and candidate episodes (for the side-by-side), the deltas
    of tokens, dollars, dollars per solved task and latency per run (overall and per task),
    and the comparison per slice.

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> from ek_otel.report.model import report_from_dict
        >>> r = report_from_dict({"aggregate": {}, "per_task": {}}, "a.json")
        >>> compare_page(compare_tasks({}, {}).to_dict(), r, r)["overall"]["delta"]["tokens"]
        0
    """
    shared = {t["task_id"] for t in comparison.get("tasks", ())}
    sides = {}
    for name, report in (("base", base), ("candidate", candidate)):
        episodes = [e for e in report.data.get("episodes") or () if isinstance(e, Mapping)
                    and e.get("task_id") in shared]
        sides[name] = episodes
    compact, gold_calls = page_episodes(sides["base"] + sides["candidate"])
    n_base = len(sides["base"])
    by_task: dict = {}
    for i, episode in enumerate(compact):
        side = "base" if i < n_base else "candidate"
        episode["side"] = side
        by_task.setdefault(episode.get("task_id"), {"base": [], "candidate": []})[side].append(i)
    raw = {"base": {}, "candidate": {}}
    for side, episodes in sides.items():
        for episode in episodes:
            raw[side].setdefault(episode.get("task_id"), []).append(episode)
    tasks = []
    for row in comparison.get("tasks", ()):
        task_id = row["task_id"]
        b, c = _costs(raw["base"].get(task_id, ())), _costs(raw["candidate"].get(task_id, ()))
        tasks.append(dict(row, change=change_of(row["base"]["success_rate"], row["candidate"]["success_rate"]),
                          base_cost=b, candidate_cost=c, delta=_delta(b, c),
                          episodes=by_task.get(task_id, {"base": [], "candidate": []})))
    order = {"regressed": 0, "improved": 1, "unchanged": 2}
    tasks.sort(key=lambda t: (order[t["change"]], t["success_delta"] if t["success_delta"] is not None else 0))
    base_all, cand_all = _costs(sides["base"]), _costs(sides["candidate"])
    slices: dict = {}
    for row in tasks:
        name = row.get("slice")
        if name is None:
            continue
        cut = slices.setdefault(name, {"slice": name, "tasks": 0, "regressed": 0, "improved": 0,
                                       "base": [0, 0], "candidate": [0, 0]})
        cut["tasks"] += 1
        if row["change"] in ("regressed", "improved"):
            cut[row["change"]] += 1
        for side in ("base", "candidate"):
            cut[side][0] += row[side]["successes"]
            cut[side][1] += row[side]["episodes"]
    slice_rows = []
    for name in sorted(slices):
        cut = slices[name]
        b = cut["base"][0] / cut["base"][1] if cut["base"][1] else None
        c = cut["candidate"][0] / cut["candidate"][1] if cut["candidate"][1] else None
        slice_rows.append({"slice": name, "tasks": cut["tasks"], "regressed": cut["regressed"],
                           "improved": cut["improved"], "base_success": b, "candidate_success": c,
                           "success_delta": None if b is None or c is None else c - b,
                           "change": change_of(b, c)})
    return {"kind": "compare", "comparison": dict(comparison, tasks=tasks), "episodes": compact,
            "gold_calls": gold_calls, "cost_fields": list(COST_FIELDS),
            "failure_kinds": [[kind, KIND_LABELS[kind]] for kind in FAILURE_KINDS],
            "overall": {"base": base_all, "candidate": cand_all, "delta": _delta(base_all, cand_all),
                        "regressed": sum(t["change"] == "regressed" for t in tasks),
                        "improved": sum(t["change"] == "improved" for t in tasks),
                        "unchanged": sum(t["change"] == "unchanged" for t in tasks)},
            "slices": slice_rows}
