"""Reading result and data files fast without reading them differently: long-integer scan,
line splitting as the official ``load_file``, byte-level data parsing, garbage collector."""

from __future__ import annotations

import gc
import json
import random
import re

import pytest

from ek_otel.bfcl.data import BfclData
from ek_otel.bfcl.jsonlines import has_long_digits, parse_json, parse_json_lines, split_lines
from ek_otel.bfcl.result_files import find_result_files, read_result_file
from ek_otel.bfcl.runner import score_result_files


def test_long_digit_scan_agrees_with_the_regex():
    rng = random.Random(7)
    alphabet = "0123456789.e-, \"é٣१𝟗\u2028abc"  # other scripts' digits are not ASCII digits
    pattern = re.compile(r"[0-9]{19}")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.3:
            text += "7" * rng.randint(15, 22)
        expected = pattern.search(text) is not None
        assert has_long_digits(text) is expected, text
        assert has_long_digits(text.encode("utf-8")) is expected, text


def test_lines_split_as_the_official_load_file():
    # BFCL writes result files with ensure_ascii=False: a model's U+2028 stays raw, and
    # must not split the line (str.splitlines would).
    record = {"id": "irrelevance_0", "result": "first\u2028second\x85third\u2029"}
    text = json.dumps(record, ensure_ascii=False) + "\r\n\n" + json.dumps({"id": "x_1"}) + "\r"
    assert parse_json_lines(text) == [record, {"id": "x_1"}]
    assert parse_json_lines(text.encode("utf-8")) == [record, {"id": "x_1"}]
    assert split_lines(text) == [json.dumps(record, ensure_ascii=False), '{"id": "x_1"}']


def test_a_result_file_with_raw_line_separators_in_strings_reads(tmp_path):
    path = tmp_path / "m" / "BFCL_v4_irrelevance_result.json"
    path.parent.mkdir()
    records = [{"id": f"irrelevance_{i}", "result": f"text\u2028{i}"} for i in (1, 0)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    read = read_result_file(str(path))
    assert [r["id"] for r in read.records] == ["irrelevance_0", "irrelevance_1"]
    assert read.records[0]["result"] == "text\u20280"


@pytest.mark.parametrize("number", ["123456789012345678901", r"\u0031" * 19 + "2"])
def test_huge_integers_in_arguments_are_read_exactly(tmp_path, number):
    """The file-level scan (no 19-digit run, no escaped digit) lets arguments skip their
    own scan; an integer beyond 64 bits, written plainly or with escaped digits in the
    file, is read as json.loads reads it."""
    from ek_otel.bfcl.decode import decode_ast

    path = tmp_path / "m" / "BFCL_v4_simple_python_result.json"
    path.parent.mkdir()
    line = '{"id": "simple_python_0", "result": [{"f": "{\\"n\\": %s}"}]}' % number
    path.write_text(line + "\n")
    read = read_result_file(str(path))
    assert read.long_digits
    decoded = decode_ast(read.records[0]["result"], exact_ints=read.long_digits)
    assert decoded == [{"f": {"n": 1111111111111111111 * 10 + 2 if "u" in number
                              else 123456789012345678901}}]
    assert decoded == [{"f": json.loads(json.loads(line)["result"][0]["f"])}]
    plain = tmp_path / "m" / "BFCL_v4_parallel_result.json"
    plain.write_text(json.dumps({"id": "parallel_0", "result": [{"f": '{"n": 12345}'}]}) + "\n")
    assert not read_result_file(str(plain)).long_digits


def test_a_bad_result_line_is_named(tmp_path):
    from ek_otel.errors import InputError

    path = tmp_path / "m" / "BFCL_v4_parallel_result.json"
    path.parent.mkdir()
    path.write_bytes(b'{"id": "parallel_0", "result": []}\r\n\r\n{"id": "parallel_1", \r\n')
    with pytest.raises(InputError, match=r"_result\.json:3: bad JSON"):
        read_result_file(str(path))


def test_data_with_crlf_line_ends_reads_as_with_lf(tmp_path, bfcl_data):
    for name in ("BFCL_v4_live_simple.json", "possible_answer/BFCL_v4_live_simple.json",
                 "BFCL_v4_live_irrelevance.json"):
        target = tmp_path / name
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(bfcl_data.read_bytes(name).replace(b"\n", b"\r\n"))
    crlf = BfclData.locate(str(tmp_path))
    assert [(e.id, e.question, e.answer) for e in crlf.entries("live_simple")] == \
        [(e.id, e.question, e.answer) for e in bfcl_data.entries("live_simple")]
    assert [(i, json.loads(line)) for i, line in crlf.question_lines("live_irrelevance")] == \
        [(i, json.loads(bytes(line))) for i, line in bfcl_data.question_lines("live_irrelevance")]
    assert [(i, parse_json(line)) for i, line in crlf.question_lines("live_irrelevance")] == \
        [(i, parse_json(line)) for i, line in bfcl_data.question_lines("live_irrelevance")]


def test_scoring_leaves_the_garbage_collector_as_it_was(tmp_path, bfcl_data):
    path = tmp_path / "m" / "BFCL_v4_irrelevance_result.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"id": "irrelevance_0", "result": []}) + "\n")
    assert gc.isenabled()
    run = score_result_files(find_result_files([str(tmp_path)]), bfcl_data)
    assert run.scores[0].correct_count == 1
    assert gc.isenabled()
    gc.disable()
    try:
        score_result_files(find_result_files([str(tmp_path)]), bfcl_data)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("text", [
    b'{"id": "a_0", "q": 1}\n{"id": "a_1"}\n',
    b'{"id": "a_0", "q": 1}\n{"id": "a_1"}',                 # no final newline
    b'{"id": "a_0"}\n\n{"id": "a_1"}\n',                       # a blank line
    b'{"id": "a_0"}\n  {"id": "a_1"}\n',                       # an indented line
    b'{"id": "a_0"}\r\n{"id": "a_1"}\r\n',                     # CRLF
    b'{"id": "a_0"}\n{"q": 2, "id": "a_1"}\n',                 # the id elsewhere
    b'\n{"id": "a_0"}\n',
])
def test_question_lines_without_splitting_read_as_split_lines(tmp_path, text):
    (tmp_path / "BFCL_v4_irrelevance.json").write_bytes(text)
    lines = BfclData(str(tmp_path)).question_lines("irrelevance")
    expected = [(json.loads(line)["id"], json.loads(line)) for line in split_lines(text)]
    assert [(i, parse_json(line)) for i, line in lines] == expected


@pytest.mark.parametrize("text", [
    b'{"a": 1}\n{"b": 2}\n', b'{"a": 1}\n\n{"b": 2}\n', b'{"a": 1}\n  \n{"b": 2}',
    b'\n{"a": 1}', b'{"a": 1}\n\n', b' {"a": 1}\n{"b": 2}\n', b'{"a": 1}\r\n{"b": 2}',
    b'{"a": 1}, {"b": 2}\n{"c": 3}\n', b'{"a": 1\n"b": 2}\n{"c": 3}, {"d": 4}\n', b'[1]\n2\n',
])
def test_json_lines_parsed_whole_read_as_line_by_line(text):
    """One parse of the whole file gives the line-by-line values, or declines (None). With
    objects=True (result files), only when every line is one object: two lines merged by
    the joining comma, with a third line holding two objects, keep the count of values
    but are not the lines (the official reads them line by line, and fails)."""
    from ek_otel.bfcl.jsonlines import parse_whole

    try:
        lines = [json.loads(line) for line in split_lines(text)]
    except ValueError:
        lines = None
    objects = parse_whole(text, objects=True)
    if lines is None:
        assert objects is None
        return
    assert parse_whole(text) in (None, lines)
    assert objects is None or (objects == lines and all(type(v) is dict for v in objects))
