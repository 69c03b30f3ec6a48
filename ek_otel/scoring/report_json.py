"""The JSON report's text, and the file it goes to: exactly ``json.dumps(data, indent=2, ensure_ascii=False) + "\\n"``,
encoded with orjson.

orjson writes the same indented text as the stdlib (two spaces, ``", "`` never used with an
indent, ``": "`` after keys, ``[]`` and ``{}`` when empty, the shortest round-tripping
float), about 30 times faster (``bench/all.py``: 0.25 s → 0.01 s for the report of 10k
episodes). It differs on a few floats: it writes ``1e-05`` as ``0.00001`` and ``1.5e-07`` as
``1.5e-7``; a chunk holding such a number, or anything orjson refuses (a non-string key, an
integer beyond 64 bits), is encoded with the stdlib instead, so the bytes never change. The
report holds no NaN (``to_jsonable`` writes ``null``), the one value the two would write
differently without a trace in the text.

Long lists at the top level (the episodes) are encoded in blocks, so the text of a large
report is never held whole. A top-level value that is sized and iterable but not a list
(:class:`~ek_otel.scoring.report.EpisodeStream`: rows read from a spool) is written as the
list it yields, in blocks, so that the rows are never held whole either. When it also has
``encoded`` (a function that returns the items already encoded, each as :func:`list_item` made
it: the exact bytes the report holds at that place), those bytes are joined as they are, so
the rows can be encoded where they are made (``ek-otel score``: in the process that scores
each episode) and the writer only concatenates.

Example:
    >>> data = {"f1": 0.5, "episodes": [{"id": "é", "x": []} for _ in range(3)], "tiny": 1e-05}
    >>> b"".join(indented_json_chunks(data, block=2)).decode() == json.dumps(
    ...     data, indent=2, ensure_ascii=False) + "\\n"
    True
    >>> from ek_otel.scoring.report import EpisodeStream
    >>> lazy = {**data, "episodes": EpisodeStream(lambda: iter(data["episodes"]), 3)}
    >>> b"".join(indented_json_chunks(lazy, block=2)) == b"".join(indented_json_chunks(data))
    True
    >>> lazy["episodes"].encoded = lambda: (list_item(row) for row in data["episodes"])
    >>> b"".join(indented_json_chunks(lazy, block=2)) == b"".join(indented_json_chunks(data))
    True
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sized
from typing import Any, Iterator

from ..core.text import utf8_bytes

__all__ = ["indented_json_chunks", "list_item", "with_last_key", "write_json_file"]

_DIGITS = b"0123456789"
_NUMBER_CHARS = b"0123456789.-"
_BEFORE_A_NUMBER = b" \n["  # a value follows ": ", an indent, or "["


def _starts_a_number(out: bytes, i: int) -> bool:
    """Whether the number text around ``out[i]`` is a JSON number (not inside a string)."""
    j = i - 1
    while j >= 0 and out[j] in _NUMBER_CHARS:
        j -= 1
    return j < 0 or out[j] in _BEFORE_A_NUMBER


def _floats_differ(out: bytes) -> bool:
    """Whether orjson's text holds a number it writes differently from ``repr(float)``: four
    zeros after the point (``0.00001`` for ``1e-05``), or a one-digit negative exponent
    (``1.5e-7`` for ``1.5e-07``). Found with ``bytes.find`` (a regular expression over a
    report of 10k episodes took longer than encoding it); a string holding such text only
    sends its chunk to the stdlib.

    Example:
        >>> _floats_differ(b'{"a": 0.00001}'), _floats_differ(b'[1.5e-7]'), _floats_differ(b'[1e-10]')
        (True, True, False)
        >>> _floats_differ(b'{"id": "simple-1", "x": 10.00001}')
        False
    """
    i = out.find(b"e-")
    while i != -1:
        if (0 < i and out[i - 1] in _DIGITS and out[i + 2:i + 3].isdigit()
                and not out[i + 3:i + 4].isdigit() and _starts_a_number(out, i - 1)):
            return True
        i = out.find(b"e-", i + 2)
    i = out.find(b"0.0000")
    while i != -1:
        if (i == 0 or out[i - 1] not in _DIGITS) and _starts_a_number(out, i):
            return True
        i = out.find(b"0.0000", i + 6)
    return False


#: Items of a top-level list encoded at once.
BLOCK = 2000


def _stdlib(value: Any, depth: int) -> bytes:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return utf8_bytes(text.replace("\n", "\n" + "  " * depth))  # a lone surrogate: U+FFFD


def _encode(value: Any, depth: int) -> bytes:
    """``value`` as the stdlib would indent it ``depth`` levels down (first line unindented)."""
    try:
        import orjson

        out = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except (ImportError, TypeError):  # no wheel; a value orjson refuses
        return _stdlib(value, depth)
    if _floats_differ(out):
        return _stdlib(value, depth)
    return out.replace(b"\n", b"\n" + b"  " * depth) if depth else out


def _blocks(items: Iterable[Any], block: int, inner: Callable[[list], bytes], end: bytes) -> Iterator[bytes]:
    """A list written ``block`` items at a time: ``[``, then each chunk's ``inner`` bytes
    (its items, indented, without the brackets), then ``end``; ``[]`` when there are none."""
    rows = iter(items)
    first = True
    while True:
        chunk = list(itertools.islice(rows, block))
        if not chunk:
            break
        yield (b"[\n" if first else b",\n") + inner(chunk)
        first = False
    yield b"[]" if first else end


def _list_blocks(items: Iterable[Any], depth: int, block: int) -> Iterator[bytes]:
    """A list of values, each block encoded at once (``"[\n" + items + "\n" + pad + "]"``)."""
    def inner(chunk: list) -> bytes:
        encoded = _encode(chunk, depth)
        return encoded[2:encoded.rindex(b"\n")]

    return _blocks(items, block, inner, b"\n" + b"  " * depth + b"]")


#: How deep the items of a top-level list of the report are (the object, then the key's list).
_ITEM_DEPTH = 2
_ITEM_PAD = b"  " * _ITEM_DEPTH
_ITEM_END = b"\n" + _ITEM_PAD + b"}"


def list_item(value: Any) -> bytes:
    """The bytes of ``value`` as an item of a top-level list of the report (the episodes):
    its indent, then its text, exactly as :func:`indented_json_chunks` writes it there (one
    item encoded alone: a float orjson writes differently sends only that item to the stdlib).

    Example:
        >>> list_item({"f1": 0.5, "tiny": 1e-05})
        b'    {\\n      "f1": 0.5,\\n      "tiny": 1e-05\\n    }'
    """
    return _ITEM_PAD + _encode(value, _ITEM_DEPTH)


def with_last_key(item: bytes, key: str, value: Any) -> bytes:
    """A :func:`list_item` of an object with one more key, last: the bytes of
    ``{**obj, key: value}`` at the same place.

    Example:
        >>> with_last_key(list_item({"f1": 0.5}), "group", 1) == list_item({"f1": 0.5, "group": 1})
        True
    """
    if not item.endswith(_ITEM_END) or item.endswith(b"{}"):
        raise ValueError("not a non-empty object encoded by list_item")
    pad = _ITEM_PAD + b"  "
    entry = pad + utf8_bytes(json.dumps(key, ensure_ascii=False)) + b": " + _encode(value, _ITEM_DEPTH + 1)
    return item[:-len(_ITEM_END)] + b",\n" + entry + _ITEM_END


def _item_blocks(items: Iterable[bytes], block: int) -> Iterator[bytes]:
    """A top-level list of :func:`list_item` bytes, joined ``block`` items at a time."""
    return _blocks(items, block, b",\n".join, b"\n  ]")


def _streamed(value: Any) -> bool:
    """A sized iterable that is not a JSON container itself: written as a list, in blocks."""
    return (not isinstance(value, (list, tuple, dict, str, bytes))
            and isinstance(value, Sized) and isinstance(value, Iterable))


def indented_json_chunks(data: Any, block: int = BLOCK) -> Iterator[bytes]:
    """UTF-8 chunks of ``json.dumps(data, indent=2, ensure_ascii=False) + "\\n"`` (module doc)."""
    if not isinstance(data, dict) or not data or not all(isinstance(k, str) for k in data):
        yield _encode(data, 0) + b"\n"
        return
    yield b"{\n"
    last = len(data) - 1
    for i, (key, value) in enumerate(data.items()):
        yield b"  " + utf8_bytes(json.dumps(key, ensure_ascii=False)) + b": "
        encoded = getattr(value, "encoded", None) if _streamed(value) else None
        if encoded is not None:
            yield from _item_blocks(encoded(), block)
        elif (isinstance(value, list) and len(value) > block) or _streamed(value):
            yield from _list_blocks(value, 1, block)
        else:
            yield _encode(value, 1)
        yield b",\n" if i < last else b"\n"
    yield b"}\n"


def write_json_file(data: Any, path: str) -> None:
    """Write ``data`` as the JSON report's text (:func:`indented_json_chunks`) to ``path``,
    streamed in chunks: the text of a report of 100k episodes (some 150 MB) is never held whole.

    Raises:
        InputError: the file cannot be written (named, with why).

    Example:
        >>> import json, os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "r.json")
        >>> write_json_file({"f1": None}, p)
        >>> json.load(open(p))
        {'f1': None}
        >>> write_json_file({}, "/no/such/dir/r.json")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/r.json: cannot write the JSON report: No such file or directory
    """
    from ..errors import InputError

    try:
        with open(path, "wb") as f:
            f.writelines(indented_json_chunks(data))
    except OSError as exc:
        raise InputError(f"cannot write the JSON report: {exc.strerror or exc}", path=path) from None
