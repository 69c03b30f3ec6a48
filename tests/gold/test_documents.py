"""document_items, write_documents and the JSON-like YAML: a gold file's items with their lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.errors import GoldFileError
from ek_otel.gold.documents import (
    document_items,
    gold_format,
    read_text,
    write_documents,
)


def test_gold_format_detection():
    assert gold_format("x.YML") == "yaml"
    assert gold_format("x.jsonl", '\n\n [ {"task_id": "a"} ]') == "json"
    assert gold_format("x.json", '{"task_id": "a"}') == "jsonl"


def _lines(name, text):
    return [(line, obj, error and str(error)) for line, obj, error in document_items(name, text)]


def test_a_json_array_goes_on_after_a_repeated_key_and_names_each_line():
    text = '[\n {"a": 1},\n {"b": 1, "b": 2},\n {"c": 3}\n]\n'
    assert _lines("g.json", text) == [
        (2, {"a": 1}, None),
        (3, None, "g.json:3: duplicate key 'b' in one object (the second would silently win)"),
        (4, {"c": 3}, None)]


def test_a_json_array_stops_at_a_syntax_error_with_its_line():
    got = _lines("g.json", '[\n {"a": 1},\n {"b": }\n]')
    assert got[0] == (2, {"a": 1}, None)
    assert got[1][1] is None and got[1][2].startswith("g.json:3: invalid JSON")
    assert len(got) == 2


def test_json_lines_report_each_bad_line_and_keep_the_good_ones():
    got = _lines("g.jsonl", '{"a": 1}\n{"a": \n\n# note\n' + "[" * 150 + "]" * 150 + '\n{"b": 2}\n')
    assert [(line, obj) for line, obj, _ in got] == [(1, {"a": 1}), (2, None), (5, None), (6, {"b": 2})]
    assert got[2][2] == "g.jsonl:5: nested deeper than 100 levels"


def test_yaml_refuses_an_alias_bomb_at_its_line():
    bomb = "- a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  b{i}: &b{i} [{', '.join(['*' + ('a' if i == 0 else f'b{i - 1}')] * 10)}]\n" for i in range(7))
    (line, obj, error), = document_items("g.yaml", bomb)
    assert obj is None and "alias bomb" in str(error) and isinstance(error, GoldFileError)


def test_an_unreadable_file_is_named(tmp_path):
    (tmp_path / "bad.jsonl").write_bytes(b'{"a": "\xff"}\n')
    with pytest.raises(GoldFileError, match=r"bad.jsonl: not UTF-8 text"):
        read_text(tmp_path / "bad.jsonl")
    with pytest.raises(GoldFileError, match="is a directory"):
        read_text(tmp_path)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)


@given(st.lists(st.dictionaries(st.text(max_size=5), JSON_VALUES, max_size=3), min_size=1, max_size=3),
       st.sampled_from(["out.jsonl", "out.json", "out.yaml"]))
@settings(max_examples=60, deadline=None)
def test_what_write_documents_writes_reads_back_equal(tmp_path_factory, objs, name):
    path = tmp_path_factory.mktemp("docs") / name
    write_documents(objs, path)
    back = [obj for _, obj, error in document_items(path, read_text(path)) if error is None]
    assert back == objs
