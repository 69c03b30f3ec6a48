"""Text that every writer can encode: lone surrogates (``"\\ud800"``, which JSON escapes
and Python's parsers let through, but UTF-8 cannot hold) become U+FFFD.

The readers repair what they parse (``ingest.semconv.loads``, ``ingest.otlp.parse_json``);
the writers (JSON reports, score files, HTML pages, episodes) encode through
:func:`utf8_bytes` / :func:`utf8_safe` as well, so no string that reaches them, whatever
its source, can break a report.

Example:
    >>> utf8_bytes("caf\\u00e9"), utf8_bytes("a\\ud800b")
    (b'caf\\xc3\\xa9', b'a\\xef\\xbf\\xbdb')
    >>> utf8_safe("a\\udfffb") == "a\\ufffdb", has_lone_surrogates("ok")
    (True, False)
"""

from __future__ import annotations

import re

__all__ = ["LONE_SURROGATE", "utf8_bytes", "utf8_safe", "has_lone_surrogates"]

#: One UTF-16 surrogate code point (a lone one: Python strings never pair them).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8, each lone surrogate written as U+FFFD (no copy when there is none)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (``text`` itself when there is none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text)
    return text


def has_lone_surrogates(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (UTF-8 cannot encode it)."""
    return LONE_SURROGATE.search(text) is not None
