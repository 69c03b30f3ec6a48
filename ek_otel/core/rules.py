"""Argument rules: gold values that say *how* a value must look, not which value it is.

A gold argument is normally a list of admissible values (BFCL's possible answer). A run
often cannot know some values in advance (an order id, a timestamp), or compares numbers
with a tolerance, or needs a string compared exactly (a path, a password). A **rule** says
so, in a form a person can read in the gold file::

    {"any": true}                          any value, as long as the argument is present
    {"regex": "A-[0-9]+"}                  a string the regular expression matches whole
    {"number": 35.5, "abs_tol": 0.01}      a number within 0.01 of 35.5
    {"number": 35.5, "rel_tol": 0.02}      a number within 2% of 35.5
    {"min": 10, "max": 20}                 a number between 10 and 20 (inclusive)
    {"exact": "/Tmp/Report.PDF"}           this value, compared case- and space-sensitively
    {"contains": "refund issued"}          a string holding this text (folded like the
                                           default comparison unless "case_sensitive": true)

Every rule may add ``"optional": true``: the argument may then be left out. Rules are
checked when the gold file loads (:func:`parse_rule` raises :class:`RuleError` with the
problem; a bad regular expression is named with the position of its error). A regular
expression runs on RE2, in time linear in the string (:mod:`ek_otel.core.linear_regex`: a
pattern RE2 does not support, a lookaround or a backreference, is refused here).

Each rule is a frozen dataclass with ``matches(value, canon)``, ``describe()`` (the text
explanations use, e.g. ``35.5 ± 0.01``) and ``to_dict()`` (its gold-file form).

Example:
    >>> rule = parse_rule({"number": 35.5, "abs_tol": 0.01})
    >>> rule.describe(), rule.matches(35.504), rule.matches(355.0)
    ('35.5 ± 0.01', True, False)
    >>> parse_rule({"regex": "A-[0-9]+"}).matches("A-77")
    True
    >>> parse_rule({"any": True, "optional": True}).to_dict()
    {'any': True, 'optional': True}
    >>> parse_rule({"regex": "A-("})
    Traceback (most recent call last):
    ...
    ek_otel.core.rules.RuleError: bad regular expression 'A-(': missing ), unterminated subpattern at position 2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .linear_regex import compile_linear, fullmatch

__all__ = [
    "RULE_KINDS",
    "RULE_KEYS",
    "Rule",
    "AnyValue",
    "Pattern",
    "Number",
    "Exact",
    "Contains",
    "RuleError",
    "parse_rule",
    "is_rule",
    "rule_problems",
]

#: The key that names each kind of rule (exactly one per rule object; ``min``/``max``
#: together or alone make a range).
RULE_KINDS = ("any", "regex", "number", "min", "max", "exact", "contains")

#: Every key a rule object may carry.
RULE_KEYS = RULE_KINDS + ("abs_tol", "rel_tol", "case_sensitive", "optional")


class RuleError(ValueError):
    """A rule object that is not valid (the message says what and how to fix it)."""


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _num(value: float) -> str:
    """A number as a person writes it: ``35.5``, ``10``, ``1e-06``."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if isinstance(value, int) else repr(value).rstrip("0").rstrip(".")
    return repr(value)


@dataclass(frozen=True)
class Rule:
    """The base of every argument rule (``optional``: the argument may be left out)."""

    optional: bool = field(default=False, kw_only=True)

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        """Whether ``value`` satisfies the rule (``canon``: the comparison's canonicalizer)."""
        raise NotImplementedError

    def describe(self) -> str:
        """What the rule admits, for explanations."""
        raise NotImplementedError

    def _body(self) -> dict:
        raise NotImplementedError

    def to_dict(self) -> dict:
        """The rule's gold-file object (:func:`parse_rule` reads it back)."""
        out = self._body()
        if self.optional:
            out["optional"] = True
        return out


@dataclass(frozen=True)
class AnyValue(Rule):
    """Any value: the argument must be present (unless optional), its value is free.

    Example:
        >>> AnyValue().matches("A-77"), AnyValue().describe()
        (True, 'any value')
    """

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        return True

    def describe(self) -> str:
        return "any value"

    def _body(self) -> dict:
        return {"any": True}


@dataclass(frozen=True)
class Pattern(Rule):
    """A string (or an integer, read as its digits) that the regular expression matches whole.

    Example:
        >>> p = Pattern("[0-9]{4}-[0-9]{2}-[0-9]{2}T.*")
        >>> p.matches("2026-12-01T10:00:00Z"), p.matches("yesterday"), p.matches(None)
        (True, False, False)
        >>> Pattern("ORD-[0-9]+").describe()
        'matches /ORD-[0-9]+/'
    """

    regex: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", _compile(self.regex))

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            return False
        return fullmatch(self._compiled, value if isinstance(value, str) else str(value))

    def describe(self) -> str:
        return f"matches /{self.regex}/"

    def _body(self) -> dict:
        return {"regex": self.regex}


def _compile(regex: str) -> Any:
    try:
        return compile_linear(regex)
    except ValueError as exc:
        raise RuleError(str(exc)) from None


@dataclass(frozen=True)
class Number(Rule):
    """A number near a value (``abs_tol``, ``rel_tol``, as :func:`math.isclose`) or in a range.

    A boolean is never a number. With neither tolerance the number must be equal (``1 ==
    1.0``).

    Example:
        >>> Number(35.5, abs_tol=0.01).matches(35.5), Number(35.5, abs_tol=0.01).matches(355.0)
        (True, False)
        >>> Number(100, rel_tol=0.05).describe(), Number(100, rel_tol=0.05).matches(104)
        ('100 ± 5%', True)
        >>> Number(low=10, high=20).describe(), Number(low=10, high=20).matches(20)
        ('between 10 and 20', True)
        >>> Number(1).matches(True), Number(1).matches(1.0)
        (False, True)
    """

    value: Optional[float] = None
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    low: Optional[float] = None
    high: Optional[float] = None

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        if not _is_number(value) or (isinstance(value, float) and math.isnan(value)):
            return False
        if self.value is not None:
            if self.abs_tol == 0.0 and self.rel_tol == 0.0:
                return value == self.value
            return math.isclose(value, self.value, rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        if self.low is not None and value < self.low:
            return False
        return not (self.high is not None and value > self.high)

    def describe(self) -> str:
        if self.value is not None:
            tolerances = []
            if self.abs_tol:
                tolerances.append(f"± {_num(self.abs_tol)}")
            if self.rel_tol:
                tolerances.append(f"± {_num(round(self.rel_tol * 100, 9))}%")
            return " ".join([_num(self.value)] + tolerances) if tolerances else f"= {_num(self.value)}"
        if self.low is not None and self.high is not None:
            return f"between {_num(self.low)} and {_num(self.high)}"
        if self.low is not None:
            return f"at least {_num(self.low)}"
        return f"at most {_num(self.high)}"

    def _body(self) -> dict:
        if self.value is not None:
            out: dict = {"number": self.value}
            if self.abs_tol:
                out["abs_tol"] = self.abs_tol
            if self.rel_tol:
                out["rel_tol"] = self.rel_tol
            return out
        out = {}
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        return out


@dataclass(frozen=True)
class Exact(Rule):
    """This value exactly: strings compared case- and whitespace-sensitively, other values
    by equality (a boolean never equals a number).

    Example:
        >>> Exact("/Tmp/A").matches("/Tmp/A"), Exact("/Tmp/A").matches("/tmp/a")
        (True, False)
        >>> Exact("S3cret").describe()
        "exactly 'S3cret' (case-sensitive)"
    """

    value: Any = None

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        if isinstance(value, bool) != isinstance(self.value, bool):
            return False
        return type(value) is type(self.value) and value == self.value or (
            _is_number(value) and _is_number(self.value) and value == self.value)

    def describe(self) -> str:
        return f"exactly {self.value!r} (case-sensitive)"

    def _body(self) -> dict:
        return {"exact": self.value}


@dataclass(frozen=True)
class Contains(Rule):
    """A string that holds ``text``: folded (case, runs of spaces) like the default
    comparison, or as written with ``case_sensitive``.

    Example:
        >>> Contains("refund issued").matches("Your REFUND   issued today.")
        True
        >>> Contains("Refund", case_sensitive=True).matches("refund"), Contains("x").describe()
        (False, "contains 'x'")
    """

    text: str = ""
    case_sensitive: bool = False

    def matches(self, value: Any, canon: Optional[Callable[[Any], Any]] = None) -> bool:
        if not isinstance(value, str):
            return False
        if self.case_sensitive:
            return self.text in value
        return _fold(self.text) in _fold(value)

    def describe(self) -> str:
        return f"contains {self.text!r}" + (" (case-sensitive)" if self.case_sensitive else "")

    def _body(self) -> dict:
        out: dict = {"contains": self.text}
        if self.case_sensitive:
            out["case_sensitive"] = True
        return out


def is_rule(value: Any) -> bool:
    """True for a :class:`Rule` object.

    Example:
        >>> is_rule(AnyValue()), is_rule(["x"])
        (True, False)
    """
    return isinstance(value, Rule)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def rule_problems(obj: Any) -> list[str]:
    """Every problem of one rule object (``[]``: valid).

    Example:
        >>> rule_problems({"number": 1, "abs_tol": -1})
        ['abs_tol must be a number >= 0, got -1']
        >>> rule_problems({"regex": "a", "any": True})
        ["give one kind of rule, got 'any' and 'regex' together"]
        >>> rule_problems({"regx": "a"})
        ["unknown key 'regx' in a rule (keys: any, regex, number, min, max, exact, contains, abs_tol, rel_tol, case_sensitive, optional)", 'a rule needs one of: any, regex, number, min/max, exact, contains']
    """
    if not isinstance(obj, Mapping):
        return [f"a rule must be an object, got {_short(obj)}"]
    problems = [f"unknown key '{k}' in a rule (keys: {', '.join(RULE_KEYS)})"
                for k in obj if k not in RULE_KEYS]
    kinds = sorted({("range" if k in ("min", "max") else k) for k in obj if k in RULE_KINDS})
    if not kinds:
        return problems + ["a rule needs one of: any, regex, number, min/max, exact, contains"]
    if len(kinds) > 1:
        named = " and ".join(f"'{k}'" if k != "range" else "'min'/'max'" for k in kinds)
        return problems + [f"give one kind of rule, got {named} together"]
    kind = kinds[0]
    if "optional" in obj and not isinstance(obj["optional"], bool):
        problems.append(f"optional must be true or false, got {_short(obj['optional'])}")
    for key in ("abs_tol", "rel_tol"):
        if key in obj and kind != "number":
            problems.append(f"{key} goes with 'number', not with '{kind}'")
        elif key in obj and not (_is_number(obj[key]) and math.isfinite(obj[key]) and obj[key] >= 0):
            problems.append(f"{key} must be a number >= 0, got {_short(obj[key])}")
    if "case_sensitive" in obj:
        if kind != "contains":
            problems.append("case_sensitive goes with 'contains' ('exact' is always case-sensitive)")
        elif not isinstance(obj["case_sensitive"], bool):
            problems.append(f"case_sensitive must be true or false, got {_short(obj['case_sensitive'])}")
    if kind == "any" and obj["any"] is not True:
        problems.append(f'write {{"any": true}} for any value, got {_short(obj["any"])}')
    elif kind == "regex":
        if not isinstance(obj["regex"], str):
            problems.append(f"regex must be a string, got {_short(obj['regex'])}")
        else:
            try:
                _compile(obj["regex"])
            except RuleError as exc:
                problems.append(str(exc))
    elif kind == "number":
        if not (_is_number(obj["number"]) and math.isfinite(obj["number"])):
            problems.append(f"number must be a finite number, got {_short(obj['number'])}")
    elif kind == "range":
        for key in ("min", "max"):
            if key in obj and not (_is_number(obj[key]) and math.isfinite(obj[key])):
                problems.append(f"{key} must be a finite number, got {_short(obj[key])}")
        if not problems and "min" in obj and "max" in obj and obj["min"] > obj["max"]:
            problems.append(f"min ({obj['min']}) is greater than max ({obj['max']})")
    elif kind == "contains" and not (isinstance(obj["contains"], str) and obj["contains"]):
        problems.append(f"contains must be a non-empty string, got {_short(obj['contains'])}")
    elif kind == "exact" and isinstance(obj["exact"], (list, dict)):
        problems.append("exact takes one scalar value (a string, number, boolean or null); "
                        "list admissible values as [v1, v2] instead")
    return problems


def parse_rule(obj: Mapping[str, Any]) -> Rule:
    """The :class:`Rule` of a rule object (see the module docstring for the forms).

    Raises:
        RuleError: with the first problem (:func:`rule_problems`).

    Example:
        >>> parse_rule({"min": 1})
        Number(optional=False, value=None, abs_tol=0.0, rel_tol=0.0, low=1, high=None)
        >>> parse_rule({"exact": "Pa55", "optional": True}).optional
        True
    """
    problems = rule_problems(obj)
    if problems:
        raise RuleError(problems[0])
    optional = bool(obj.get("optional", False))
    if "any" in obj:
        return AnyValue(optional=optional)
    if "regex" in obj:
        return Pattern(obj["regex"], optional=optional)
    if "number" in obj:
        return Number(obj["number"], abs_tol=obj.get("abs_tol", 0.0), rel_tol=obj.get("rel_tol", 0.0),
                      optional=optional)
    if "min" in obj or "max" in obj:
        return Number(low=obj.get("min"), high=obj.get("max"), optional=optional)
    if "exact" in obj:
        return Exact(obj["exact"], optional=optional)
    return Contains(obj["contains"], case_sensitive=bool(obj.get("case_sensitive", False)),
                    optional=optional)
