"""One scored episode as plain text, laid out as the HTML page shows it (for a terminal, a
failing test, a log): the verdict and the matcher's explanation, then each call as the
matcher paired it (``match``, ``differs``, ``missing``, ``spurious``) with a table of its
arguments: got, expected (admissible values as ``one of a | b``, ``(or left out)``),
weight and difference, as the page's call cards (``templates/report.js``) have them.

Example:
    >>> from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory
    >>> from ek_otel.core.evaluate import score_episode
    >>> s = score_episode(Episode("r", Trajectory([Step("refund", {"order": "A1", "amount": 100})])),
    ...                   TaskSpec("r", gold=[("refund", {"order": "A1", "amount": AnyOf((10, 10.0))})]))
    >>> print(score_text(s))
    fail: 0/1 calls matched; refund.amount: expected one of [10, 10.0], got 100
    <BLANKLINE>
    differs  refund
      argument   got    expected          weight   difference
      order      "A1"   "A1"
      amount     100    one of 10 | 10.0  1        wrong value
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any, Optional

from ..core.episode import AnyOf

__all__ = ["score_text", "value_text", "allowed_text", "LONG_VALUE"]

#: Values longer than this are cut in the text (the JSON report has them whole).
LONG_VALUE = 300

_ABSENT = "(absent)"
_NONE = "\u2013"


def value_text(value: Any, *, long: int = LONG_VALUE) -> str:
    """A value as the page shows it: its JSON text, cut past ``long`` characters.

    Example:
        >>> value_text("A1"), value_text({"x": [1, 2.5]}), value_text("é" * 5, long=3)
        ('"A1"', '{"x": [1, 2.5]}', '"éé… (4 more characters)')
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > long:
        return f"{text[:long]}\u2026 ({len(text) - long:,} more characters)"
    return text


def allowed_text(values: Any) -> str:
    """Admissible values as the page shows them (``""`` means the argument may be left out).

    Example:
        >>> allowed_text(("celsius", "")), allowed_text((10, 10.0)), allowed_text(("",))
        ('"celsius" (or left out)', 'one of 10 | 10.0', '(left out)')
    """
    values = list(values)
    optional = "" in values
    shown = [value_text(v) for v in values if v != ""]
    text = "(left out)" if not shown else shown[0] if len(shown) == 1 else "one of " + " | ".join(shown)
    return f"{text} (or left out)" if optional and shown else text


def _expected_text(gold: Any) -> str:
    return allowed_text(gold.values) if isinstance(gold, AnyOf) else value_text(gold)


def _weight(weight: float) -> str:
    return str(int(weight)) if float(weight).is_integer() else repr(float(weight))


def _card(row: Any, diffs: tuple) -> tuple:
    """``(status, tool, rows)`` of one paired call: the page's call card."""
    got, gold = row.got, row.gold
    status = "missing" if got is None else "spurious" if gold is None else (
        "match" if row.exact else "differs")
    tool = (got if got is not None else gold)[0]
    mine = [diffs[i] for i in row.diffs if 0 <= i < len(diffs)]
    by_arg = {d.arg: d for d in mine}
    names: list = []
    for args in (gold[1] if gold is not None else None, got[1] if got is not None else None):
        if isinstance(args, Mapping):
            names.extend(name for name in args if name not in names)
    names.extend(d.arg for d in mine if d.arg not in names)
    got_args = got[1] if got is not None and isinstance(got[1], Mapping) else {}
    gold_args = gold[1] if gold is not None and isinstance(gold[1], Mapping) else {}
    rows = []
    for name in names:
        d = by_arg.get(name)
        got_value = (value_text(got_args[name]) if name in got_args else _ABSENT) if got is not None else _NONE
        if gold is None:
            expected = _NONE
        elif name in gold_args:
            expected = _expected_text(gold_args[name])
        elif d is not None and d.kind != "unexpected" and d.expected is not None:
            expected = allowed_text(d.expected) if isinstance(d.expected, (list, tuple)) else value_text(d.expected)
        else:
            expected = "(not expected)"
        rows.append((str(name), got_value, expected, _weight(d.weight) if d else "",
                     d.kind.replace("_", " ", 1) if d else ""))
    return status, str(tool), rows


def _table_lines(rows: list, width: int) -> list:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 2, 0, 0),
                  header_style=None)
    for name in ("argument", "got", "expected", "weight", "difference"):
        table.add_column(name, overflow="fold")
    for cells in rows:
        table.add_row(*cells)
    out = io.StringIO()
    Console(file=out, width=width - 2, color_system=None, force_terminal=False, highlight=False,
            emoji=False, markup=False).print(table)
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    return ["  " + line for line in lines if line and set(line.strip()) - {"\u2500", " "}]


def score_text(score: Any, *, width: int = 100, verdict: Optional[str] = None) -> str:
    """An :class:`~ek_otel.core.scores.EpisodeScore` as text (see the module doc).

    ``verdict`` replaces the first word (``pass``/``fail`` from ``score.success``).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> print(score_text(EpisodeScore("t", success=True, explanation="no call expected and none made")))
        pass: no call expected and none made
        <BLANKLINE>
        no call expected and none made
    """
    lines = [f"{verdict or ('pass' if score.success else 'fail')}: {score.explanation}", ""]
    rows = tuple(score.calls)
    if not rows:
        lines.append("no call expected and none made")
    turned = any(r.turn is not None for r in rows)
    last_turn: Any = object()
    for row in rows:
        if turned and row.turn != last_turn:
            last_turn = row.turn
            lines.append(f"turn {int(row.turn) + 1}" if row.turn is not None else "turn ?")
        status, tool, args = _card(row, tuple(score.arg_diffs))
        lines.append(f"{status:<8} {tool}")
        lines.extend(_table_lines(args, width) if args else ["  no arguments"])
    return "\n".join(lines)
