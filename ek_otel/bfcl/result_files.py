"""BFCL result files found and read: ``BFCL_v4_<category>_result.json``, sorted as BFCL sorts them.

A result file is JSON Lines of ``{"id", "result", ...}``; a result directory is searched
recursively for such files, as the official runner does (``result/<model>/non_live/...``),
the model being the directory above the group directories. Entries are sorted by id as the
official ``load_file(..., sort_by_id=True)`` sorts them. A bad line is an
:class:`~ek_otel.errors.InputError` naming the file and the line. Checking them is
:mod:`ek_otel.bfcl.runner`.

Example:
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "m" / "non_live"
    >>> d.mkdir(parents=True)
    >>> _ = (d / "BFCL_v4_irrelevance_result.json").write_text(
    ...     json.dumps({"id": "irrelevance_1", "result": []}) + "\\n" +
    ...     json.dumps({"id": "irrelevance_0", "result": [{"f": "{}"}]}) + "\\n")
    >>> [(f.model, f.category, [r["id"] for r in f.records]) for f in find_result_files([str(d.parent)])]
    [('m', 'irrelevance', ['irrelevance_0', 'irrelevance_1'])]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from ..core.gc_pause import paused_gc
from ..errors import InputError
from .categories import ALL_SCORING, VERSION_PREFIX, category_from_filename
from .jsonlines import has_long_digits, parse_json, parse_lines, parse_whole, split_lines

__all__ = ["ResultFile", "read_result_file", "find_result_files"]

_GROUP_DIRS = {"non_live", "live", "multi_turn", "agentic", "memory", "web_search",
               "kv", "vector", "rec_sum", "format_sensitivity"}


@dataclass(frozen=True)
class ResultFile:
    """One result file: its path, model, category and records (sorted as BFCL sorts them).

    ``long_digits`` is False when the file's text holds no run of 19 digits and no escaped
    digit (``\\u003N``): then no model output in it holds an integer beyond 64 bits, and
    its arguments are parsed without looking for one (see
    :func:`~ek_otel.bfcl.jsonlines.parse_json`).

    Example:
        >>> ResultFile("x.json", "m", "parallel", ({"id": "parallel_0", "result": []},)).category
        'parallel'
    """

    path: str
    model: str
    category: str
    records: tuple = ()
    long_digits: bool = True


def _model_of(path: str) -> str:
    parent = os.path.dirname(os.path.abspath(path))
    while os.path.basename(parent) in _GROUP_DIRS:
        parent = os.path.dirname(parent)
    return os.path.basename(parent) or "model"


def read_result_file(path: str, model: Optional[str] = None) -> ResultFile:
    """Read one ``BFCL_v4_<category>_result.json`` file (JSON Lines), sorted by id.

    Example:
        >>> read_result_file("/no/BFCL_v4_parallel_result.json")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/BFCL_v4_parallel_result.json: no such file
    """
    category = category_from_filename(os.path.basename(path))
    if category is None:
        raise InputError(f"not a BFCL result file (expected {VERSION_PREFIX}_<category>_result.json)",
                         path=path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None
    long_digits = has_long_digits(raw) or b"\\u003" in raw
    with paused_gc():
        records = _parse_records(raw, path, long_digits)
    return ResultFile(path, model or _model_of(path), category, tuple(records), long_digits)


def _parse_records(raw: bytes, path: str, long_digits: bool = True) -> list:
    """The records of a result file's bytes, sorted by id (one bulk parse when every line
    looks like an object, else line by line to name the line at fault)."""
    records = parse_whole(raw, long_digits, objects=True)  # one parse, no split
    if records is None:
        lines = split_lines(raw)
        if _bulk_ok(lines):
            try:
                records = parse_lines(lines, exact_ints=long_digits)
            except ValueError:
                records = None
    if records is None or not all(type(r) is dict and "id" in r for r in records):
        records = []  # line by line, to name the line at fault
        if b"\r" in raw:
            raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        for number, line in enumerate(raw.split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                record = parse_json(line)
            except ValueError as exc:
                raise InputError(f"bad JSON: {exc}", path=path, line=number) from None
            if not isinstance(record, dict) or "id" not in record:
                raise InputError("a result line must be an object with an id", path=path,
                                 line=number)
            records.append(record)
    records.sort(key=_record_key)
    return records


def _record_key(record: dict) -> tuple:
    """:func:`~ek_otel.bfcl.categories.sort_key` of a record's id, inlined (one call per
    record instead of three: result files are sorted on every run).

    Example:
        >>> from ek_otel.bfcl.categories import sort_key
        >>> _record_key({"id": "live_simple_3-2-0"}) == sort_key("live_simple_3-2-0")
        True
        >>> _record_key({"id": 7}) == sort_key("7")
        True
    """
    entry_id = record["id"]
    if type(entry_id) is not str:
        entry_id = str(entry_id)
    head, _, index = entry_id.partition(":")[0].rpartition("_")
    number = index.partition("-")[0]
    return (head, int(number) if number.isdigit() else 0)


def _bulk_ok(lines: list) -> bool:
    """Every line (non-blank bytes) is one JSON object by its shape (then one bulk parse
    is safe)."""
    for line in lines:
        if not (line.startswith(b"{") and line.endswith(b"}")):
            stripped = line.strip()
            if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
                return False
    return True


def find_result_files(paths: Iterable[str]) -> list:
    """The result files named by ``paths`` (files, or directories searched recursively).

    A file named twice is read once; two files for the same model (directory name) and
    category are an :class:`~ek_otel.errors.InputError`, since their verdicts would mix.

    Example:
        >>> find_result_files(["/no/such/dir"])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir: no such file or directory
    """
    found = []
    with paused_gc():  # parsing only: no cyclic garbage
        for path in paths:
            if os.path.isdir(path):
                names = []
                for root, _dirs, files in os.walk(path):
                    for name in files:
                        if name.startswith(VERSION_PREFIX) and name.endswith("_result.json"):
                            names.append(os.path.join(root, name))
                for name in sorted(names):
                    if category_from_filename(os.path.basename(name)) in ALL_SCORING:
                        found.append(read_result_file(name))
            elif os.path.isfile(path):
                found.append(read_result_file(path))
            else:
                raise InputError("no such file or directory", path=path)
    unique, seen = [], {}
    for result_file in found:
        real = os.path.realpath(result_file.path)
        key = (result_file.model, result_file.category)
        if key in seen:
            if seen[key] == real:
                continue  # the same file named twice (a directory and a file in it)
            raise InputError(f"a second result file for model {result_file.model!r}, category "
                             f"{result_file.category!r} (the first: {seen[key]}); score them "
                             f"in separate runs", path=result_file.path)
        seen[key] = real
        unique.append(result_file)
    order = {category: index for index, category in enumerate(ALL_SCORING)}
    unique.sort(key=lambda f: (f.model, order.get(f.category, len(order))))
    return unique
