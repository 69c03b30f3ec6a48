"""Java and JavaScript prompting output parsed exactly as the official decoder parses it.

The official decoder (``bfcl_eval/model_handler/parser/java_parser.py`` and
``js_parser.py``) runs tree-sitter and then walks the tree. Whether tree-sitter accepts a
call depends on its error recovery (``f(a=1)`` is an ``ERROR`` for tree-sitter-java
0.21.0 while ``f(a=1, b=2)`` is an expression missing its ``;``), which no hand-written
splitter can reproduce. So when the ``tree_sitter`` packages are importable (the
versions ``bfcl-eval`` pins: ``tree_sitter==0.21.3``, ``tree-sitter-java==0.21.0``,
``tree-sitter-javascript==0.21.4``), the same grammar parses the text and the same walk
turns it into calls. No code is evaluated. The official quirks are kept:

- any ``ERROR`` node fails the decode;
- Java keeps only the first method invocation found, JavaScript only the first call of a
  top-level expression statement; with none, Java yields ``{}`` and JavaScript ``None``
  (both then fail the format check: ``ast_decoder:decoder_wrong_output_format``);
- a positional identifier (Java: also class literals and sets; JavaScript: also
  ``true``) is kept under the key ``None``;
- Java composite values are rebuilt from their tokens without spaces
  (``new int[] {1, 2}`` -> ``new int[]{1,2}``) and ``new HashMap<>() {{ put(...); }}``
  loses its body; Java text is sliced by byte offsets, as the official code slices it.

Example:
    >>> available()   # the bfcl extra installs tree-sitter (and the test extra, the bfcl one)
    True
    >>> parse_calls('[f(a=1, b="x")]'[1:-1], "java")
    [{'f': {'a': '1', 'b': 'x'}}]
    >>> parse_calls("f(a=[1, 2]); g(b=2)", "javascript")
    [{'f': {'a': '[1, 2]'}}]
"""

from __future__ import annotations

import functools
from typing import Any, Optional

from .decode import DecodeError

__all__ = ["available", "parse_calls"]


@functools.lru_cache(maxsize=None)
def _parser(language: str) -> Optional[Any]:
    """A tree-sitter parser for ``java`` or ``javascript``, or None when not installed."""
    try:
        from tree_sitter import Language, Parser

        if language == "java":
            import tree_sitter_java as grammar
        else:
            import tree_sitter_javascript as grammar
    except ImportError:
        return None
    try:
        try:
            lang = Language(grammar.language(), language)  # tree_sitter 0.21 (pinned by BFCL)
        except TypeError:
            lang = Language(grammar.language())  # tree_sitter >= 0.22
        parser = Parser()
        if hasattr(parser, "set_language"):
            parser.set_language(lang)
        else:
            parser.language = lang
    except Exception:  # noqa: BLE001 - an incompatible tree_sitter build: treat as absent
        return None
    return parser


def available(language: str = "java") -> bool:
    """Whether tree-sitter can parse ``language`` here.

    Example:
        >>> available("javascript")
        True
    """
    return _parser(language) is not None


def _has_error(root: Any) -> bool:
    """``"ERROR" in str(root)``, the official test, without the s-expression: tree-sitter
    writes it recursively in C, which overflows the stack (a segmentation fault) on a
    deep tree (``1+1+...``, thousands of nested arrays). An ERROR node sets ``has_error``
    on its ancestors; the tree is then walked, without recursion, for one (``has_error``
    is also set by a MISSING node, which the official test does not see)."""
    flag = getattr(root, "has_error", None)
    if flag is None:  # pragma: no cover - a tree_sitter without the flag
        sexp = getattr(root, "sexp", None)
        return "ERROR" in (sexp() if sexp is not None else str(root))
    if not flag:
        return False
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            return True
        stack.extend(child for child in node.children if child.has_error)
    return False


def parse_calls(source: str, language: str) -> Any:
    """Parse ``source`` (the text inside the official ``[...]`` wrapping) as the official
    Java or JavaScript decoder does. Raises :class:`DecodeError` where it raises; returns
    what it returns, ``{}`` and ``None`` included. Requires :func:`available`.

    Example:
        >>> parse_calls("f(x, a=1, b=2)", "javascript")
        [{'f': {None: 'x', 'a': '1', 'b': '2'}}]
        >>> parse_calls("", "java")
        {}
        >>> def outcome(text):
        ...     try:
        ...         return parse_calls(text, "java")
        ...     except DecodeError as exc:
        ...         return str(exc)
        >>> outcome("f(a=1)")
        'Error parsing java the source code.'
    """
    parser = _parser(language)
    if parser is None:
        raise DecodeError(f"tree-sitter for {language} is not installed")
    tree = parser.parse(bytes(source, "utf8"))
    if _has_error(tree.root_node):
        if language == "java":
            raise DecodeError("Error parsing java the source code.")
        raise DecodeError("Error js parsing the source code.")
    if language == "java":
        return _java(source, tree.root_node)
    return _javascript(tree.root_node)


# ---------------------------------------------------------------------------
# Java (java_parser.parse_java_function_call)
# ---------------------------------------------------------------------------

_PUNCTUATION = (",", "(", ")")


def _java(source: str, root: Any) -> Any:
    def text(node: Any) -> str:
        return source[node.start_byte:node.end_byte]  # byte offsets on str, as the official

    def value(node: Any, nested: bool = False) -> str:
        kind = node.type
        if kind in ("string_literal", "character_literal"):
            return text(node) if nested else text(node)[1:-1]
        if kind in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return text(node)
        if kind == "array_creation_expression":
            type_text = value(node.child_by_field_name("type"), True)
            value_text = value(node.child_by_field_name("value"), True)
            return f"new {type_text}[]{value_text}"
        if kind == "object_creation_expression":
            type_text = value(node.child_by_field_name("type"), True)
            arguments = node.child_by_field_name("arguments")
            if arguments:
                parts = [value(child, True) for child in arguments.children
                         if child.type not in _PUNCTUATION]
                return f"new {type_text}({', '.join(parts)})"
            return f"new {type_text}()"
        if kind == "set":
            items = [value(n, True) for n in node.children if n.type not in (",", "set")]
            return "{" + ", ".join(items) + "}"
        if node.child_count > 0:
            return "".join(value(child, True) for child in node.children)
        return text(node)

    def arguments_of(node: Any) -> dict:
        arguments: dict = {}
        for child in node.children:
            if child.type == "assignment_expression":
                key, val = text(child.children[0]), value(child.children[2])
            elif child.type in ("identifier", "class_literal", "set"):
                key, val = None, value(child)
            else:
                continue
            _add(arguments, key, val)
        return arguments

    def first_call(node: Any) -> Optional[list]:
        if node.type == "method_invocation":
            name = text(node.child_by_field_name("name"))
            owner = node.child_by_field_name("object")
            if owner:
                name = f"{text(owner)}.{name}"
            arguments = node.child_by_field_name("arguments")
            if arguments:
                return [{name: _unique(arguments_of(arguments))}]
            return None
        for child in node.children:
            found = first_call(child)
            if found:
                return found
        return None

    found = first_call(root)
    return found if found else {}


# ---------------------------------------------------------------------------
# JavaScript (js_parser.parse_javascript_function_call)
# ---------------------------------------------------------------------------


def _javascript(root: Any) -> Any:
    if root.type != "program":
        return None
    for child in root.children:
        if child.type != "expression_statement":
            continue
        for sub in child.children:
            if sub.type == "call_expression":
                name = sub.children[0].text.decode("utf-8")
                arguments: dict = {}
                for arg in sub.children[1].children:
                    if arg.type == "assignment_expression":
                        key = arg.children[0].text.decode("utf-8")
                        val = arg.children[2].text.decode("utf-8")
                        if (val.startswith('"') and val.endswith('"')) or (
                                val.startswith("'") and val.endswith("'")):
                            val = val[1:-1]
                    elif arg.type in ("identifier", "true"):
                        key, val = None, arg.text.decode("utf-8")
                    else:
                        continue
                    _add(arguments, key, val)
                return [{name: _unique(arguments)}]
    return None


def _add(arguments: dict, key: Any, val: str) -> None:
    """Set ``key``; a key given again holds the list of its values, in order."""
    if key not in arguments:
        arguments[key] = val
        return
    held = arguments[key]
    arguments[key] = (held if isinstance(held, list) else [held]) + [val]


def _unique(arguments: dict) -> dict:
    for val in arguments.values():
        if isinstance(val, list):
            raise DecodeError("Error: Multiple arguments with the same name are not supported.")
    return arguments
