"""Framework-internal tools: calls that are neither true nor false positives.

Agent frameworks make tool calls of their own that no task asks for: smolagents ends every
run with ``final_answer``, the OpenAI Agents SDK hands off with ``transfer_to_<agent>``,
some agents call a ``think`` tool. Scored as they are, each is a false positive. The
``ignore_tools`` of a gold task, ``--ignore-tool`` of ``ek-otel score``/``serve`` and the
``ignore_tools`` argument of :func:`~ek_otel.core.evaluate.score_episode` name them; their
calls are removed from the predicted calls before matching (the ek matcher and the BFCL
matcher alike), so they count nowhere: not as TP, not as FP, and not in
``args_captured``.

A name is matched exactly (case-sensitive); ``*`` matches any run of characters, so
``transfer_to_*`` ignores every handoff. A pattern that is empty, or that matches every
name (``*``), is refused. The pattern :data:`HOSTED` (``@hosted``) ignores every hosted
step (a tool the model provider ran itself: web search, file search, code interpreter,
Anthropic's server tools), whatever its name; ``web_search`` ignores that one by name.

Example:
    >>> from ek_otel.core.episode import Episode, Step, Trajectory
    >>> ep = Episode("t", Trajectory([Step("search"), Step("transfer_to_billing"),
    ...                               Step("final_answer", {"answer": "42"})]))
    >>> kept, ignored = without_ignored(ep, ("final_answer", "transfer_to_*"))
    >>> kept.trajectory.tools, ignored
    (('search',), ('transfer_to_billing', 'final_answer'))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

__all__ = ["HOSTED", "check_ignore_patterns", "pattern_problem", "glob_match", "is_ignored", "without_ignored",
           "merge_ignore_patterns"]

#: The pattern that ignores every hosted step (``Step.hosted``), whatever its tool name.
HOSTED = "@hosted"


def check_ignore_patterns(patterns: Iterable[Any], *, name: str = "ignore_tools") -> tuple:
    """The patterns as a tuple of strings, first occurrence kept; ValueError for a bad one.

    Args:
        patterns: Tool names, ``*`` matching any run of characters.
        name: What the patterns are called in the error (the caller's parameter).

    Raises:
        ValueError: not a list of strings, an empty name, or a pattern matching every name.

    Example:
        >>> check_ignore_patterns(["final_answer", "transfer_to_*", "final_answer"])
        ('final_answer', 'transfer_to_*')
        >>> check_ignore_patterns(["*"])
        Traceback (most recent call last):
        ...
        ValueError: ignore_tools: '*' would ignore every call
        >>> check_ignore_patterns("final_answer")
        Traceback (most recent call last):
        ...
        ValueError: ignore_tools must be a list of tool names, got a string
    """
    if isinstance(patterns, (str, bytes)):
        raise ValueError(f"{name} must be a list of tool names, got a string")
    out: dict = {}
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem:
            raise ValueError(f"{name}: {problem}")
        out.setdefault(pattern, None)
    return tuple(out)


def pattern_problem(pattern: Any) -> str:
    """What is wrong with one pattern, or ``""``.

    Example:
        >>> pattern_problem("think"), pattern_problem(""), pattern_problem(3)
        ('', 'a tool name must be a non-empty string, got ""', 'a tool name must be a non-empty string, got 3')
    """
    if not isinstance(pattern, str) or not pattern.strip():
        shown = '""' if pattern == "" else repr(pattern)
        return f"a tool name must be a non-empty string, got {shown}"
    if not pattern.replace("*", "").strip():
        return f"{pattern!r} would ignore every call"
    return ""


def glob_match(pattern: str, name: str) -> bool:
    """Whether ``name`` matches ``pattern`` whole, ``*`` matching any run of characters
    (every other character itself): the literal parts are found left to right, each at its
    first place after the one before (which is always a right choice), so the time is at
    most the name's length times the pattern's, never backtracking.

    Example:
        >>> glob_match("transfer_to_*", "transfer_to_billing"), glob_match("*a*a*b", "a" * 100)
        (True, False)
        >>> glob_match("a*b*a", "aba"), glob_match("a*a", "a")
        (True, False)
    """
    parts = pattern.split("*")
    if len(parts) == 1:
        return name == pattern
    first, last = parts[0], parts[-1]
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    at, end = len(first), len(name) - len(last)
    for part in parts[1:-1]:
        found = name.find(part, at, end)
        if found < 0:
            return False
        at = found + len(part)
    return True


def is_ignored(tool: str, patterns: Iterable[str]) -> bool:
    """True when ``tool`` matches one of the patterns.

    Example:
        >>> is_ignored("transfer_to_billing", ["transfer_to_*"]), is_ignored("Think", ["think"])
        (True, False)
    """
    for pattern in patterns:
        if glob_match(pattern, tool):
            return True
    return False


def merge_ignore_patterns(*groups: Iterable[str]) -> tuple:
    """The union of pattern lists, in first-seen order (the CLI's, then the task's).

    Example:
        >>> merge_ignore_patterns(["think"], ("final_answer", "think"))
        ('think', 'final_answer')
    """
    return tuple(dict.fromkeys(p for group in groups for p in group))


def without_ignored(episode: Any, patterns: Iterable[str]) -> tuple:
    """``(episode, ignored)``: a copy of the episode without the steps whose tool matches a
    pattern, and the ignored tool names in call order. The same episode comes back when
    nothing is ignored (no copy).

    Example:
        >>> from ek_otel.core.episode import Episode, Step, Trajectory
        >>> ep = Episode("t", Trajectory([Step("a")]))
        >>> without_ignored(ep, ["b"])[0] is ep
        True
        >>> ep = Episode("t", Trajectory([Step("a"), Step("web_search", hosted=True)]))
        >>> without_ignored(ep, [HOSTED])[1]
        ('web_search',)
    """
    patterns = tuple(patterns)
    trajectory = getattr(episode, "trajectory", None)
    steps = getattr(trajectory, "steps", ())
    if not patterns or not steps:
        return episode, ()
    kept = []
    ignored = []
    hosted = HOSTED in patterns
    for step in steps:
        drop = (hosted and getattr(step, "hosted", False)) or is_ignored(step.tool, patterns)
        (ignored if drop else kept).append(step)
    if not ignored:
        return episode, ()
    return replace(episode, trajectory=replace(trajectory, steps=tuple(kept))), tuple(
        step.tool for step in ignored)
