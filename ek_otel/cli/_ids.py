"""Ids shown in tables: each as long as it must be to be told apart from the others of the
same table (its shortest unique prefix), and never shorter than 8 hex digits.

64-bit trace ids padded to 128 bits (Jaeger, Zipkin, older X-Ray bridges) all begin with
16 zeros: 8 digits would show them all alike.

Example:
    >>> ids = ["0" * 16 + "ab12" + "0" * 12, "0" * 16 + "cd34" + "0" * 12, "f00dbabe" + "1" * 24]
    >>> short_ids(ids)
    ['0000000000000000a', '0000000000000000c', 'f00dbabe']
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MIN_ID_DIGITS", "short_ids"]

#: The fewest hex digits an id is shown with.
MIN_ID_DIGITS = 8


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def short_ids(ids: Sequence[str], minimum: int = MIN_ID_DIGITS) -> list:
    """Each id cut to its shortest prefix that no other id of ``ids`` shares (at least
    ``minimum`` characters; an id shown whole when another one begins with all of it).
    The same id twice is shown alike; an empty id stays empty.

    Example:
        >>> short_ids(["abcdef0123456789", "abcdef0199999999", "abcdef0123456789"])
        ['abcdef012', 'abcdef019', 'abcdef012']
        >>> short_ids(["12345678abc", ""]), short_ids([])
        (['12345678', ''], [])
    """
    distinct = sorted({i for i in ids if i})
    length: dict = {}
    for k, current in enumerate(distinct):
        need = 0
        for j in (k - 1, k + 1):
            if 0 <= j < len(distinct):
                need = max(need, _common(current, distinct[j]) + 1)
        length[current] = min(len(current), max(minimum, need))
    return [i[:length[i]] if i else i for i in ids]
