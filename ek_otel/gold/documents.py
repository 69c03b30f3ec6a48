"""The documents of a gold or pricing file, read item by item with line-numbered errors.

A file is JSON Lines, a JSON array or a YAML list (:func:`gold_format`); :func:`document_items`
yields its items with their lines, or the error of each bad one (invalid syntax, a repeated
key, nesting past :data:`~ek_otel.limits.GOLD_MAX_NESTING`, an integer literal over the digit
limit, a YAML alias bomb) as a :class:`~ek_otel.errors.GoldFileError` naming the file and the
line. YAML is read by :class:`JsonYamlLoader`, whose plain scalars mean what they mean in JSON,
and written by :class:`JsonYamlDumper` (:func:`write_documents`). What the items mean (tasks,
prices) is the business of :mod:`ek_otel.gold.native` and :mod:`ek_otel.gold.pricing`.

Example:
    >>> [(line, obj) for line, obj, _ in document_items("g.json", '[\\n  {"a": 1},\\n  {"b": 2}\\n]')]
    [(2, {'a': 1}), (3, {'b': 2})]
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator, Optional, Union

import yaml

from ..errors import GoldFileError
from ..limits import GOLD_MAX_INT_DIGITS, GOLD_MAX_NESTING, YAML_MAX_EXPANDED_NODES

__all__ = [
    "YAML_SUFFIXES",
    "JsonYamlLoader",
    "JsonYamlDumper",
    "gold_format",
    "read_text",
    "document_items",
    "write_documents",
    "nesting_problem",
    "parse_problem",
    "yaml_problem",
]

PathLike = Union[str, "os.PathLike[str]"]

#: The names that make a file YAML.
YAML_SUFFIXES = (".yaml", ".yml")


class JsonYamlLoader(yaml.SafeLoader):
    """A YAML loader whose plain scalars mean what the same text means in JSON.

    PyYAML's safe loader follows YAML 1.1, where ``2026-12-20`` is a date, ``12:30`` is the
    number 750, ``yes``/``no``/``on``/``off`` are booleans and ``0123`` is octal 83. A gold
    value written that way would never match the string a model sends, silently. Here only
    ``true``/``false``, ``null``/``~``, decimal integers (no leading zero) and decimal
    floats are typed; everything else stays a string. An explicit tag (``!!int 0123``) still
    works.

    Untrusted text stays cheap: nesting deeper than :data:`~ek_otel.limits.GOLD_MAX_NESTING`
    and aliases that expand to more than :data:`~ek_otel.limits.YAML_MAX_EXPANDED_NODES`
    nodes (an alias bomb) are refused as a ``ComposerError`` at their line, before anything
    is built.

    Example:
        >>> yaml.load("[2026-12-20, 12:30, yes, 0123, 7, -1.5e3, true, null, .inf]", JsonYamlLoader)
        ['2026-12-20', '12:30', 'yes', '0123', 7, -1500.0, True, None, inf]
        >>> try:
        ...     yaml.load("[" * 200 + "]" * 200, JsonYamlLoader)
        ... except yaml.composer.ComposerError as exc:
        ...     exc.problem, exc.problem_mark.column
        ('nested deeper than 100 levels', 100)
    """

    #: The deepest nesting of sequences and mappings composed (a gold file's list of tasks
    #: adds one: each task then has the same room as in JSON Lines).
    max_nesting = GOLD_MAX_NESTING

    def __init__(self, stream: Any):
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict = {}  # id(node) -> nodes it expands to
        self._expanded = 0  # nodes reached through aliases so far

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            node = super().compose_node(parent, index)
            self._expanded += self._sizes.get(id(node), 1)
            if self._expanded > YAML_MAX_EXPANDED_NODES:
                raise yaml.composer.ComposerError(
                    None, None, f"aliases expand to more than {YAML_MAX_EXPANDED_NODES} nodes "
                    "(an alias bomb?); write the values out", mark)
            return node
        if self._depth >= self.max_nesting and not self.check_event(yaml.ScalarEvent):
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {GOLD_MAX_NESTING} levels",
                                              self.peek_event().start_mark)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.SequenceNode):
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(c), 1) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1)
                                            for k, v in node.value)
        return node


JsonYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
JsonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


class JsonYamlDumper(yaml.SafeDumper):
    """Writes YAML that :class:`JsonYamlLoader` reads back as written.

    PyYAML's own dumper quotes a string only when YAML 1.1 would read it as something else,
    so a string such as ``0E0`` (no number in YAML 1.1, a number in JSON) stays plain and comes
    back as ``0.0``. This dumper quotes every string that the JSON-like loader would not read
    back as that string.

    Example:
        >>> text = yaml.dump(["0E0", "yes", "1", "x"], Dumper=JsonYamlDumper)
        >>> print(text, end="")
        - '0E0'
        - 'yes'
        - '1'
        - x
        >>> yaml.load(text, JsonYamlLoader)
        ['0E0', 'yes', '1', 'x']
    """


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    tag = JsonYamlLoader.resolve(JsonYamlLoader, yaml.ScalarNode, data, (True, False))
    style = "'" if tag != "tag:yaml.org,2002:str" else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


JsonYamlDumper.add_representer(str, _represent_str)


def gold_format(path: PathLike, text: Optional[str] = None) -> str:
    """Which form a gold (or pricing) file is in: ``"yaml"``, ``"json"`` (an array) or ``"jsonl"``.

    Example:
        >>> gold_format("tasks.yml"), gold_format("t.json", '  [{"task_id": "a"}]')
        ('yaml', 'json')
        >>> gold_format("t.jsonl", '# a comment\\n{"task_id": "a"}')
        'jsonl'
    """
    if str(path).lower().endswith(YAML_SUFFIXES):
        return "yaml"
    if text is not None and text.lstrip().startswith("["):
        return "json"
    return "jsonl"


def read_text(path: PathLike) -> str:
    """A gold file's text (a BOM tolerated), or a :class:`~ek_otel.errors.GoldFileError`
    saying why it cannot be read.

    Example:
        >>> read_text("/no/such/tasks.jsonl")
        Traceback (most recent call last):
        ...
        ek_otel.errors.GoldFileError: /no/such/tasks.jsonl: no such file
    """
    name = str(path)
    try:
        return Path(path).read_text(encoding="utf-8-sig")  # tolerate a BOM
    except FileNotFoundError:
        raise GoldFileError(name, None, "no such file") from None
    except IsADirectoryError:
        raise GoldFileError(name, None, "is a directory, not a gold file") from None
    except UnicodeDecodeError as exc:
        raise GoldFileError(name, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise GoldFileError(name, None, f"cannot read: {exc.strerror or exc}") from None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class _DuplicateKey(ValueError):
    """A JSON object or YAML mapping that repeats a key (the parsers would keep the last)."""

    def __init__(self, key: Any, line: Optional[int] = None):
        super().__init__(f"duplicate key '{key}' in one object (the second would silently win)")
        self.line = line


def _no_duplicate_keys(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_yaml_keys(node: Any) -> None:
    """Raise :class:`_DuplicateKey` for a mapping node below ``node`` that repeats a key.

    Each node is visited once, however many aliases point at it (no alias bomb here), and
    without recursion.

    Example:
        >>> _check_yaml_keys(JsonYamlLoader("a: &x {b: 1, c: [2]}\\nd: [*x, *x]\\n").get_single_node())
        >>> _check_yaml_keys(JsonYamlLoader("a: 1\\na: 2\\n").get_single_node())
        Traceback (most recent call last):
        ...
        ek_otel.gold.documents._DuplicateKey: duplicate key 'a' in one object (the second would silently win)
    """
    visited: set = set()
    stack = [node]
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, value_node in node.value:
                key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in seen:
                    raise _DuplicateKey(key_node.value, key_node.start_mark.line + 1)
                seen.add(key)
            stack.extend(value for _, value in reversed(node.value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))


def nesting_problem(obj: Any) -> Optional[str]:
    """Why a parsed gold or pricing value is refused for its nesting (deeper than
    :data:`~ek_otel.limits.GOLD_MAX_NESTING`), or None; without recursion.

    Example:
        >>> nesting_problem({"a": [[1]]}), nesting_problem([[[[]]]] * 2)
        (None, None)
        >>> import json; nesting_problem(json.loads("[" * 150 + "]" * 150))
        'nested deeper than 100 levels'
    """
    stack = [(obj, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= GOLD_MAX_NESTING:
            return f"nested deeper than {GOLD_MAX_NESTING} levels"
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return None


def parse_problem(exc: BaseException) -> str:
    """The message of what a JSON or YAML parser raised beyond its syntax errors: an integer
    literal over Python's digit limit (``ValueError``), nesting past the recursion limit.

    Example:
        >>> import json
        >>> try:
        ...     json.loads("1" * 5000)
        ... except ValueError as exc:
        ...     parse_problem(exc)
        'an integer literal longer than 4300 digits'
    """
    if isinstance(exc, RecursionError):
        return f"nested deeper than {GOLD_MAX_NESTING} levels"
    if "digits" in str(exc):
        return f"an integer literal longer than {GOLD_MAX_INT_DIGITS} digits"
    return str(exc)[:200]


def _jsonl_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    # split on "\n" only: str.splitlines() would also split inside a JSON string at U+0085/U+2028
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            obj = json.loads(stripped, object_pairs_hook=_no_duplicate_keys)
        except _DuplicateKey as exc:
            yield number, None, GoldFileError(path, number, str(exc))
        except json.JSONDecodeError as exc:
            hint = ""
            if number == 1 and stripped.startswith("{") and stripped.count("{") > stripped.count("}"):
                hint = " (JSON Lines needs one whole task per line; a pretty-printed file must be a JSON array)"
            yield number, None, GoldFileError(path, number, f"invalid JSON: {exc.msg} (column {exc.colno}){hint}")
        except (ValueError, RecursionError) as exc:
            yield number, None, GoldFileError(path, number, parse_problem(exc))
        else:
            problem = nesting_problem(obj)
            if problem is not None:
                yield number, None, GoldFileError(path, number, problem)
            else:
                yield number, obj, None


def _json_array_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)
    ws = " \t\r\n"

    def skip(i: int) -> int:
        while i < len(text) and text[i] in ws:
            i += 1
        return i

    def invalid(exc_or_msg, offset: int) -> GoldFileError:
        if isinstance(exc_or_msg, json.JSONDecodeError):
            return GoldFileError(path, exc_or_msg.lineno, f"invalid JSON: {exc_or_msg.msg} (column {exc_or_msg.colno})")
        return GoldFileError(path, _line_of(text, offset), f"invalid JSON: {exc_or_msg}")

    i = skip(0) + 1  # past "["
    i = skip(i)
    if i < len(text) and text[i] == "]":
        i = skip(i + 1)
        if i < len(text):
            yield _line_of(text, i), None, invalid("extra data after the array", i)
        return
    while True:
        start = skip(i)
        try:
            obj, end = decoder.raw_decode(text, start)
        except _DuplicateKey as exc:
            yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), str(exc))
            try:
                _, end = json.JSONDecoder().raw_decode(text, start)  # well-formed: go on after it
            except json.JSONDecodeError as exc:
                yield _line_of(text, start), None, invalid(exc, start)
                return
        except json.JSONDecodeError as exc:
            yield _line_of(text, start), None, invalid(exc, start)
            return
        except (ValueError, RecursionError) as exc:
            yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), parse_problem(exc))
            return
        else:
            problem = nesting_problem(obj)
            if problem is not None:
                yield _line_of(text, start), None, GoldFileError(path, _line_of(text, start), problem)
            else:
                yield _line_of(text, start), obj, None
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        if i < len(text) and text[i] == "]":
            i = skip(i + 1)
            if i < len(text):
                yield _line_of(text, i), None, invalid("extra data after the array", i)
            return
        yield _line_of(text, i), None, invalid("expected ',' or ']' after a task", i)
        return


def _yaml_items(text: str, path: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    loader = None
    try:
        loader = JsonYamlLoader(text)  # reads the first characters: may raise ReaderError
        loader.max_nesting = GOLD_MAX_NESTING + 1  # the list of tasks
        root = loader.get_single_node()
        if root is None:
            return
        if not isinstance(root, yaml.SequenceNode):
            yield root.start_mark.line + 1, None, GoldFileError(
                path, root.start_mark.line + 1, "a YAML gold file must be a list of tasks (- task_id: ...)"
            )
            return
        for node in root.value:
            line = node.start_mark.line + 1
            try:
                _check_yaml_keys(node)
            except _DuplicateKey as exc:
                yield line, None, GoldFileError(path, exc.line or line, str(exc))
                continue
            try:
                obj = loader.construct_object(node, deep=True)
            except ValueError as exc:  # an integer literal over the digit limit
                yield line, None, GoldFileError(path, line, parse_problem(exc))
                continue
            yield line, obj, None
    except yaml.MarkedYAMLError as exc:
        line, message = yaml_problem(exc, text)
        yield line or 0, None, GoldFileError(path, line, message)
    except yaml.YAMLError as exc:
        line, message = yaml_problem(exc, text)
        yield line or 0, None, GoldFileError(path, line, message)
    except RecursionError as exc:  # pragma: no cover - the composer refuses deep text first
        yield 0, None, GoldFileError(path, None, parse_problem(exc))
    finally:
        if loader is not None:
            loader.dispose()


def yaml_problem(exc: BaseException, text: str) -> tuple:
    """``(line or None, message)`` of a YAML error: its mark's line, or for a character
    YAML refuses (``ReaderError``: a control character) the line of that character.

    Example:
        >>> try:
        ...     yaml.load("a: 1\\nb: \\x07\\n", JsonYamlLoader)
        ... except yaml.YAMLError as exc:
        ...     yaml_problem(exc, "a: 1\\nb: \\x07\\n")
        (2, "invalid YAML: the control character '\\\\x07' is not allowed (only tab, newline and printable characters)")
    """
    if isinstance(exc, yaml.reader.ReaderError):
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        return (_line_of(text, exc.position),
                f"invalid YAML: the control character {character!r} is not allowed "
                "(only tab, newline and printable characters)")
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return (mark.line + 1 if mark is not None else None), f"invalid YAML: {problem}"
    return None, f"invalid YAML: {exc}"


def document_items(path: PathLike, text: str) -> Iterator[tuple[int, Any, Optional[GoldFileError]]]:
    """The items of a gold file's text, each ``(line, obj, None)`` or ``(line, None, error)``:
    the lines of JSON Lines, the elements of a JSON array or of a YAML list, in file order.
    A bad item is reported at its line and the reading goes on where the syntax allows.

    Example:
        >>> text = '{"task_id": "a"}\\n# a comment\\n{"task_id": "b", "task_id": "c"}\\n'
        >>> [(line, obj, error and str(error)) for line, obj, error in document_items("g.jsonl", text)]
        [(1, {'task_id': 'a'}, None), (3, None, "g.jsonl:3: duplicate key 'task_id' in one object (the second would silently win)")]
        >>> [(line, obj) for line, obj, _ in document_items("g.yaml", "- task_id: a\\n- task_id: 2026-12-20\\n")]
        [(1, {'task_id': 'a'}), (2, {'task_id': '2026-12-20'})]
    """
    name = str(path)
    kind = gold_format(path, text)
    if kind == "yaml":
        return _yaml_items(text, name)
    if kind == "json":
        return _json_array_items(text, name)
    return _jsonl_items(text, name)


def write_documents(objs: list, path: PathLike) -> None:
    """Write JSON-ready objects as the file's name says: YAML for ``.yaml``/``.yml`` (through
    :class:`JsonYamlDumper`), a JSON array for ``.json``, else JSON Lines.
    :func:`document_items` reads back equal objects.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "out.yaml")
        >>> write_documents([{"task_id": "yes"}], p)
        >>> open(p).read()
        "- task_id: 'yes'\\n"
        >>> [obj for _, obj, _ in document_items(p, open(p).read())]
        [{'task_id': 'yes'}]
    """
    name = str(path).lower()
    if name.endswith(YAML_SUFFIXES):
        text = yaml.dump(objs, Dumper=JsonYamlDumper, sort_keys=False)  # ASCII escapes: raw U+0085 would not survive
    elif name.endswith(".json"):
        text = "[\n" + ",\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n]\n"
    else:
        text = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)
    Path(path).write_text(text, encoding="utf-8")
