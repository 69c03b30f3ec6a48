"""BFCL v4 data: questions (function docs) and possible answers, from wherever they are.

A :class:`BfclData` reads ``BFCL_v4_<category>.json`` and ``possible_answer/`` from one of:

- a directory (the ``data/`` folder of ``bfcl_eval``, or any folder laid out like it);
- a ``bfcl-eval`` wheel, read as a zip (no install needed);
- the installed ``bfcl_eval`` package (the default).

Entries come back as plain dicts, parsed afresh on every call, so callers may mutate them.
:meth:`BfclData.questions` applies the same id rewriting and function-doc population as the
official loader (``load_dataset_entry(..., include_prereq=False,
include_language_specific_hint=False)``), agentic system prompt included (read from the
``bfcl_eval`` package the data comes with, or the installed one).

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

import ast
import importlib.util
import os
import zipfile
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import BfclDataError, BfclDataNotFound
from .jsonlines import LINE_ID, id_lines, parse_json, parse_json_lines, parse_questions, split_lines
from .categories import (
    VERSION_PREFIX,
    is_agentic,
    is_memory,
    is_multi_turn,
    is_relevance,
    is_web_search,
    memory_backend,
)

__all__ = [
    "BfclData",
    "BfclEntry",
    "DATA_HINT",
    "AGENTIC_PROMPT_SOURCE",
    "CLASS_STEMS",
    "FUNC_DOC_FILES",
]

#: What to do when no data can be found (library wording; the CLI names its ``--data``).
DATA_HINT = BfclDataNotFound.HINT

#: Each simulated class of the multi-turn and agentic categories, with the stem its function
#: docs (``multi_turn_func_doc/<stem>.json``) and its module in ``bfcl_eval`` share.
CLASS_STEMS = dict(pair.split("=") for pair in (
    "GorillaFileSystem=gorilla_file_system MathAPI=math_api MessageAPI=message_api "
    "TwitterAPI=posting_api TicketAPI=ticket_api TradingBot=trading_bot "
    "TravelAPI=travel_booking VehicleControlAPI=vehicle_control WebSearchAPI=web_search "
    "MemoryAPI_kv=memory_kv MemoryAPI_vector=memory_vector MemoryAPI_rec_sum=memory_rec_sum"
).split())

#: Multi-turn and agentic function-doc files, by simulated class name.
FUNC_DOC_FILES = {name: f"{stem}.json" for name, stem in CLASS_STEMS.items()}

#: Where ``bfcl_eval`` keeps the system message its loader puts first in every agentic
#: question: read from the package's own source at run time (:meth:`BfclData.agentic_prompt`).
AGENTIC_PROMPT_SOURCE = ("constants/default_prompts.py",
                         "ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT")

_WHEEL_PREFIX = "bfcl_eval/data/"
_TEXT_CACHE: dict = {}


def _package_text(kind: str, where: str, member: str) -> Optional[str]:
    """A source file of a ``bfcl_eval`` package: ``member`` of the wheel ``where``, or the
    file ``where``; None when it is not there."""
    try:
        if kind == "wheel":
            with zipfile.ZipFile(where) as archive:
                return archive.read(member).decode("utf-8")
        with open(where, encoding="utf-8") as handle:
            return handle.read()
    except (KeyError, OSError, UnicodeDecodeError, zipfile.BadZipFile):
        return None


def _string_constant(source: str, name: str) -> Optional[str]:
    """The string a module's source assigns to ``name`` at its top level, or None.

    Example:
        >>> _string_constant("A = 1\\nB = 'x' 'y'\\n", "B"), _string_constant("A = 1", "B")
        ('xy', None)
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)):
            return node.value.value
    return None


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

    def agentic_prompt(self) -> str:
        """The system message of agentic questions, as the ``bfcl_eval`` package beside the
        data (a wheel's, the package a ``data/`` folder belongs to), else the installed one,
        defines it (:data:`AGENTIC_PROMPT_SOURCE`). Read as text, never imported.

        Example:
            >>> BfclData.installed().agentic_prompt().startswith("For your final answer")
            True
        """
        relpath, name = AGENTIC_PROMPT_SOURCE
        if self.kind == "wheel":
            sources = [("wheel", self.root)]
        else:
            sources = [("dir", os.path.join(os.path.dirname(self.root), relpath))]
            installed = BfclData.installed()
            if installed is not None:
                sources.append(("dir", os.path.join(os.path.dirname(installed.root), relpath)))
        for kind, where in sources:
            text = _package_text(kind, where, "bfcl_eval/" + relpath)
            value = None if text is None else _string_constant(text, name)
            if value is not None:
                return value
        raise BfclDataError(f"{self.describe()}: no agentic system prompt ({name} of "
                            f"bfcl_eval's {relpath}) beside the data or installed; "
                            f"{DATA_HINT}")

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
        - memory_* and web_search_*: :meth:`agentic_prompt` is put first in the first turn;
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
            entries = parse_questions(self.read_bytes(_data_file(category)),
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
            prompt = self.agentic_prompt()
            for entry in entries:
                entry["question"][0].insert(0, {"role": "system", "content": prompt})
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
        found = id_lines(raw)
        if found is not None:
            return found
        lines = []
        for line in split_lines(raw):
            match = LINE_ID.match(line)
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
            questions = parse_questions(self.read_bytes(_data_file(category)),
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
