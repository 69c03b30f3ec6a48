"""BFCL v4 test categories: their names, groups, and how the official runner treats each.

The official code decides almost everything by substring tests on the category name
(``"parallel" in category`` ...); these helpers copy those tests so that a category is
handled exactly as ``bfcl_eval`` handles it.

Example:
    >>> checker_kind("live_parallel_multiple"), checker_kind("live_irrelevance")
    ('ast', 'relevance')
    >>> group_of("simple_java"), group_of("memory_kv"), score_subdir("memory_kv")
    ('non_live', 'agentic', 'agentic/memory/kv')
    >>> category_from_filename("result/m/non_live/BFCL_v4_simple_python_result.json")
    'simple_python'
"""

from __future__ import annotations

import functools
import re
from typing import Optional

__all__ = [
    "VERSION_PREFIX",
    "NON_LIVE",
    "LIVE",
    "SINGLE_TURN",
    "MULTI_TURN",
    "MEMORY",
    "WEB_SEARCH",
    "AGENTIC",
    "ALL_SCORING",
    "is_relevance",
    "is_multi_turn",
    "is_agentic",
    "is_memory",
    "is_web_search",
    "is_java",
    "is_javascript",
    "language_of",
    "checker_kind",
    "group_of",
    "score_subdir",
    "memory_backend",
    "category_from_filename",
    "category_from_id",
    "sort_key",
]

VERSION_PREFIX = "BFCL_v4"

NON_LIVE = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
            "parallel_multiple", "irrelevance")
LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
        "live_irrelevance", "live_relevance")
SINGLE_TURN = NON_LIVE + LIVE
MULTI_TURN = tuple(f"multi_turn_{kind}" for kind in ("base", "miss_func", "miss_param",
                                                     "long_context"))
MEMORY = ("memory_kv", "memory_vector", "memory_rec_sum")
WEB_SEARCH = ("web_search_base", "web_search_no_snippet")
AGENTIC = MEMORY + WEB_SEARCH
ALL_SCORING = SINGLE_TURN + MULTI_TURN + AGENTIC

_FILE_CATEGORY = re.compile(rf".*{VERSION_PREFIX}_(\w+?)(?:_score|_result)?\.json")


def is_relevance(category: str) -> bool:
    """True for relevance and irrelevance categories (checked by "is there a call?" only).

    Example:
        >>> is_relevance("irrelevance"), is_relevance("live_relevance"), is_relevance("simple_python")
        (True, True, False)
    """
    return "relevance" in category


def is_multi_turn(category: str) -> bool:
    """True for the multi_turn_* categories.

    Example:
        >>> is_multi_turn("multi_turn_base"), is_multi_turn("multiple")
        (True, False)
    """
    return "multi_turn" in category


def is_memory(category: str) -> bool:
    """True for the memory_* categories.

    Example:
        >>> is_memory("memory_kv")
        True
    """
    return "memory" in category


def is_web_search(category: str) -> bool:
    """True for the web_search_* categories.

    Example:
        >>> is_web_search("web_search_no_snippet")
        True
    """
    return "web_search" in category


def is_agentic(category: str) -> bool:
    """True for memory and web-search categories (final-answer checking).

    Example:
        >>> is_agentic("memory_vector"), is_agentic("live_multiple")
        (True, False)
    """
    return is_memory(category) or is_web_search(category)


def is_javascript(category: str) -> bool:
    """True when the entries are JavaScript (values are source text).

    Example:
        >>> is_javascript("simple_javascript")
        True
    """
    return "javascript" in category


def is_java(category: str) -> bool:
    """True when the entries are Java (values are source text).

    Example:
        >>> is_java("simple_java"), is_java("simple_javascript")
        (True, False)
    """
    return "java" in category and not is_javascript(category)


@functools.lru_cache(maxsize=256)
def language_of(category: str) -> str:
    """``"java"``, ``"javascript"`` or ``"python"``: how values are decoded and typed.

    Example:
        >>> language_of("simple_java"), language_of("live_simple")
        ('java', 'python')
    """
    if is_javascript(category):
        return "javascript"
    if is_java(category):
        return "java"
    return "python"


def checker_kind(category: str) -> str:
    """Which checker scores the category: ``relevance``, ``multi_turn``, ``agentic`` or ``ast``.

    Example:
        >>> [checker_kind(c) for c in ("irrelevance", "multi_turn_base", "web_search_base", "parallel")]
        ['relevance', 'multi_turn', 'agentic', 'ast']
    """
    kinds = ((is_relevance, "relevance"), (is_multi_turn, "multi_turn"), (is_agentic, "agentic"))
    return next((kind for test, kind in kinds if test(category)), "ast")


def group_of(category: str) -> str:
    """The official group: ``non_live``, ``live``, ``multi_turn`` or ``agentic``.

    Example:
        >>> group_of("live_relevance"), group_of("multi_turn_miss_func")
        ('live', 'multi_turn')
    """
    if "live" in category and "non_live" not in category:
        return "live"
    if is_multi_turn(category):
        return "multi_turn"
    if is_agentic(category):
        return "agentic"
    return "non_live"


def memory_backend(category: str) -> str:
    """The memory backend of a memory category (``kv``, ``vector``, ``rec_sum``).

    Example:
        >>> memory_backend("memory_rec_sum")
        'rec_sum'
    """
    if not is_memory(category):
        raise ValueError(f"{category} is not a memory category")
    return category.split("memory_", 1)[1].replace("_prereq", "")


def score_subdir(category: str) -> str:
    """Where the official runner puts the category's score (and result) file, per model.

    Example:
        >>> score_subdir("parallel"), score_subdir("web_search_base")
        ('non_live', 'agentic')
    """
    group = group_of(category)
    if is_memory(category):
        return f"{group}/memory/{memory_backend(category)}"
    return group


def category_from_filename(path: str) -> Optional[str]:
    """The category named by a ``BFCL_v4_<category>_result.json`` file name, or None.

    Example:
        >>> category_from_filename("BFCL_v4_live_simple_score.json"), category_from_filename("x.json")
        ('live_simple', None)
    """
    match = _FILE_CATEGORY.search(str(path))
    return match.group(1) if match else None


def category_from_id(entry_id: str) -> str:
    """The category of an entry id (``live_simple_3-2-0`` -> ``live_simple``).

    Example:
        >>> category_from_id("live_simple_3-2-0"), category_from_id("simple_python_12")
        ('live_simple', 'simple_python')
    """
    return entry_id.split(":")[0].rsplit("_", 1)[0]


def sort_key(entry_id: str) -> tuple:
    """The official sort order of entry ids (by numeric index; ties keep file order).

    Example:
        >>> sorted(["simple_python_10", "simple_python_9"], key=sort_key)
        ['simple_python_9', 'simple_python_10']
    """
    head, _, index = entry_id.partition(":")[0].rpartition("_")
    number = index.partition("-")[0]
    return (head, int(number) if number.isdigit() else 0)
