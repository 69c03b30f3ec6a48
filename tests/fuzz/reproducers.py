"""The inputs of every finding of the fuzz campaign of issue 23, built from their
descriptions: each is a regression input of the suite (``test_regressions.py``) and a seed
of the harnesses.

Example:
    >>> len(corrupt_gzip_pb()), deep_json(3)
    (19, '[[[]]]')
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import zlib
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT / "tests" / "ingest" / "corpus"
LONE_SURROGATE = "\\ud800"  # the JSON escape, as text inside an attribute string


# ---------------------------------------------------------------------------
# 1. corrupt gzip / zstd dumps
# ---------------------------------------------------------------------------

def example_lines() -> list:
    """The example dump's JSON lines (bytes, newline kept)."""
    return (EXAMPLES / "traces.jsonl").read_bytes().splitlines(keepends=True)


def corrupt_gzip_pb() -> bytes:
    """A 19-byte ``.pb.gz``: a gzip header then a bad deflate block."""
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 9


def late_corrupt_gzip_jsonl() -> bytes:
    """A JSON Lines ``.gz`` whose deflate stream is corrupted late (after many good lines):
    a stored-block-free stream cut and patched with garbage near its end."""
    body = b"".join(example_lines()) * 40
    packed = bytearray(gzip.compress(body, compresslevel=1))
    at = len(packed) * 9 // 10
    packed[at:at + 64] = bytes(range(64))
    return bytes(packed)


def corrupt_zstd_jsonl() -> bytes:
    """A JSON Lines ``.zst`` corrupted in its middle."""
    packed = bytearray(zstandard.ZstdCompressor().compress(b"".join(example_lines()) * 40))
    at = len(packed) // 2
    packed[at:at + 16] = b"\xff" * 16
    return bytes(packed)


def corrupt_gzip_frames() -> bytes:
    """Length-prefixed frames (the file exporter's legacy compressed mode): a good zstd
    frame, then a gzip frame with a bad block."""
    good = zstandard.ZstdCompressor().compress(example_lines()[0].strip())
    bad = corrupt_gzip_pb()
    return len(good).to_bytes(4, "big") + good + len(bad).to_bytes(4, "big") + bad


def cut_gzip_pb() -> bytes:
    """A gzip stream cut in the middle (``EOFError`` / ``BadGzipFile``)."""
    packed = gzip.compress(b"\x0a" * 5000)
    return packed[: len(packed) // 2]


# ---------------------------------------------------------------------------
# 2/3. poisoned attribute strings: deep JSON, lone surrogates
# ---------------------------------------------------------------------------

def deep_json(levels: int) -> str:
    """``levels`` nested JSON arrays."""
    return "[" * levels + "]" * levels


def deep_object_json(levels: int) -> str:
    """An object holding ``levels`` nested objects: ``{"a": {"a": ... }}``."""
    return '{"a": ' * levels + "1" + "}" * levels


def surrogate_json() -> str:
    """JSON text with lone surrogate escapes in a key and in values."""
    return '{"city": "Par' + LONE_SURROGATE + 's", "' + LONE_SURROGATE + '": ["\\udfff"]}'


POISONS = {
    "deep-2000": deep_json(2000),
    "deep-1000": deep_json(1000),
    "deep-object-1000": deep_object_json(1000),
    "surrogate": surrogate_json(),
    "surrogate-string": '"' + LONE_SURROGATE + '"',
}


def attribute_keys() -> list:
    """Every attribute key ek-otel reads (the constants of ``ek_otel.ingest.semconv``)."""
    from ek_otel.ingest import semconv

    keys = set()
    for name in dir(semconv):
        value = getattr(semconv, name)
        values = value if isinstance(value, (tuple, list, frozenset, set)) else (value,)
        for item in values:
            if isinstance(item, str) and "." in item and " " not in item and len(item) < 80 \
                    and not item.startswith(("http", "/")):
                keys.add(item)
    return sorted(keys)


def poisoned_request(base: dict, key: str, poison: str) -> dict:
    """``base`` (an OTLP-JSON traces request) with attribute ``key`` set to ``poison`` on
    every span (an existing value replaced)."""
    request = copy.deepcopy(base)
    for resource_spans in request.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                attributes = [a for a in span.get("attributes", []) if a.get("key") != key]
                attributes.append({"key": key, "value": {"stringValue": poison}})
                span["attributes"] = attributes
    return request


def poisoned_example_dump(poison: str) -> bytes:
    """The example dump, with every string attribute of every span replaced by ``poison``
    (but the operation name, which keeps each span's kind), and the tool arguments too."""
    out = []
    for line in example_lines():
        request = json.loads(line)
        for resource_spans in request["resourceSpans"]:
            for scope_spans in resource_spans["scopeSpans"]:
                for span in scope_spans["spans"]:
                    for attribute in span.get("attributes", []):
                        if "stringValue" in attribute["value"] and attribute["key"] not in (
                                "gen_ai.operation.name", "ek.task.id"):
                            attribute["value"]["stringValue"] = poison
        out.append(json.dumps(request).encode() + b"\n")
    return b"".join(out)


def surrogate_body_dump() -> bytes:
    """The example dump with a lone surrogate escape in the OTLP JSON itself (a span name)."""
    line = example_lines()[0].decode()
    return line.replace('"name":"chat gpt-4o-mini"', '"name":"chat ' + LONE_SURROGATE + '"', 1).encode()


# ---------------------------------------------------------------------------
# 4. parent-id cycles and chains
# ---------------------------------------------------------------------------

def span_chain(count: int, *, cycle: bool) -> bytes:
    """One trace of ``count`` spans, each the parent of the next; with ``cycle`` the first
    span's parent is the last (every span has a parent: a cycle through all)."""
    trace = "ab" * 16
    spans = []
    for i in range(count):
        parent = (i - 1) % count if (cycle or i > 0) else None
        span = {"traceId": trace, "spanId": f"{i + 1:016x}", "name": f"step {i}",
                "startTimeUnixNano": str(1_000 + i), "endTimeUnixNano": str(2_000_000 + i),
                "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue":
                                "execute_tool" if i % 2 else "invoke_agent"}},
                               {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}}]}
        if parent is not None:
            span["parentSpanId"] = f"{parent + 1:016x}"
        spans.append(span)
    request = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "fuzz"}, "spans": spans}]}]}
    return json.dumps(request).encode() + b"\n"


# ---------------------------------------------------------------------------
# 5/6. gold and pricing files
# ---------------------------------------------------------------------------

GOOD_TASK = '{"task_id": "t1", "calls": [{"get_weather": {"city": ["Paris"]}}]}'


def gold_files() -> dict:
    """name -> text of each bad gold file of the campaign."""
    huge = "1" * 5000
    too_big_float = "1" + "0" * 400
    return {
        "huge-int.jsonl": '{"task_id": "t1", "value": ' + huge + ', "calls": []}\n',
        "huge-int.yaml": "- task_id: t1\n  value: " + huge + "\n  calls: []\n",
        "huge-int.json": '[{"task_id": "t1", "value": ' + huge + ', "calls": []}]\n',
        "float-overflow-value.jsonl": '{"task_id": "t1", "value": ' + too_big_float + ', "calls": []}\n',
        "float-overflow-importance.jsonl": (
            '{"task_id": "t1", "calls": [], "tools": [{"name": "f", "importance": '
            + too_big_float + "}]}\n"),
        "float-overflow.yaml": "- task_id: t1\n  value: " + too_big_float + "\n  calls: []\n",
        "deep.jsonl": '{"task_id": "t1", "calls": [], "x": ' + deep_json(2000) + "}\n",
        "deep.json": '[{"task_id": "t1", "calls": [], "x": ' + deep_json(2000) + "}]\n",
        "deep.yaml": "- task_id: t1\n  calls: []\n  x: " + deep_json(2000) + "\n",
        "deep-block.yaml": "- task_id: t1\n  calls: []\n  x:\n" + "".join(
            "  " * (i + 2) + "- \n" for i in range(300)),
        "control-char.yaml": "- task_id: t1\n  calls: []\n  note: \x07bell\n",
        "list-key.yaml": "- task_id: t1\n  calls: []\n  ? [a, b]\n  : 1\n",
        "duplicate-then-bad.json": '[{"task_id": "t1", "calls": [{"f": {"a": 1, "a": 2}}], bad\n',
        "duplicate-then-bad.jsonl": '{"task_id": "t1", "task_id": "t2", "calls": []} garbage\n',
        "alias-bomb.yaml": alias_bomb(),
    }


def alias_bomb(levels: int = 8, width: int = 10) -> str:
    """A YAML alias bomb ("billion laughs") in a gold task: each level of ``meta`` lists
    the previous one ``width`` times, and the call's allowed value is the last level, so
    about 430 bytes expand to ``width ** levels`` leaves."""
    lines = ["- task_id: t1", "  meta:", '    a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        refs = ",".join([f"*a{level - 1}"] * width)
        lines.append(f"    a{level}: &a{level} [{refs}]")
    lines.append(f"  calls: [{{f: {{x: [*a{levels}]}}}}]")
    return "\n".join(lines) + "\n"


def pricing_alias_bomb(levels: int = 8, width: int = 10) -> str:
    """The alias bomb in a pricing file's ``note``."""
    lines = ["models:", "  m: {input: 1, output: 1}", "bomb:", '  a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        lines.append(f"  a{level}: &a{level} [{','.join([f'*a{level - 1}'] * width)}]")
    lines.append(f"note: *a{levels}")
    return "\n".join(lines) + "\n"


def pricing_files() -> dict:
    """name -> text of each bad pricing file of the campaign."""
    huge = "1" * 5000
    too_big_float = "1" + "0" * 400
    return {
        "huge-int.json": '{"models": {"m": {"input": ' + huge + ', "output": 1}}}',
        "huge-int.yaml": "models:\n  m:\n    input: " + huge + "\n    output: 1\n",
        "float-overflow.json": '{"models": {"m": {"input": ' + too_big_float + ', "output": 1}}}',
        "float-overflow.yaml": "models:\n  m:\n    input: " + too_big_float + "\n    output: 1\n",
        "deep.json": '{"models": {"m": {"input": 1, "output": 1}}, "note": ' + deep_json(2000) + "}",
        "deep.yaml": "models:\n  m: {input: 1, output: 1}\nnote: " + deep_json(2000) + "\n",
        "control-char.yaml": "models:\n  m: {input: 1, output: 1}\nnote: \x1b[31m\n",
        "list-key.yaml": "models:\n  ? [a, b]\n  : {input: 1, output: 1}\n",
        "alias-bomb.yaml": pricing_alias_bomb(),
    }


# ---------------------------------------------------------------------------
# 7. BFCL model outputs
# ---------------------------------------------------------------------------

BFCL_OUTPUTS = {
    "percent-format": "[math.factorial(number='%01000000000d' % 1)]",
    "percent-format-wide": "[f(x='%0999999999999d' % 1)]",
    "percent-tuple": "[f(x='%s%s' % ('a' * 99999, 'b' * 99999))]",
    "format-width": "[f(x='{:01000000000d}'.format(1))]",
    "format-call": "[f(x=format(1, '01000000000d'))]",
    "str-concat": "[f(x=('a' * 99999) + ('b' * 99999))]",
    "list-concat": "[f(x=[0] * 99999 + [1] * 99999)]",
    "deep-args": "[f(x=" + "[" * 5000 + "]" * 5000 + ")]",
    "deep-parens": "[f(x=" + "(" * 5000 + "1" + ")" * 5000 + ")]",
    "deep-unary": "[f(x=" + "-" * 100000 + "1)]",
    "huge-int": "[f(x=" + "9" * 5000 + ")]",
    "pow-chain": "[f(x=2**2**2**2**2**2)]",
}

JAVA_OUTPUTS = {
    "deep-java": "[f(x=new int[]{" + "new int[]{" * 3000 + "}" * 3000 + "})]",
    "deep-java-parens": "[f(x=" + "(" * 5000 + "1" + ")" * 5000 + ")]",
    "huge-int-java": "[f(x=" + "9" * 5000 + ")]",
    # found by this suite's own campaign: tree-sitter wrote the s-expression of a deep tree
    # recursively in C (a segmentation fault)
    "deep-java-sum": "[f(x=" + "1+" * 200_000 + "1)]",
    "deep-java-arrays": "[f(x=new int[]{" + "new int[]{" * 20_000 + "}" * 20_000 + "})]",
}


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzip-compressed (deterministic: no name, time 0)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as f:
        f.write(data)
    return buffer.getvalue()


__all__ = [name for name in dir() if not name.startswith("_") and name not in (
    "annotations", "copy", "gzip", "io", "json", "zlib", "Path", "zstandard")]
