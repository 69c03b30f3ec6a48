"""ek_otel.cli._plain_table writes what rich writes, byte for byte, or declines."""

from __future__ import annotations

import io
import itertools

import pytest
from rich.console import Console

from ek_otel.cli._plain_table import PlainTable, plain_text, rich_table

TITLES = ["BFCL v4: glyphh-ada-1.1", "summary (as bfcl_eval aggregates)", "t", "ab",
          "BFCL v4: a-model-name-that-is-much-longer-than-its-table-is-wide-0123456789"]
COUNTS = [(0, 0), (7, 9), (378, 400), (757, 1053), (1234567, 7654321)]


def _tables() -> list:
    tables = []
    for title, (correct, total), rows in itertools.product(TITLES, COUNTS, (1, 2, 5)):
        cells = tuple((f"category_{'x' * (i * 3)}", f"{correct / (total or 1):.2%}",
                       f"{correct + i}/{total}") for i in range(rows))
        tables.append(PlainTable(title, (("category", "left"), ("accuracy", "right"),
                                         ("correct/total", "right")), cells))
    tables.append(PlainTable("odd", (("a", "right"), ("a very long header", "left")),
                             (("1", "x"), ("22", "y"))))
    return tables


def _rich(tables: list, environ: dict) -> str:
    out = io.StringIO()
    console = Console(file=out, soft_wrap=False, _environ=environ)
    for table in tables:
        console.print(rich_table(table))
    return out.getvalue()


@pytest.mark.parametrize("columns", ["20", "40", "53", "54", "80", "200"])
def test_plain_text_is_what_rich_prints_or_nothing(columns):
    environ = {"COLUMNS": columns}
    written = 0
    for table in _tables():
        text = plain_text([table], io.StringIO(), environ)
        if table.width <= int(columns) and len(table.title) <= table.width:
            assert text is not None, table  # no vacuous pass: these are the plain cases
        if text is not None:
            assert text == _rich([table], environ), table
            written += 1
    assert written or int(columns) < 30


def test_several_tables_in_turn():
    tables = _tables()[:4]
    environ = {"COLUMNS": "120"}
    assert plain_text(tables, io.StringIO(), environ) == _rich(tables, environ)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("environ, stream, rows", [
    ({"FORCE_COLOR": "1"}, io.StringIO(), (("a", "1"),)),     # rich would colour it
    ({"TTY_COMPATIBLE": "1"}, io.StringIO(), (("a", "1"),)),
    ({}, _Terminal(), (("a", "1"),)),                           # a terminal: bold headers
    ({}, io.StringIO(), (("[bold]a", "1"),)),                   # markup
    ({}, io.StringIO(), ((":smile: :x:", "1"),)),               # emoji codes
    ({}, io.StringIO(), (("é", "1"),)),                         # beyond ASCII: cell widths
    ({}, io.StringIO(), ()),                                    # no rows
    ({"COLUMNS": "10"}, io.StringIO(), (("a", "1"),)),          # does not fit: rich folds
])
def test_plain_text_declines_what_rich_would_print_otherwise(environ, stream, rows):
    table = PlainTable("t", (("name", "left"), ("n", "right")), rows)
    assert plain_text([table], stream, environ) is None


def test_a_stream_that_is_not_utf8_is_left_to_rich():
    stream = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    table = PlainTable("t", (("name", "left"),), (("a",),))
    assert plain_text([table], stream, {}) is None
