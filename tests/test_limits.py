"""Each resource limit of :mod:`ek_otel.limits` holds where it is promised: just under it
the input is taken whole, just over it the documented outcome (cut and reported, refused
with one line naming file and line, not evaluated)."""

from __future__ import annotations

import ast
import json

import pytest

from ek_otel import limits
from ek_otel.bfcl.decode import DecodeError
from ek_otel.errors import GoldFileError
from ek_otel.ingest.bad_input import BadInputReport


def test_limits_imports_nothing():
    source = open(limits.__file__, encoding="utf-8").read()
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_max_value_depth_cuts_anyvalues():
    from ek_otel.ingest.anyvalue import MAX_DEPTH, value_from_json

    def nested(levels):
        value = {"stringValue": "leaf"}
        for _ in range(levels):
            value = {"arrayValue": {"values": [value]}}
        return value

    assert MAX_DEPTH == limits.MAX_VALUE_DEPTH
    issues = []
    kept = value_from_json(nested(limits.MAX_VALUE_DEPTH), issues)
    assert not issues and json.dumps(kept).count("[") == limits.MAX_VALUE_DEPTH
    cut = value_from_json(nested(limits.MAX_VALUE_DEPTH + 1), issues)
    assert limits.DEPTH_MARKER in json.dumps(cut) and issues[0][0] == "nesting too deep"


def test_max_attribute_json_depth_cuts_json_in_attribute_strings():
    from ek_otel.ingest.semconv import loads, take_value_notes

    take_value_notes()
    depth = limits.MAX_ATTRIBUTE_JSON_DEPTH
    assert loads("[" * depth + "]" * depth) == json.loads("[" * depth + "]" * depth)
    assert take_value_notes() == []
    cut = loads("[" * (depth + 1) + "]" * (depth + 1))
    for _ in range(depth):
        cut = cut[0]
    assert cut == limits.DEPTH_MARKER
    assert take_value_notes()[0][0] == "nesting too deep"
    assert loads("[" * 100_000 + "]" * 100_000) is not None  # past every parser's own limit


def test_max_json_nesting_cuts_otlp_json_bodies():
    from ek_otel.ingest.otlp import parse_json

    n = limits.MAX_JSON_NESTING  # applied past the parser's own limit (orjson: 1024)
    body = b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b', "b": 2}'
    value = parse_json(body)
    assert value["b"] == 2
    value = value["a"]  # the request object is level 1, this array level 2
    for _ in range(n - 2):
        value = value[0]
    assert value == [limits.DEPTH_MARKER]  # level n holds the marker


def test_max_spans_per_trace_builds_one_episode_with_its_cycle_broken(tmp_path):
    from ek_otel.pipeline import read_episodes
    from tests.fuzz.reproducers import span_chain

    dump = tmp_path / "cycle.jsonl"
    dump.write_bytes(span_chain(limits.MAX_SPANS_PER_TRACE, cycle=True))
    report = BadInputReport()
    [episode] = read_episodes([str(dump)], report=report)
    assert episode.provenance.span_count == limits.MAX_SPANS_PER_TRACE
    assert report.counts == {"parent cycle": 1}


def _gold(tmp_path, name, text):
    from ek_otel.gold.native import load_tasks

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_tasks(path)


@pytest.mark.parametrize("kind", ["jsonl", "yaml"])
def test_gold_max_nesting(kind, tmp_path):
    def task(levels):  # the task object is level 1, "meta" level 2
        inner = "[" * (levels - 2) + "]" * (levels - 2)
        if kind == "jsonl":
            return '{"task_id": "t", "calls": [], "meta": {"x": ' + inner + "}}\n"
        return "- task_id: t\n  calls: []\n  meta: {x: " + inner + "}\n"

    assert _gold(tmp_path, f"ok.{kind}", task(limits.GOLD_MAX_NESTING))
    with pytest.raises(GoldFileError, match=f"nested deeper than {limits.GOLD_MAX_NESTING} levels"):
        _gold(tmp_path, f"deep.{kind}", task(limits.GOLD_MAX_NESTING + 2))


@pytest.mark.parametrize("kind", ["jsonl", "yaml"])
def test_gold_max_int_digits(kind, tmp_path):
    def task(digits):
        number = "1" + "0" * (digits - 1)
        if kind == "jsonl":
            return '{"task_id": "t", "calls": [{"f": {"n": [' + number + "]}}]}\n"
        return "- task_id: t\n  calls: [{f: {n: [" + number + "]}}]\n"

    assert _gold(tmp_path, f"ok.{kind}", task(limits.GOLD_MAX_INT_DIGITS))
    with pytest.raises(GoldFileError, match=f"longer than {limits.GOLD_MAX_INT_DIGITS} digits"):
        _gold(tmp_path, f"huge.{kind}", task(limits.GOLD_MAX_INT_DIGITS + 1))


def test_yaml_max_expanded_nodes(tmp_path):
    def gold(refs):  # one anchored list of 1,000 items (1,001 nodes), aliased `refs` times
        items = ", ".join(["1"] * 999)
        lines = ["- task_id: t", "  calls: []", f"  meta:", f"    a: &a [{items}]",
                 "    b: [" + ", ".join(["*a"] * refs) + "]"]
        return "\n".join(lines) + "\n"

    fits = limits.YAML_MAX_EXPANDED_NODES // 1000 - 1
    assert _gold(tmp_path, "ok.yaml", gold(fits))
    with pytest.raises(GoldFileError, match="alias bomb"):
        _gold(tmp_path, "bomb.yaml", gold(fits + 2))


def _evaluate(text):
    from ek_otel.bfcl.safe_eval import evaluate

    return evaluate(ast.parse(text, mode="eval").body)


def test_bfcl_max_value_size():
    size = limits.BFCL_MAX_VALUE_SIZE
    assert len(_evaluate(f"'a' * {size}")) == size
    assert len(_evaluate(f"'a' * {size // 2} + 'b' * {size // 2}")) == size
    for text in (f"'a' * {size + 1}", f"'a' * {size // 2 + 1} + 'b' * {size // 2}",
                 f"'%0{size + 1}d' % 1", f"[[0] * 1000] * {size // 1000 + 1}"):
        with pytest.raises(DecodeError, match="too large"):
            _evaluate(text)


def test_bfcl_max_int_bits():
    bits = limits.BFCL_MAX_INT_BITS
    assert _evaluate(f"2 ** {bits}") == 2 ** bits
    assert _evaluate(f"1 << {bits}") == 1 << bits
    for text in (f"2 ** {bits + 1}", f"1 << {bits + 1}"):
        with pytest.raises(DecodeError, match="too large"):
            _evaluate(text)
