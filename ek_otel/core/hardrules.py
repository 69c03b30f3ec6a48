"""Hard rules of a task: what a run must never do, whatever its calls match.

Three rules, each its own kind of failure (in the score's ``violations``, the report's
breakdowns, the JUnit file and the page), each failing the run whatever ``match`` says:

- ``forbid``: tool names (``*`` matches any run of characters, as in ``ignore_tools``) that
  must never be called; kind ``forbidden_call``, one per call made;
- ``max_calls``: the most calls a run may make, per tool name and, under ``"*"``, in
  total; kind ``too_many_calls``, one per limit exceeded;
- ``no_repeat``: the same call (the same tool with the same arguments, key order aside)
  made twice; kind ``repeated_call``, one per call repeated.

The rules read the calls the matcher scores: after ``ignore_tools`` removed the
framework's own.

Example:
    >>> calls = [("search", {"q": "a"}), ("search", {"q": "a"}), ("delete_user", {"id": 1})]
    >>> rules = HardRules(forbid=("delete_*",), max_calls={"search": 1}, no_repeat=True)
    >>> [v.text for v in rules.violations(calls)]
    ['forbidden: delete_user called', 'search called 2 times (max 1)', 'repeated: search called twice with the same arguments']
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .ignore import is_ignored

__all__ = ["VIOLATION_KINDS", "Violation", "HardRules", "TOTAL"]

#: The kinds of hard-rule failure, in the order breakdowns list them.
VIOLATION_KINDS = ("forbidden_call", "too_many_calls", "repeated_call")
#: The ``max_calls`` key that limits every call together.
TOTAL = "*"


@dataclass(frozen=True)
class Violation:
    """One hard rule broken by a run.

    Args:
        kind: One of :data:`VIOLATION_KINDS`.
        tool: The tool concerned (``"*"`` for the total of ``max_calls``).
        detail: What was seen: the pattern that forbids the tool, ``"4 > 3"`` for a limit,
            the repeated arguments as JSON.

    Example:
        >>> Violation("too_many_calls", "search", "4 > 3").text
        'search called 4 times (max 3)'
    """

    kind: str
    tool: str
    detail: str = ""

    @property
    def text(self) -> str:
        """The phrase explanations show."""
        if self.kind == "forbidden_call":
            return f"forbidden: {self.tool} called"
        if self.kind == "too_many_calls":
            made, _, most = self.detail.partition(" > ")
            what = "calls in all" if self.tool == TOTAL else f"{self.tool} called"
            if self.tool == TOTAL:
                return f"{made} {what} (max {most})"
            return f"{what} {made} times (max {most})"
        return f"repeated: {self.tool} called twice with the same arguments"

    def to_dict(self) -> dict:
        """The JSON report's form.

        Example:
            >>> Violation("forbidden_call", "rm", "r*").to_dict()
            {'kind': 'forbidden_call', 'tool': 'rm', 'detail': 'r*'}
        """
        return {"kind": self.kind, "tool": self.tool, "detail": self.detail}


def _same_call_key(tool: str, args: Mapping) -> str:
    return tool + "\x00" + json.dumps(args, sort_keys=True, default=repr, ensure_ascii=False)


@dataclass(frozen=True)
class HardRules:
    """The hard rules of one task (all off by default).

    Example:
        >>> HardRules().active, HardRules(no_repeat=True).active
        (False, True)
        >>> HardRules(max_calls={"*": 2}).violations([("a", {}), ("b", {}), ("c", {})])[0].text
        '3 calls in all (max 2)'
    """

    forbid: Sequence[str] = ()
    max_calls: Mapping[str, int] = field(default_factory=dict)
    no_repeat: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "forbid", tuple(self.forbid))
        object.__setattr__(self, "max_calls", dict(self.max_calls))

    @property
    def active(self) -> bool:
        """Whether any rule is set."""
        return bool(self.forbid or self.max_calls or self.no_repeat)

    def violations(self, calls: Sequence[tuple]) -> tuple:
        """Every :class:`Violation` of ``(tool, args)`` calls, in the order of the rules.

        Example:
            >>> HardRules(forbid=["rm"]).violations([("ls", {}), ("rm", {"p": "/"})])
            (Violation(kind='forbidden_call', tool='rm', detail='rm'),)
        """
        if not self.active:
            return ()
        out = []
        if self.forbid:
            for tool, _ in calls:
                for pattern in self.forbid:
                    if is_ignored(tool, (pattern,)):
                        out.append(Violation("forbidden_call", tool, pattern))
                        break
        if self.max_calls:
            made = Counter(tool for tool, _ in calls)
            for tool, most in self.max_calls.items():
                n = len(calls) if tool == TOTAL else made.get(tool, 0)
                if n > most:
                    out.append(Violation("too_many_calls", tool, f"{n} > {most}"))
        if self.no_repeat:
            seen: set = set()
            for tool, args in calls:
                key = _same_call_key(tool, args)
                if key in seen:
                    out.append(Violation("repeated_call", tool,
                                         json.dumps(args, sort_keys=True, default=repr,
                                                    ensure_ascii=False)))
                seen.add(key)
        return tuple(out)
