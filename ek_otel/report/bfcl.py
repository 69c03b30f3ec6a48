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

import ast
from collections import Counter
from collections.abc import Mapping
from typing import Any, Optional

from ..bfcl.summary import AST_MODE_NOTE, aggregates

__all__ = ["LEADERBOARD", "bfcl_view", "answer_view"]

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


_LITERAL_LIMIT = 200_000  # longer score-file texts are shown raw, not parsed


def _literal(text: Any) -> Any:
    """A Python literal the score file printed (``ast.literal_eval``: data only), or None."""
    if not isinstance(text, str) or not text or len(text) > _LITERAL_LIMIT:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _calls(value: Any) -> Optional[list]:
    """``[{name: args}, ...]`` as ``[(name, args)]``, or None for another shape."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not isinstance(item, Mapping) or len(item) != 1:
            return None
        (name, args), = item.items()
        out.append((str(name), args if isinstance(args, Mapping) else {"": args}))
    return out


def _allowed(got: Any, allowed: Any) -> bool:
    values = allowed if isinstance(allowed, list) else [allowed]
    return any(got == v or (isinstance(got, str) and isinstance(v, str) and got.lower() == v.lower())
               for v in values)


def _single_turn(decoded: list, possible: Optional[list]) -> dict:
    rows, used = [], set()
    for name, allowed_args in possible or ():
        match = next((i for i, (n, _) in enumerate(decoded) if n == name and i not in used), None)
        if match is None:
            rows.append({"tool": name, "status": "missing", "args": [
                {"arg": a, "got": None, "absent": True, "allowed": v, "ok": "" in (v if isinstance(v, list) else [v])}
                for a, v in allowed_args.items()]})
            continue
        used.add(match)
        got_args = decoded[match][1]
        args = []
        for arg in list(dict.fromkeys([*allowed_args, *got_args])):
            allowed = allowed_args.get(arg)
            if arg not in got_args:
                ok = allowed is not None and "" in (allowed if isinstance(allowed, list) else [allowed])
                args.append({"arg": arg, "got": None, "absent": True, "allowed": allowed, "ok": ok})
            else:
                args.append({"arg": arg, "got": got_args[arg], "allowed": allowed,
                             "ok": arg in allowed_args and _allowed(got_args[arg], allowed)})
        rows.append({"tool": name, "status": "match" if all(a["ok"] for a in args) else "differs",
                     "args": args})
    for i, (name, args) in enumerate(decoded):
        if i not in used:
            rows.append({"tool": name, "status": "spurious" if possible is not None else "called",
                         "args": [{"arg": a, "got": v, "allowed": None, "ok": possible is None}
                                  for a, v in args.items()]})
    return {"kind": "single", "calls": rows}


def _normal(call: Any) -> str:
    return "".join(str(call).split())


def _multi_turn(decoded: list, possible: list) -> Optional[dict]:
    turns = []
    for index in range(max(len(decoded), len(possible))):
        model_turn = decoded[index] if index < len(decoded) else []
        answer_turn = possible[index] if index < len(possible) else []
        if not isinstance(model_turn, list) or not isinstance(answer_turn, list):
            return None
        model_calls = [c for step in model_turn for c in (step if isinstance(step, list) else [step])]
        answer_set = {_normal(c) for c in answer_turn}
        model_set = {_normal(c) for c in model_calls}
        turns.append({"model": [{"call": str(c), "matched": _normal(c) in answer_set} for c in model_calls],
                      "answer": [{"call": str(c), "matched": _normal(c) in model_set} for c in answer_turn]})
    return {"kind": "multi", "turns": turns}


def answer_view(detail: Mapping[str, Any]) -> Optional[dict]:
    """The model's decoded calls against the possible answer, from what a score file prints
    about a failing entry: per call, each argument's value beside the allowed values
    (single-turn), or per turn the model's calls beside the answer's (multi-turn). None when
    the entry has no decoded calls. The highlighting is a reading aid: the checker's error
    type and messages say why the entry failed.

    Example:
        >>> v = answer_view({"model_result_decoded": "[{'f': {'x': 2}}]",
        ...                  "possible_answer": "[{'f': {'x': [1], 'y': ['', 0]}}]"})
        >>> [(c["tool"], c["status"], [(a["arg"], a["ok"]) for a in c["args"]]) for c in v["calls"]]
        [('f', 'differs', [('x', False), ('y', True)])]
        >>> answer_view({"model_result_decoded": '[[["ls()"]]]',
        ...              "possible_answer": '[["pwd()", "ls()"]]'})["turns"][0]["answer"][0]
        {'call': 'pwd()', 'matched': False}
    """
    decoded = _literal(detail.get("model_result_decoded", detail.get("decoded_result")))
    possible = _literal(detail.get("possible_answer"))
    if decoded is None:
        return None
    single, answer = _calls(decoded), _calls(possible) if possible is not None else None
    if single is not None and (possible is None or answer is not None):
        return _single_turn(single, answer)
    if isinstance(decoded, list) and isinstance(possible, list):
        return _multi_turn(decoded, possible)
    return None


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
                detail = {k: _text(x) for k, x in dict(v.detail).items()
                          if k not in _DETAIL_LEFT_OUT}
                entry = {"id": v.id, "model": model, "category": v.category,
                         "error_type": v.error_type, "errors": [_text(e) for e in v.errors],
                         "detail": detail}
                answer = answer_view(detail)
                if answer is not None:
                    entry["answer"] = answer
                failing.append(entry)
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
