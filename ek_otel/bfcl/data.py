"""BFCL v4 data: questions (function docs) and possible answers, from wherever they are.

A :class:`BfclData` reads ``BFCL_v4_<category>.json`` and ``possible_answer/`` from one of:

- a directory (the ``data/`` folder of ``bfcl_eval``, or any folder laid out like it);
- a ``bfcl-eval`` wheel, read as a zip (no install needed);
- the installed ``bfcl_eval`` package (the default).

Entries come back as plain dicts, parsed afresh on every call, so callers may mutate them.
:meth:`BfclData.questions` applies the same id rewriting and function-doc population as the
official loader (``load_dataset_entry(..., include_prereq=False,
include_language_specific_hint=False)``), agentic system prompt included.

Example:
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "possible_answer").mkdir()
    >>> _ = (d / "BFCL_v4_simple_python.json").write_text(json.dumps(
    ...     {"id": "simple_python_0", "question": [[]], "function": []}) + "\\n")
    >>> _ = (d / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(
    ...     {"id": "simple_python_0", "ground_truth": [{"f": {"a": [1]}}]}) + "\\n")
    >>> data = BfclData.locate(str(d))
    >>> [(e.id, e.ground_truth) for e in data.entries("simple_python")]
    [('simple_python_0', [{'f': {'a': [1]}}])]
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import BfclDataError, BfclDataNotFound
from .categories import (
    VERSION_PREFIX,
    is_agentic,
    is_memory,
    is_multi_turn,
    is_relevance,
    is_web_search,
    memory_backend,
)

try:  # optional speed-up; identical results for the JSON BFCL writes
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is optional
    _orjson = None

__all__ = [
    "BfclData",
    "BfclEntry",
    "DATA_HINT",
    "AGENTIC_SYSTEM_PROMPT",
    "FUNC_DOC_FILES",
    "parse_json_lines",
    "parse_json",
    "parse_lines",
    "split_lines",
    "plain_lines",
    "parse_whole",
    "has_long_digits",
]

#: What to do when no data can be found (library wording; the CLI names its ``--data``).
DATA_HINT = BfclDataNotFound.HINT

#: Multi-turn and agentic function-doc files, by simulated class name.
FUNC_DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}

#: The system message the official loader puts first in every agentic question
#: (``ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT``, bfcl_eval 2026.3.23).
AGENTIC_SYSTEM_PROMPT = "For your final answer to the user, you must respond in this format: {'answer': A short and precise answer to the question, 'context': A brief explanation of how you arrived at this answer or why it is correct}. If you do not know the answer, respond with {'answer': 'I do not know', 'context': 'I do not know'}. If you think the question cannot be properly answered, response with {'answer': 'I cannot answer this question', 'context': A short reason explaining why this question cannot be answered}.\n"

_WHEEL_PREFIX = "bfcl_eval/data/"
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19
_LINE_ID = re.compile(rb'\{"id": "([^"\\]*)"[,}]')
_TEXT_CACHE: dict = {}


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


def _parse_questions(raw: bytes, *, exact_ints: bool, lines: Optional[list] = None) -> list:
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


def _id_lines(raw: bytes) -> Optional[list]:
    """``(id, memoryview of the line)`` of every line of ``raw``, found without splitting
    it (no copy of each line), or None unless every line is a plain ``{"id": "...", ...``
    line (no blank line, no ``\\r``): then the caller splits as :func:`split_lines`."""
    if b"\r" in raw:
        return None
    view = memoryview(raw)
    lines = []
    find, match = raw.find, _LINE_ID.match
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


def _data_file(category: str) -> str:
    if is_memory(category):
        return f"{VERSION_PREFIX}_memory.json"
    if is_web_search(category):
        return f"{VERSION_PREFIX}_web_search.json"
    return f"{VERSION_PREFIX}_{category}.json"


@dataclass(frozen=True)
class BfclEntry:
    """One BFCL entry: the question entry (with its ``function`` docs) and its labels.

    ``answer`` is the raw possible-answer entry (None for relevance categories, which have
    none); ``ground_truth`` is its ``ground_truth`` field.

    Example:
        >>> e = BfclEntry("simple_python_0", "simple_python", {"function": []},
        ...               {"ground_truth": [{"f": {}}]})
        >>> e.ground_truth, e.functions
        ([{'f': {}}], [])
    """

    id: str
    category: str
    question: dict
    answer: Optional[dict] = None
    #: The question's line in the data file (UTF-8 JSON: bytes, or a memoryview of the
    #: file's cached bytes), kept for vetted data only, whose
    #: lines ``json.dumps`` wrote: a score file can then write the line as it is instead of
    #: encoding the question again (see :func:`~ek_otel.bfcl.score_files.line_text`).
    #: None otherwise. Not compared.
    question_line: Any = field(default=None, compare=False, repr=False)

    @property
    def ground_truth(self) -> Any:
        """The possible answer (``None`` when the category has no labels)."""
        return None if self.answer is None else self.answer.get("ground_truth")

    @property
    def functions(self) -> list:
        """The function docs offered to the model."""
        return self.question.get("function", [])


_new = object.__new__
_set = object.__setattr__


def _entry(entry_id: str, category: str, question: dict, answer: Optional[dict],
           question_line: Optional[bytes] = None) -> BfclEntry:
    """A :class:`BfclEntry`, built as its frozen ``__init__`` builds it, without the
    per-field ``object.__setattr__`` calls (thousands are made per category).

    Example:
        >>> _entry("a_0", "a", {}, None) == BfclEntry("a_0", "a", {}, None)
        True
    """
    entry = _new(BfclEntry)
    _set(entry, "__dict__", {"id": entry_id, "category": category, "question": question,
                             "answer": answer, "question_line": question_line})
    return entry


@dataclass(frozen=True)
class BfclData:
    """Where BFCL data is read from: a directory (``kind="dir"``) or a wheel (``kind="wheel"``).

    Use :meth:`locate` to build one. ``root`` is the data directory or the wheel path.
    ``vetted`` marks the data of a ``bfcl-eval`` package or wheel, whose files hold no
    integer beyond 64 bits (checked by the tests for 2026.3.23), so their lines are parsed
    without the scan :func:`parse_json` otherwise does.

    Example:
        >>> BfclData("/nowhere", "dir").describe()
        'directory /nowhere'
    """

    root: str
    kind: str = "dir"
    vetted: bool = False

    # -- finding the data ---------------------------------------------------------------

    @classmethod
    def locate(cls, path: Optional[str] = None) -> "BfclData":
        """Find the data: ``path`` (a directory or a wheel), else the installed ``bfcl_eval``.

        Raises :class:`~ek_otel.errors.BfclDataNotFound` (a BfclDataError, with
        :data:`DATA_HINT`) when nothing usable is found.

        Example:
            >>> BfclData.locate("/no/such/dir")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataNotFound: /no/such/dir: no BFCL data found: ...
        """
        if path:
            found = cls._from_path(path)
            if found is None:
                raise BfclDataNotFound(path)
            return found
        installed = cls.installed()
        if installed is not None:
            return installed
        raise BfclDataNotFound()

    @classmethod
    def installed(cls) -> Optional["BfclData"]:
        """The data of the installed ``bfcl_eval`` package, or None (never imports it).

        Example:
            >>> BfclData.installed().kind   # bfcl_eval installed, as the test setup installs it
            'dir'
        """
        try:
            spec = importlib.util.find_spec("bfcl_eval")
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        for location in spec.submodule_search_locations:
            found = cls._from_dir(os.path.join(location, "data"))
            if found is not None:
                return cls(found.root, "dir", vetted=True)
        return None

    @classmethod
    def _from_path(cls, path: str) -> Optional["BfclData"]:
        if os.path.isfile(path) and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
            if any(n.startswith(_WHEEL_PREFIX + VERSION_PREFIX) for n in names):
                return cls(os.path.abspath(path), "wheel", vetted=True)
            return None
        if os.path.isdir(path):
            for candidate in (path, os.path.join(path, "data"),
                              os.path.join(path, "bfcl_eval", "data")):
                found = cls._from_dir(candidate)
                if found is not None:
                    return found
        return None

    @classmethod
    def _from_dir(cls, path: str) -> Optional["BfclData"]:
        if not os.path.isdir(path):
            return None
        names = os.listdir(path)
        if any(n.startswith(VERSION_PREFIX) and n.endswith(".json") for n in names):
            return cls(os.path.abspath(path), "dir")
        return None

    def describe(self) -> str:
        """Where the data comes from, in words.

        Example:
            >>> BfclData("/w/x.whl", "wheel").describe()
            'wheel /w/x.whl'
        """
        return f"{'wheel' if self.kind == 'wheel' else 'directory'} {self.root}"

    # -- raw files ----------------------------------------------------------------------

    def exists(self, relpath: str) -> bool:
        """Whether ``relpath`` (relative to the data folder) exists.

        Example:
            >>> BfclData("/nowhere").exists("BFCL_v4_simple_python.json")
            False
        """
        if self.kind == "wheel":
            try:
                with zipfile.ZipFile(self.root) as archive:
                    archive.getinfo(_WHEEL_PREFIX + relpath)
                return True
            except (KeyError, OSError):
                return False
        return os.path.isfile(os.path.join(self.root, relpath))

    def read_bytes(self, relpath: str) -> bytes:
        """The bytes of ``relpath`` (relative to the data folder), cached per process.

        The data is parsed from bytes (orjson reads UTF-8 directly: no decoding to text).

        Example:
            >>> BfclData("/nowhere").read_bytes("x.json")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: directory /nowhere: x.json is missing
        """
        key = (self.kind, self.root, relpath)
        raw = _TEXT_CACHE.get(key)
        if raw is not None:
            return raw
        try:
            if self.kind == "wheel":
                with zipfile.ZipFile(self.root) as archive:
                    raw = archive.read(_WHEEL_PREFIX + relpath)
            else:
                with open(os.path.join(self.root, relpath), "rb") as handle:
                    raw = handle.read()
        except (KeyError, FileNotFoundError, NotADirectoryError):
            raise BfclDataError(f"{self.describe()}: {relpath} is missing") from None
        except OSError as exc:
            raise BfclDataError(f"{self.describe()}: cannot read {relpath}: {exc}") from None
        _TEXT_CACHE[key] = raw
        return raw

    def read_text(self, relpath: str) -> str:
        """The text of ``relpath`` (relative to the data folder; UTF-8, universal newlines).

        Example:
            >>> BfclData("/nowhere").read_text("x.json")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: directory /nowhere: x.json is missing
        """
        text = self.read_bytes(relpath).decode("utf-8")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text

    def read_jsonl(self, relpath: str) -> list:
        """The entries of a JSON Lines file under the data folder (fresh dicts each call).

        Example:
            >>> BfclData("/nowhere").read_jsonl("possible_answer/x.json")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: directory /nowhere: possible_answer/x.json is missing
        """
        try:
            return parse_json_lines(self.read_bytes(relpath), exact_ints=not self.vetted)
        except ValueError as exc:
            raise BfclDataError(f"{self.describe()}: {relpath}: bad JSON: {exc}") from None

    # -- entries ------------------------------------------------------------------------

    def func_docs(self, class_name: str) -> list:
        """The function docs of a multi-turn/agentic simulated class (e.g. ``MathAPI``).

        Example:
            >>> BfclData("/nowhere").func_docs("NoSuchAPI")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: unknown BFCL class NoSuchAPI
        """
        file_name = FUNC_DOC_FILES.get(class_name)
        if file_name is None:
            raise BfclDataError(f"unknown BFCL class {class_name}")
        return self.read_jsonl(f"multi_turn_func_doc/{file_name}")

    def questions(self, category: str) -> list:
        """The question entries of ``category``, as the official loader prepares them.

        Single-turn entries whose function docs are the same text (BFCL live entries share
        docs) share one parsed ``function`` list within a call.

        - web_search_*: ids ``web_search_N`` become ``<category>_N``;
        - memory_*: ids ``memory_...`` become ``<category>_...`` and ``involved_classes``
          becomes ``["MemoryAPI_<backend>"]``;
        - memory_* and web_search_*: :data:`AGENTIC_SYSTEM_PROMPT` is put first in the
          first turn;
        - multi-turn and agentic: ``function`` is filled from ``involved_classes``, and
          ``missed_function`` turn lists hold the held-out docs (removed from ``function``).

        Example:
            >>> BfclData("/nowhere").questions("simple_python")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: directory /nowhere: BFCL_v4_simple_python.json is missing
        """
        if is_multi_turn(category) or is_agentic(category):
            entries = self.read_jsonl(_data_file(category))
        else:
            entries = _parse_questions(self.read_bytes(_data_file(category)),
                                       exact_ints=not self.vetted)
        if is_web_search(category):
            for entry in entries:
                entry["id"] = entry["id"].replace("web_search", category)
        elif is_memory(category):
            backend_class = f"MemoryAPI_{memory_backend(category)}"
            for entry in entries:
                entry["id"] = entry["id"].replace("memory", category)
                entry["involved_classes"] = [backend_class]
        if is_agentic(category):
            for entry in entries:
                entry["question"][0].insert(0, {"role": "system", "content": AGENTIC_SYSTEM_PROMPT})
        if is_multi_turn(category) or is_agentic(category):
            docs_cache: dict = {}
            for entry in entries:
                self._populate_functions(entry, docs_cache)
        return entries

    def _populate_functions(self, entry: dict, docs_cache: dict) -> None:
        functions: list = []
        for class_name in entry.get("involved_classes", []):
            if class_name not in docs_cache:
                docs_cache[class_name] = self.func_docs(class_name)
            functions.extend(dict(doc) for doc in docs_cache[class_name])
        entry["function"] = functions
        missed = entry.get("missed_function")
        if missed:
            for turn, names in list(missed.items()):
                held_out = []
                for name in names:
                    for index, doc in enumerate(functions):
                        if doc["name"] == name:
                            held_out.append(functions.pop(index))
                            break
                missed[turn] = held_out

    def question_lines(self, category: str) -> list:
        """``(id, raw JSON line)`` of each question of a single-turn category, unparsed (the
        line as UTF-8 bytes, or a memoryview of the file's cached bytes: both for
        :func:`parse_json`).

        Lets a caller parse only the entries it needs (relevance checks need a question
        only to report a failure).

        Example:
            >>> BfclData("/nowhere").question_lines("multi_turn_base")
            Traceback (most recent call last):
            ...
            ValueError: question_lines is for single-turn categories, not multi_turn_base
        """
        if is_multi_turn(category) or is_agentic(category):
            raise ValueError(f"question_lines is for single-turn categories, not {category}")
        raw = self.read_bytes(_data_file(category))
        found = _id_lines(raw)
        if found is not None:
            return found
        lines = []
        for line in split_lines(raw):
            match = _LINE_ID.match(line)
            entry_id = match.group(1).decode("utf-8") if match else parse_json(line)["id"]
            lines.append((entry_id, line))
        return lines

    def answers(self, category: str) -> list:
        """The possible-answer entries of ``category`` (``[]`` for relevance categories).

        Example:
            >>> BfclData("/nowhere").answers("irrelevance")
            []
        """
        if is_relevance(category):
            return []
        return self.read_jsonl(f"possible_answer/{_data_file(category)}")

    def entries(self, category: str) -> list:
        """The :class:`BfclEntry` list of ``category``: questions joined with their answers.

        Answers are aligned by position, as the official runner does (some answer ids are
        written differently from their question ids).

        Example:
            >>> BfclData("/nowhere").entries("live_relevance")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: directory /nowhere: BFCL_v4_live_relevance.json is missing
        """
        lines: Optional[list] = None
        if is_multi_turn(category) or is_agentic(category) or not self.vetted:
            questions = self.questions(category)
        else:  # the lines too: score files may write them as they are (question_line)
            lines = []
            questions = _parse_questions(self.read_bytes(_data_file(category)),
                                         exact_ints=False, lines=lines)
        answers = self.answers(category)
        if answers and len(answers) != len(questions):
            raise BfclDataError(
                f"{self.describe()}: {category}: {len(questions)} questions but "
                f"{len(answers)} possible answers"
            )
        if lines is not None:
            return [_entry(q["id"], category, q, a, line)
                    for q, a, line in zip(questions, answers or [None] * len(questions), lines)]
        if not answers:
            return [_entry(q["id"], category, q, None) for q in questions]
        return [_entry(q["id"], category, q, a) for q, a in zip(questions, answers)]
