"""The BFCL page's data: the leaderboard row per model, categories, error types, failures.

:func:`bfcl_view` turns the result of ``ek-otel bfcl`` (per-category scores and per-entry
verdicts) into plain data for :func:`~ek_otel.report.html.render_bfcl`:

- ``leaderboard``: one row per model, laid out like the official BFCL leaderboard: Overall,
  Non-Live (AST summary, Simple, Multiple, Parallel, Parallel Multiple), Live (the same),
  Multi-Turn (overall, Base, Miss Func, Miss Param, Long Context), Agentic (overall, Web
  search, Memory) and Hallucination (Irrelevance, Relevance). The summary figures are
  :func:`ek_otel.bfcl.summary.aggregates` (as ``bfcl_eval`` computes them); a figure whose
  categories were not all scored is None (N/A);
- ``categories``: accuracy and counts per model and category;
- ``error_types``: per model and category, how many failing entries have each error type;
- ``unofficial`` (per leaderboard row) / ``categories[i].unofficial`` / ``unofficial_note``:
  the multi-turn categories checked in ast mode (``--multi-turn ast``), and the Multi-Turn
  and Overall figures they make, labelled "ast mode, not the official figure" on the page;
- ``failing``: each failing entry with its official messages and what the score file prints
  about it (the prompt left out: it is the BFCL question, not the model's answer).

Example:
    >>> from ek_otel.bfcl.runner import BfclRun, CategoryScore
    >>> from ek_otel.bfcl.verdict import Verdict
    >>> run = BfclRun((CategoryScore("m", "irrelevance", 1, 2),), {("m", "irrelevance"): (
    ...     Verdict("irrelevance_0", "irrelevance", True),
    ...     Verdict("irrelevance_1", "irrelevance", False, "irrelevance_error:decoder_success",
    ...             ("Valid syntax. Successfully decode AST when it should not.",)))})
    >>> view = bfcl_view(run)
    >>> view["leaderboard"][0]["cells"]["Irrelevance"], view["error_types"][0]["types"]
    (None, [['irrelevance_error:decoder_success', 1]])
    >>> view["failing"][0]["errors"]
    ['Valid syntax. Successfully decode AST when it should not.']
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..bfcl.summary import AST_MODE_NOTE, aggregates

__all__ = ["LEADERBOARD", "bfcl_view"]

#: The leaderboard's column groups: (group, [(column label, aggregate name or category)]).
LEADERBOARD = (
    ("", (("Overall", "Overall"),)),
    ("Non-Live", (("AST summary", "Non-Live AST"), ("Simple", "Non-Live simple AST"),
                  ("Multiple", "multiple"), ("Parallel", "parallel"),
                  ("Parallel Multiple", "parallel_multiple"))),
    ("Live", (("Overall", "Live AST"), ("Simple", "live_simple"), ("Multiple", "live_multiple"),
              ("Parallel", "live_parallel"), ("Parallel Multiple", "live_parallel_multiple"))),
    ("Multi-Turn", (("Overall", "Multi-Turn"), ("Base", "multi_turn_base"),
                    ("Miss Func", "multi_turn_miss_func"), ("Miss Param", "multi_turn_miss_param"),
                    ("Long Context", "multi_turn_long_context"))),
    ("Agentic", (("Overall", "Agentic"), ("Web Search", "Web search"), ("Memory", "Memory"))),
    ("Hallucination", (("Irrelevance", "Irrelevance"), ("Relevance", "Relevance"))),
)

_DETAIL_LEFT_OUT = {"prompt", "error", "error_type", "id"}


def _text(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def bfcl_view(run: Any) -> dict:
    """The page data of a :class:`~ek_otel.bfcl.runner.BfclRun` (see the module doc).

    Example:
        >>> from ek_otel.bfcl.runner import BfclRun, CategoryScore
        >>> bfcl_view(BfclRun((CategoryScore("m", "parallel", 3, 4),)))["leaderboard"][0]["cells"]["parallel"]
        0.75
    """
    leaderboard, categories, error_types, failing = [], [], [], []
    for model in run.models:
        counts = {}
        for score in run.scores:
            if score.model != model:
                continue
            counts[score.category] = (score.correct_count, score.total_count)
            categories.append({"model": model, "category": score.category,
                               "accuracy": score.accuracy, "correct": score.correct_count,
                               "total": score.total_count})
            verdicts = run.verdicts.get((model, score.category), ())
            types = Counter(v.error_type or "unknown" for v in verdicts if not v.valid)
            if types:
                error_types.append({"model": model, "category": score.category,
                                    "failing": sum(types.values()),
                                    "types": [[name, n] for name, n in types.most_common()]})
            for v in verdicts:
                if v.valid:
                    continue
                failing.append({
                    "id": v.id, "model": model, "category": v.category,
                    "error_type": v.error_type, "errors": [_text(e) for e in v.errors],
                    "detail": {k: _text(x) for k, x in dict(v.detail).items()
                               if k not in _DETAIL_LEFT_OUT},
                })
        figures = {a.name: a.accuracy for a in aggregates(counts)}
        cells = {}
        for _, columns in LEADERBOARD:
            for _, name in columns:
                if name in figures:
                    cells[name] = figures[name]
                elif name in counts:
                    correct, total = counts[name]
                    cells[name] = correct / total if total else 0.0
                else:
                    cells[name] = None
        leaderboard.append({"model": model, "cells": cells,
                            "entries": sum(t for _, t in counts.values()),
                            "correct": sum(c for c, _ in counts.values()),
                            "unofficial": list(run.unofficial(model))})
    unofficial = {(c["model"], name) for row in leaderboard for name in row["unofficial"]
                  for c in categories if c["model"] == row["model"]}
    for c in categories:
        c["unofficial"] = (c["model"], c["category"]) in unofficial
    return {"leaderboard": leaderboard, "columns": [[g, [list(c) for c in cols]]
                                                    for g, cols in LEADERBOARD],
            "categories": categories, "error_types": error_types, "failing": failing,
            "unofficial_note": AST_MODE_NOTE if unofficial else None}
