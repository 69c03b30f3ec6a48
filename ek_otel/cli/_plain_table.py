"""Small tables written exactly as rich writes them to a plain stream, without importing rich.

Importing rich and laying a table out costs a short command such as ``ek-otel bfcl`` more
than a tenth of its run. When nothing of rich's is visible, a small table can be written
character for character as rich writes it: the stream is not a terminal (so no colours or
bold), it takes UTF-8, no setting asks for a terminal (``FORCE_COLOR``,
``TTY_COMPATIBLE``), the text is printable ASCII without markup (``[``) or emoji codes
(``:name:``) in what the caller passes, and the table fits in the width rich would use (then
that width does not change the layout). :func:`plain_text` returns that text, or None
when any of this does not hold: the caller then prints with rich, as before.

The layout is rich's default for ``Table(title=...)``: the ``HEAVY_HEAD`` box, one space of
padding either side of a cell, each column as wide as its widest cell (header included),
the title centred over the table (the odd space on the right). ``tests/cli/test_plain_table.py``
compares both, byte for byte, over many tables, widths and environments.

Example:
    >>> import io
    >>> table = PlainTable("scores", (("name", "left"), ("n", "right")), (("a", "1"), ("bb", "22")))
    >>> print(plain_text([table], io.StringIO(), environ={}), end="")
         scores
    ┏━━━━━━┳━━━━┓
    ┃ name ┃  n ┃
    ┡━━━━━━╇━━━━┩
    │ a    │  1 │
    │ bb   │ 22 │
    └──────┴────┘
"""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, TextIO

__all__ = ["PlainTable", "plain_text", "rich_table"]

#: Settings under which rich treats a stream as a terminal (colours, bold) whatever it is.
_TERMINAL_SETTINGS = ("FORCE_COLOR", "TTY_COMPATIBLE")


@dataclass(frozen=True)
class PlainTable:
    """A titled table of text cells: ``columns`` are ``(header, "left"|"right")`` pairs.

    Example:
        >>> PlainTable("t", (("a", "left"),), (("x",),)).width
        5
    """

    title: str
    columns: tuple
    rows: tuple

    @property
    def widths(self) -> list:
        """The width of each column's text (its widest cell, header included)."""
        return [max([len(header)] + [len(row[index]) for row in self.rows])
                for index, (header, _) in enumerate(self.columns)]

    @property
    def width(self) -> int:
        """The table's width in characters, borders included."""
        return sum(self.widths) + 3 * len(self.columns) + 1


def _plain_cell(text: str) -> bool:
    """Printable ASCII that rich prints as it is: no markup (``[``), no emoji code
    (``:name:`` needs two colons)."""
    return text.isascii() and text.isprintable() and "[" not in text and text.count(":") < 2


def _console_width(environ: Mapping[str, str]) -> Optional[int]:
    """The width rich gives a console that is not a terminal: ``COLUMNS``, else the size of
    the first of stdin, stdout, stderr that is a terminal, else 80."""
    columns = environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    width = None
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return width or 80


def plain_text(tables: Sequence[PlainTable], stream: TextIO,
               environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The text rich's ``Console(file=stream).print(table)`` writes for each table in
    turn, or None when rich could write something else (see the module doc).

    Example:
        >>> import io
        >>> plain_text([PlainTable("t", (("a", "left"),), (("[b]",),))], io.StringIO(), {}) is None
        True
    """
    environ = os.environ if environ is None else environ
    if sys.platform == "win32" or any(name in environ for name in _TERMINAL_SETTINGS):
        return None
    if hasattr(builtins, "get_ipython"):
        return None  # IPython or a notebook: rich may render for it
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    if not (getattr(stream, "encoding", None) or "utf-8").lower().startswith("utf"):
        return None
    for table in tables:
        if not table.rows:
            return None
        texts = [table.title] + [header for header, _ in table.columns]
        texts.extend(cell for row in table.rows for cell in row)
        if not all(type(text) is str and _plain_cell(text) for text in texts):
            return None
    width = _console_width(environ)
    if width is None or any(table.width > width or len(table.title) > table.width
                            for table in tables):
        return None
    return "".join(_render(table) for table in tables)


def _render(table: PlainTable) -> str:
    widths = table.widths
    total = table.width
    excess = total - len(table.title)
    lines = [" " * (excess // 2) + table.title + " " * (excess - excess // 2)]
    lines.append("┏" + "┳".join("━" * (w + 2) for w in widths) + "┓")
    lines.append("┃" + "┃".join(f" {_justify(h, w, j)} " for (h, j), w
                                 in zip(table.columns, widths)) + "┃")
    lines.append("┡" + "╇".join("━" * (w + 2) for w in widths) + "┩")
    for row in table.rows:
        lines.append("│" + "│".join(f" {_justify(cell, w, j)} " for cell, (_, j), w
                                     in zip(row, table.columns, widths)) + "│")
    lines.append("└" + "┴".join("─" * (w + 2) for w in widths) + "┘")
    return "\n".join(lines) + "\n"


def _justify(text: str, width: int, justify: str) -> str:
    return text.rjust(width) if justify == "right" else text.ljust(width)


def rich_table(table: PlainTable) -> Any:
    """The same table as a rich ``Table`` (for terminals and whatever :func:`plain_text`
    declines).

    Example:
        >>> rich_table(PlainTable("t", (("a", "right"),), (("1",),))).columns[0].justify
        'right'
    """
    from rich.table import Table

    rendered = Table(title=table.title)
    for header, justify in table.columns:
        if justify == "right":
            rendered.add_column(header, justify="right")
        else:
            rendered.add_column(header)
    for row in table.rows:
        rendered.add_row(*row)
    return rendered
