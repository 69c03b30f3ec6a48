"""Regular expressions of gold rules, matched in linear time (RE2) on strings from traces.

A gold rule's ``{"regex": ...}`` (an argument rule, an answer rule) meets strings an agent
wrote, which are untrusted: a backtracking engine (Python's ``re``) spends time exponential
in the string on a pattern such as ``(a+)+$``. ek-otel matches these patterns with RE2
(``google-re2``), whose time is linear in the string, whatever the pattern. The price is
RE2's syntax: no lookarounds (``(?=``, ``(?!``, ``(?<=``), no backreferences (``\\1``), no
``\\Z`` (write ``\\z``), counted repetition up to ``{1000}``; and ``\\d``, ``\\w``, ``\\s``,
``\\b`` are ASCII (write ``\\p{N}``, ``\\p{L}`` for Unicode). A pattern RE2 refuses is refused
when the gold file loads (one line naming the file, line and field), never at scoring time.

A lone surrogate in the string (a broken escape in a trace) is matched as U+FFFD, as
everywhere else a trace string is repaired.

Example:
    >>> compile_linear("A-[0-9]+").fullmatch("A-77") is not None
    True
    >>> fullmatch(compile_linear("(a+)+$"), "a" * 30 + "!")
    False
    >>> compile_linear("(a)\\\\1")
    Traceback (most recent call last):
    ...
    ValueError: regular expression '(a)\\\\1' is not supported by the linear-time engine (RE2): invalid escape sequence: \\1 (no lookarounds, no backreferences, no \\Z: write \\z)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

from .text import utf8_safe

__all__ = ["compile_linear", "fullmatch"]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print its parse errors to stderr; we raise them
_HINT = "(no lookarounds, no backreferences, no \\Z: write \\z)"


@lru_cache(maxsize=1024)
def compile_linear(regex: str) -> Any:
    """The RE2 program of ``regex``; ValueError naming the problem (a syntax error with its
    position, as Python's ``re`` gives it, or what RE2 does not support).

    Example:
        >>> compile_linear("A-(")
        Traceback (most recent call last):
        ...
        ValueError: bad regular expression 'A-(': missing ), unterminated subpattern at position 2
    """
    try:
        return re2.compile(utf8_safe(regex), _OPTIONS)
    except re2.error as exc:
        engine = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) \
            else str(exc)
    try:
        re.compile(regex)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise ValueError(f"bad regular expression {regex!r}: {exc.msg}{where}") from None
    except (OverflowError, RecursionError, MemoryError):  # pragma: no cover - re's own limits
        pass
    raise ValueError(f"regular expression {regex!r} is not supported by the linear-time engine "
                     f"(RE2): {engine} {_HINT}")


def fullmatch(program: Any, text: str) -> bool:
    """Whether the compiled ``program`` matches all of ``text`` (lone surrogates as U+FFFD).

    Example:
        >>> fullmatch(compile_linear("a.b"), "a\\ud800b")
        True
    """
    return program.fullmatch(utf8_safe(text)) is not None
