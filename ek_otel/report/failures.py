"""Why runs failed, as data: each failing episode's failures by kind, tool and argument.

A failure is one of four kinds, read from an episode of the JSON report (its ``calls``, the
matcher's pairing of calls with gold calls; older reports: ``arg_diffs``,
``missing_calls``, ``spurious_calls``):

- ``wrong_value``: a call paired with its gold call whose arguments differ (one failure per
  argument difference: a wrong value or type, a required argument left out, an argument the
  gold does not have);
- ``wrong_tool``: in the same turn, a gold call left unmatched *and* a call to another tool
  left unmatched: the model called the wrong tool (counted once, under the expected tool);
- ``missing_call``: a gold call no call matched;
- ``spurious_call``: a call no gold call expected.

A task's hard rules add three kinds (the episode's ``violations``,
:mod:`ek_otel.core.hardrules`): ``forbidden_call``, ``too_many_calls`` and ``repeated_call``.
Under a task's ``match`` mode (the episode's ``match``), what the mode allows is no failure:
an extra call under ``superset``, a gold call not made under ``subset``.

An episode that failed with none of these (its arguments were not captured, or a matcher
that reports no pairing) gets one ``other`` failure, so every failing run is counted.

The HTML page (breakdowns, filters) and ``ek-otel score``'s terminal summary both read
these, so the page and the terminal count alike.

Example:
    >>> ep = {"success": False, "calls": [
    ...     {"got": {"tool": "refund", "args": {"amount": 355.0}}, "gold": {"tool": "refund"},
    ...      "turn": None, "exact": False, "arg_diffs": [0]},
    ...     {"got": {"tool": "email", "args": {}}, "gold": None, "turn": None}],
    ...     "arg_diffs": [{"tool": "refund", "arg": "amount", "kind": "wrong_value"}]}
    >>> [(f.kind, f.tool, f.arg) for f in failures_of(ep)]
    [('wrong_value', 'refund', 'amount'), ('spurious_call', 'email', None)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["FAILURE_KINDS", "KIND_LABELS", "Failure", "failures_of", "failure_counts"]

#: The failure kinds, most specific first (the order of every breakdown).
FAILURE_KINDS = ("forbidden_call", "too_many_calls", "repeated_call", "wrong_value",
                 "wrong_tool", "missing_call", "spurious_call", "other")
#: How each kind is written on pages and in the terminal.
KIND_LABELS = {"forbidden_call": "forbidden call", "too_many_calls": "too many calls",
               "repeated_call": "repeated call", "wrong_value": "wrong value",
               "wrong_tool": "wrong tool", "missing_call": "missing call",
               "spurious_call": "spurious call", "other": "other"}
#: The hard-rule kinds (:data:`ek_otel.core.hardrules.VIOLATION_KINDS`), read from ``violations``.
_RULE_KINDS = FAILURE_KINDS[:3]


@dataclass(frozen=True)
class Failure:
    """One reason a run failed.

    Args:
        kind: One of :data:`FAILURE_KINDS`.
        tool: The tool concerned (the expected one for ``wrong_tool``), or None.
        arg: The argument (``wrong_value`` only), or None.
        detail: The argument difference's kind (``wrong_value``), the tool called instead
            (``wrong_tool``), else None.

    Example:
        >>> Failure("wrong_tool", "refund", detail="cancel").as_list()
        ['wrong_tool', 'refund', None, 'cancel']
    """

    kind: str
    tool: Optional[str] = None
    arg: Optional[str] = None
    detail: Optional[str] = None

    def as_list(self) -> list:
        """``[kind, tool, arg, detail]``: the compact form the page embeds."""
        return [self.kind, self.tool, self.arg, self.detail]


def _tool(call: Any) -> Optional[str]:
    if isinstance(call, Mapping):
        tool = call.get("tool")
        return None if tool is None else str(tool)
    return None


def _paired_failures(row: Mapping, diffs: Sequence[Any]) -> list:
    tool = _tool(row.get("got")) or _tool(row.get("gold"))
    out = []
    for index in row.get("arg_diffs") or ():
        diff = diffs[index] if isinstance(index, int) and 0 <= index < len(diffs) else None
        if isinstance(diff, Mapping):
            arg = diff.get("arg")
            out.append(Failure("wrong_value", str(diff.get("tool") or tool),
                               None if arg is None else str(arg), diff.get("kind")))
    if not out and row.get("exact") is False:
        out.append(Failure("wrong_value", tool))
    return out


def _from_pairing(calls: Sequence[Any], diffs: Sequence[Any]) -> list:
    out: list = []
    missing: dict = {}  # turn -> gold tools no call matched
    spurious: dict = {}  # turn -> tools called that no gold expected
    for row in calls:
        if not isinstance(row, Mapping):
            continue
        got, gold = row.get("got"), row.get("gold")
        if got is not None and gold is not None:
            out.extend(_paired_failures(row, diffs))
        elif gold is not None:
            missing.setdefault(row.get("turn"), []).append(_tool(gold))
        elif got is not None:
            spurious.setdefault(row.get("turn"), []).append(_tool(got))
    for turn in list(dict.fromkeys([*missing, *spurious])):
        expected, called = missing.get(turn, []), spurious.get(turn, [])
        wrong = [(e, c) for e in expected for c in called if e != c]
        pairs = []
        for e, c in wrong:  # one wrong tool per unmatched pair, each call used once
            if e in expected and c in called:
                expected.remove(e)
                called.remove(c)
                pairs.append((e, c))
        out.extend(Failure("wrong_tool", e, None, c) for e, c in pairs)
        out.extend(Failure("missing_call", e) for e in expected)
        out.extend(Failure("spurious_call", c) for c in called)
    return out


def _from_lists(episode: Mapping) -> list:
    out = []
    for diff in episode.get("arg_diffs") or ():
        if isinstance(diff, Mapping):
            arg = diff.get("arg")
            out.append(Failure("wrong_value", _tool(diff), None if arg is None else str(arg),
                               diff.get("kind")))
    out.extend(Failure("missing_call", _tool(c)) for c in episode.get("missing_calls") or ())
    out.extend(Failure("spurious_call", _tool(c)) for c in episode.get("spurious_calls") or ())
    return out


def failures_of(episode: Mapping[str, Any]) -> tuple:
    """The :class:`Failure` s of one episode of a JSON report (none when it succeeded).

    Example:
        >>> failures_of({"success": True, "calls": []})
        ()
        >>> [f.kind for f in failures_of({"success": False, "calls": [
        ...     {"got": None, "gold": {"tool": "book"}, "turn": 1},
        ...     {"got": {"tool": "search"}, "gold": None, "turn": 1},
        ...     {"got": None, "gold": {"tool": "pay"}, "turn": 2}]})]
        ['wrong_tool', 'missing_call']
        >>> failures_of({"success": False, "explanation": "arguments not captured"})
        (Failure(kind='other', tool=None, arg=None, detail=None),)
        >>> [f.kind for f in failures_of({"success": False, "match": "superset", "calls": [
        ...     {"got": {"tool": "search"}, "gold": None, "turn": None}],
        ...     "violations": [{"kind": "too_many_calls", "tool": "search", "detail": "2 > 1"}]})]
        ['too_many_calls']
    """
    if not isinstance(episode, Mapping) or episode.get("success") is not False:
        return ()
    calls = episode.get("calls")
    diffs = episode.get("arg_diffs") or []
    out = _from_rules(episode.get("violations"))
    found = _from_pairing(calls, diffs) if isinstance(calls, list) else _from_lists(episode)
    allowed = _ALLOWED_BY_MATCH.get(episode.get("match"), ())
    out.extend(f for f in found if f.kind not in allowed)
    return tuple(out) if out else (Failure("other"),)


#: What each match mode allows, so that it is no failure.
_ALLOWED_BY_MATCH = {"superset": ("spurious_call",), "subset": ("missing_call",)}


def _from_rules(violations: Any) -> list:
    """The hard-rule failures of an episode's ``violations``.

    Example:
        >>> _from_rules([{"kind": "forbidden_call", "tool": "rm", "detail": "r*"}])
        [Failure(kind='forbidden_call', tool='rm', arg=None, detail='r*')]
    """
    out = []
    for v in violations or ():
        if isinstance(v, Mapping) and v.get("kind") in _RULE_KINDS:
            out.append(Failure(str(v["kind"]), _tool(v), None,
                               None if v.get("detail") is None else str(v.get("detail"))))
    return out


def failure_counts(episodes: Iterable[Mapping[str, Any]]) -> Counter:
    """Failures by kind over episodes (each failure counted; in :data:`FAILURE_KINDS` order).

    Example:
        >>> failure_counts([{"success": False, "missing_calls": [{"tool": "a"}, {"tool": "b"}]},
        ...                 {"success": True}])
        Counter({'missing_call': 2})
    """
    counts: Counter = Counter()
    for episode in episodes:
        counts.update(f.kind for f in failures_of(episode))
    return Counter({kind: counts[kind] for kind in FAILURE_KINDS if counts[kind]})
