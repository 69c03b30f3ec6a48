"""BFCL's JSON Lines, parsed as the official loader reads them, fast: a whole data or result
file in one orjson call where it can be, exact integers beyond 64 bits, question lines kept
as views of the file's bytes (score files write them as they are).

:class:`~ek_otel.bfcl.data.BfclData` and :mod:`~ek_otel.bfcl.runner` read every file
through these functions; nothing here knows of categories or entries.

Example:
    >>> parse_json_lines('{"id": "a", "n": 12345678901234567890}\\n{"id": "b"}\\n')
    [{'id': 'a', 'n': 12345678901234567890}, {'id': 'b'}]
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

try:  # optional speed-up; identical results for the JSON BFCL writes
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is optional
    _orjson = None

__all__ = ["LINE_ID", "has_long_digits", "parse_json", "split_lines", "parse_json_lines",
           "plain_lines", "parse_whole", "parse_lines", "parse_questions", "id_lines"]

_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19
LINE_ID = re.compile(rb'\{"id": "([^"\\]*)"[,}]')


def has_long_digits(text: Any) -> bool:
    """Whether ``text`` (str or bytes) holds a run of 19 or more ASCII digits (an integer
    orjson may not read exactly: it reads integers beyond 64 bits as floats).

    The same answer as ``re.search("[0-9]{19}", text)``, an order of magnitude faster on
    result files full of long float digits (UTF-8 encodes no other character with the
    bytes of ``0``-``9``).

    Example:
        >>> has_long_digits('{"a": 1234567890123456789}'), has_long_digits('[0.123456789012345678]')
        (True, False)
        >>> has_long_digits("é" * 30 + "1" * 19), has_long_digits(b"[1234567890123456789]")
        (True, True)
    """
    if len(text) < 19:
        return False
    if type(text) is str:
        text = text.encode("utf-8", "surrogatepass")
    return text.translate(_DIGITS_TO_ZERO).find(_NINETEEN_DIGITS) >= 0


def parse_json(text: Any, *, exact_ints: bool = True) -> Any:
    """Parse one JSON document, str or UTF-8 bytes (orjson when installed, same result as
    :func:`json.loads`).

    orjson reads integers beyond 64 bits as floats, so text holding a 19-digit run goes to
    :func:`json.loads`; ``exact_ints=False`` skips that scan for text known to hold none.

    Example:
        >>> parse_json('{"a": [1, 2.5, "x"]}')
        {'a': [1, 2.5, 'x']}
        >>> parse_json('[123456789012345678901234567890]'), parse_json(b'[12345678901234567890]')
        ([123456789012345678901234567890], [12345678901234567890])
    """
    kind = type(text)
    if kind is memoryview and (exact_ints or _orjson is None):  # a view of a file's bytes
        text = text.tobytes()
        kind = bytes
    if _orjson is not None and not (exact_ints and (kind is str or kind is bytes)
                                    and has_long_digits(text)):
        try:
            return _orjson.loads(text)  # str, bytes or (exact_ints=False) a memoryview
        except (_orjson.JSONDecodeError, TypeError):
            pass  # NaN, huge integers, bad input...: the standard parser decides (and words the error)
    if kind is memoryview:
        text = text.tobytes()
        kind = bytes
    if kind is bytes:
        text = text.decode("utf-8")  # strict, as a file read as UTF-8 text
    return json.loads(text)


def split_lines(text: Any) -> list:
    """The non-blank lines of a JSON Lines text (str or bytes), split as the official
    ``load_file`` splits them: universal newlines (``\\r\\n``, ``\\r``, ``\\n``), nothing
    else. (``str.splitlines`` would also split inside JSON strings holding a raw U+2028,
    U+2029 or U+0085, which BFCL's ``ensure_ascii=False`` writers leave unescaped.)

    Example:
        >>> split_lines('{"a": "x\\u2028y"}\\r\\n\\n {"b": 2}\\n')
        ['{"a": "x\\u2028y"}', ' {"b": 2}']
        >>> split_lines(b'{"a": 1}\\r{"b": 2}')
        [b'{"a": 1}', b'{"b": 2}']
    """
    if type(text) is bytes:
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return [line for line in text.split(b"\n") if line and not line.isspace()]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [line for line in text.split("\n") if line.strip()]


def parse_json_lines(text: Any, *, exact_ints: bool = True) -> list:
    """Parse JSON Lines text, str or UTF-8 bytes (blank lines skipped; lines as
    :func:`split_lines`); ``exact_ints`` as in :func:`parse_json`.

    With orjson the lines are parsed in one call as a JSON array (and line by line if that
    fails or does not give one value per line).

    Example:
        >>> parse_json_lines('{"id": 1}\\n\\n{"id": 2}\\n')
        [{'id': 1}, {'id': 2}]
        >>> parse_json_lines(b'{"id": 1}\\n')
        [{'id': 1}]
    """
    if type(text) is bytes:
        values = parse_whole(text, exact_ints)
        if values is not None:
            return values
    return parse_lines(split_lines(text), exact_ints=exact_ints)


def plain_lines(raw: bytes) -> Optional[bytes]:
    """``raw`` without its final newline, when it has no ``\\r`` line end (then its lines
    are the result split at ``\\n``), else None.

    Example:
        >>> plain_lines(b'{"a": 1}\\n{"b": 2}\\n'), plain_lines(b'{"a": 1}\\r\\n')
        (b'{"a": 1}\\n{"b": 2}', None)
    """
    if not raw or b"\r" in raw:
        return None
    return raw[:-1] if raw.endswith(b"\n") else raw


def parse_whole(raw: bytes, exact_ints: bool = True, objects: bool = False) -> Optional[list]:
    """The values of JSON Lines bytes in one orjson call, without splitting them into lines
    (the text :func:`parse_lines` joins, so the same values), or None: then split them.
    A blank or whitespace-only line leaves ``,,`` or ``, ,`` in the text, which does not
    parse (None). ``objects``: only when every line is one object by its shape (``{...}``).

    Example:
        >>> parse_whole(b'{"id": 1}\\n{"id": 2}\\n', objects=True)
        [{'id': 1}, {'id': 2}]
        >>> parse_whole(b'{"id": 1}, {"id": 2}\\n', objects=True) is None
        True
    """
    body = plain_lines(raw)
    if _orjson is None or body is None or (exact_ints and has_long_digits(body)):
        return None
    if objects and not (body.startswith(b"{") and body.endswith(b"}")
                        and body.count(b"}\n{") == body.count(b"\n")):
        return None
    try:
        values = _orjson.loads(b"[" + body.replace(b"\n", b",") + b"]")
    except (_orjson.JSONDecodeError, TypeError):
        return None
    return values if len(values) == body.count(b"\n") + 1 else None


def parse_lines(lines: list, *, exact_ints: bool = True) -> list:
    """Parse already split JSON Lines (all str or all bytes), one value per line;
    ``exact_ints`` as in :func:`parse_json`.

    Example:
        >>> parse_lines([b'{"id": 1}', b'[2]'])
        [{'id': 1}, [2]]
    """
    if _orjson is not None and lines:
        if type(lines[0]) is bytes:
            whole = b"[" + b",".join(lines) + b"]"
        else:
            whole = "[" + ",".join(lines) + "]"
        if not (exact_ints and has_long_digits(whole)):
            try:
                values = _orjson.loads(whole)
            except (_orjson.JSONDecodeError, TypeError):
                values = None
            if values is not None and len(values) == len(lines):
                return values
    return [parse_json(line, exact_ints=exact_ints) for line in lines]


_FUNCTION_KEY = b', "function": ['
_SPACE = frozenset(b" \t\n\x0b\x0c\r")  # what bytes.isspace() calls space


def parse_questions(raw: bytes, *, exact_ints: bool, lines: Optional[list] = None) -> list:
    """Question lines, each parsed whole unless its ``function`` doc list is the same text
    as the line before's (``lines``, when given, receives each entry's line: a view of
    ``raw`` when it can be).

    BFCL's live data groups the entries that share a doc list; a line whose text from
    ``, "function": [`` on is the line before's is parsed up to there only, and shares the
    doc list parsed before (the same values as a whole parse: a cut anywhere but at the
    top level leaves the head unbalanced, and it is then parsed whole). Lines are found in
    ``raw`` itself (no copy of the file line by line) unless it has ``\\r`` line ends.
    """
    entries = []
    view = memoryview(raw)
    skip = len(_FUNCTION_KEY) - 1
    tail = b""  # the previous line's text from its doc list on, and that doc list
    tail_docs = None
    for text, first, last in _line_bounds(raw):
        entry = None
        cut = text.find(_FUNCTION_KEY, first, last)
        if cut > first and text.endswith(b"]}", first, last):
            start = cut + skip
            if tail_docs is not None and last - start == len(tail) and text.startswith(tail, start):
                try:
                    head = parse_json(text[first:cut] + b"}", exact_ints=exact_ints)
                except ValueError:
                    head = None
                if type(head) is dict and "function" not in head:
                    head["function"] = tail_docs
                    entry = head
            if entry is None:
                entry = parse_json(view[first:last] if text is raw else text,
                                   exact_ints=exact_ints)
                docs = entry.get("function") if type(entry) is dict else None
                tail, tail_docs = (text[start:last], docs) if type(docs) is list else (b"", None)
        else:
            entry = parse_json(view[first:last] if text is raw else text, exact_ints=exact_ints)
        entries.append(entry)
        if lines is not None:  # a view of raw, not a copy: raw is kept anyway
            lines.append(view[first:last] if text is raw else text)
    return entries


def _line_bounds(raw: bytes) -> list:
    """``(text, start, end)`` of each line :func:`split_lines` gives: ``text[start:end]``
    is the line; ``text`` is ``raw`` itself unless ``\\r`` line ends had to be normalized
    (then each line is a copy)."""
    if b"\r" in raw:
        return [(line, 0, len(line)) for line in split_lines(raw)]
    bounds = []
    find = raw.find
    position, size = 0, len(raw)
    while position < size:
        end = find(b"\n", position)
        if end < 0:
            end = size
        if end > position and not (raw[position] in _SPACE and raw[position:end].isspace()):
            bounds.append((raw, position, end))
        position = end + 1
    return bounds


def id_lines(raw: bytes) -> Optional[list]:
    """``(id, memoryview of the line)`` of every line of ``raw``, found without splitting
    it (no copy of each line), or None unless every line is a plain ``{"id": "...", ...``
    line (no blank line, no ``\\r``): then the caller splits as :func:`split_lines`."""
    if b"\r" in raw:
        return None
    view = memoryview(raw)
    lines = []
    find, match = raw.find, LINE_ID.match
    position, size = 0, len(raw)
    while position < size:
        end = find(b"\n", position)
        if end < 0:
            end = size
        found = match(raw, position)
        if found is None or found.end() > end:
            return None
        lines.append((found.group(1).decode("utf-8"), view[position:end]))
        position = end + 1
    return lines
