#!/usr/bin/env python
"""Turn the trace snapshots other projects' test suites hold into OTLP JSON test fixtures.

The snapshots are other projects' files, so none of them is in this repository: the input
is a folder a developer fetched, named on the command line, and the conversions live with
the other foreign test data in ``../shared/foreign/external/<name>/``. A fixture folder has:

- ``source.<ext>``: the raw extract, the lines of the source file as they are there (one test
  case's snapshot); where the origin is another project's test code (``source.py.txt``,
  ``source.ts.txt``) it is only in the developer's own folder, never kept anywhere shared;
- ``SOURCE.json``: where the extract comes from (``repository``, ``path``, ``commit``,
  ``lines``), its ``format``, what the source does not say and the fixture had to choose
  (``scope``, ``resource``, ``notes``), and ``liberties``: every liberty the converter took,
  as the converter itself lists them (``--check`` fails when the list is stale);
- ``traces.json``: one OTLP ``ExportTraceServiceRequest`` in OTLP JSON, written by this script.

The episode written by hand from the raw spans is ek-otel's own:
``tests/ingest/external/<name>/expected.json`` (read by ``tests/ingest/test_external.py``).

Formats (``SOURCE.json`` ``format``):

``logfire-snapshot``
    an inline snapshot of logfire's ``TestExporter.exported_spans_as_dict()``: Python literals
    with dirty-equals placeholders (``IsStr()``, ``IsInt()``, ``IsPartialDict()``, ...); ids
    and times are the test's deterministic ones.
``otlp-js``
    a JavaScript object in OTLP's protobuf.js form (a ``resourceSpans`` entry, or a request):
    ids as ``{type: "Buffer", data: [...]}``, 64-bit integers as ``{low, high, unsigned}``.
``vitest-snapshot``
    a vitest ``__snapshots__`` entry of recorded spans (``name``, ``attributes``, ``events``;
    strings printed unescaped), as the Vercel AI SDK's telemetry tests write them: no ids, no
    times, no parents.
``vitest-inline``
    ``toMatchInlineSnapshot`` templates of a vitest file (the Vercel AI SDK 7's
    ``@ai-sdk/otel`` tests), composed into spans as ``SOURCE.json`` ``compose`` says: each
    span from one or more snapshots (a serialized span: ``name``, ``initAttributes``,
    ``runtimeAttributes``; or a plain attribute object), with its parent.
``span-attributes``
    one span's attributes as a JSON object (OpenInference's converter fixtures): the span's
    name, ids and times are not in the source (``SOURCE.json`` names the span).
``jaeger-json``, ``tempo-json``
    a Jaeger JSON or Tempo ``batches`` export, which ek-otel reads itself: converted by
    ``ek_otel.ingest.jaeger`` / ``ek_otel.ingest.tempo``.

Usage:
    python scripts/external_fixtures.py DIR...             # write DIR/traces.json (and liberties)
    python scripts/external_fixtures.py --check [DIR...]   # exit 1 when one is stale; without
                                                           # DIR, the folders of
                                                           # ../shared/foreign/external
    python scripts/external_fixtures.py --extract MIRRORS DIR...  # first re-cut each
                                       # DIR/source.<ext> from git mirrors (MIRRORS/owner+name/repo)

A ``DIR`` inside this repository is refused: other projects' files never go in the tree.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``--check`` without folders: the conversions beside the checkout (``$EK_OTEL_FOREIGN``).
FOREIGN_VARIABLE = "EK_OTEL_FOREIGN"

#: The file name of each format's raw extract.
SOURCE_NAMES = {"logfire-snapshot": "source.py.txt", "otlp-js": "source.ts.txt",
                "vitest-snapshot": "source.snap",
                "jaeger-json": "source.json", "tempo-json": "source.json",
                "span-attributes": "source.json", "vitest-inline": "source.ts.txt"}


class ConversionError(ValueError):
    """A source the converter cannot read faithfully (names the file and line)."""


# ---------------------------------------------------------------- OTLP JSON values


def any_value(value, *, json_lists: bool = False):
    """One attribute value in OTLP JSON. ``json_lists``: lists and dicts are JSON text (how
    logfire records them), tuples arrays; otherwise lists are arrays.

    >>> any_value(3), any_value(True), any_value(0.5), any_value("a")
    ({'intValue': '3'}, {'boolValue': True}, {'doubleValue': 0.5}, {'stringValue': 'a'})
    >>> any_value(("stop",))
    {'arrayValue': {'values': [{'stringValue': 'stop'}]}}
    >>> any_value({"a": [1]}, json_lists=True)
    {'stringValue': '{"a":[1]}'}
    """
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, tuple) or (isinstance(value, list) and not json_lists):
        return {"arrayValue": {"values": [any_value(v, json_lists=json_lists) for v in value]}}
    if isinstance(value, (list, dict)):
        return {"stringValue": json.dumps(value, ensure_ascii=False, separators=(",", ":"))}
    raise ConversionError(f"no OTLP value for {value!r}")


def key_values(attributes: dict, *, json_lists: bool = False) -> list:
    return [{"key": k, "value": any_value(v, json_lists=json_lists)}
            for k, v in attributes.items()]


def derived_id(seed: str, digits: int) -> str:
    """A hex id derived from a seed (for sources that record no ids).

    >>> derived_id("x", 16)
    '2d711642b726b044'
    """
    return hashlib.sha256(seed.encode()).hexdigest()[:digits]


def request(resource: dict, scope: dict, spans: list, by_name: list = ()) -> dict:
    """One request of one resource; each span under ``scope``, or under the scope of the
    first ``[name prefix, scope]`` of ``by_name`` its name starts with (scopes in the order
    they first appear)."""
    scopes: dict = {}
    for span in spans:
        chosen = next((s for prefix, s in by_name if span["name"].startswith(prefix)), scope)
        key = json.dumps(chosen, sort_keys=True)
        scopes.setdefault(key, {"scope": chosen, "spans": []})["spans"].append(span)
    return {"resourceSpans": [{
        "resource": {"attributes": key_values(resource)},
        "scopeSpans": list(scopes.values()),
    }]}


# ---------------------------------------------------------------- logfire snapshots


class Placeholder:
    """A dirty-equals matcher of a snapshot (``IsStr()``): the value it stood for is unknown."""

    def __init__(self, text: str, known=None):
        self.text = text
        self.known = known  # IsPartialDict({...}): the part the matcher names

    def __repr__(self):
        return self.text


def python_literal(node, source: str):
    """The value of a snapshot's literal node; dirty-equals calls become placeholders."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [python_literal(n, source) for n in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return {python_literal(k, source): python_literal(v, source)
                for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -python_literal(node.operand, source)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("Is"):
        known = None
        if node.func.id == "IsPartialDict" and len(node.args) == 1 and not node.keywords:
            known = python_literal(node.args[0], source)
        return Placeholder(ast.get_source_segment(source, node), known)
    raise ConversionError(f"line {node.lineno}: not a literal: {ast.get_source_segment(source, node)}")


def snapshot_value(text: str, name: str):
    start = text.find("snapshot(")
    if start < 0:
        raise ConversionError(f"{name}: no snapshot( in the extract")
    expr = text[start:].strip()
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ConversionError(f"{name}: line {exc.lineno}: {exc.msg}") from None
    call = tree.body
    if not (isinstance(call, ast.Call) and len(call.args) == 1):
        raise ConversionError(f"{name}: the extract is not one snapshot(...) call")
    return python_literal(call.args[0], expr)


def logfire_spans(text: str, name: str, liberties: list) -> list:
    spans = snapshot_value(text, name)
    times = [s[k] for s in spans for k in ("start_time", "end_time") if isinstance(s.get(k), int)]
    earliest = min(times) if times else 0
    unknown_start = max(earliest - 1_000_000_000, 0)

    def time_of(span, key):
        value = span.get(key)
        if isinstance(value, Placeholder):
            liberties.append(f"span {span['name']!r}: {key} {value} in the snapshot; "
                             f"{unknown_start} written (1 s before the earliest time)")
            return unknown_start
        return value

    def attributes_of(where, attributes):
        kept = {}
        for key, value in (attributes or {}).items():
            if isinstance(value, Placeholder):
                if isinstance(value.known, dict):
                    liberties.append(f"{where}: attribute {key} is IsPartialDict({{...}}) in "
                                     "the snapshot; the keys it names written")
                    kept[key] = filled(value.known, f"{where}: attribute {key}")
                    continue
                if value.text.startswith("IsPartialDict") or value.text.startswith("IsList"):
                    liberties.append(f"{where}: attribute {key} is {value} in the snapshot; left out")
                    continue
                if value.text.startswith("IsInt"):
                    liberties.append(f"{where}: attribute {key} is {value} in the snapshot; 0 written")
                    kept[key] = 0
                    continue
                liberties.append(f"{where}: attribute {key} is {value} in the snapshot; "
                                 f"the text {value.text!r} written")
                kept[key] = value.text
                continue
            if isinstance(value, (list, dict)):
                liberties.append(f"{where}: attribute {key} is parsed JSON in the snapshot "
                                 "(parse_json_attributes); written as compact JSON text")
                value = filled(value, f"{where}: attribute {key}")
            kept[key] = value
        return key_values(kept, json_lists=True)

    def filled(value, where, path=""):
        """Placeholders inside a JSON value: an empty dict or list, 0, or their text."""
        if isinstance(value, dict):
            return {k: filled(v, where, f"{path}.{k}") for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(filled(v, where, f"{path}[{i}]") for i, v in enumerate(value))
        if isinstance(value, Placeholder) and isinstance(value.known, dict):
            liberties.append(f"{where}: {path.lstrip('.')} is IsPartialDict({{...}}) in the "
                             "snapshot; the keys it names written")
            return filled(value.known, where, path)
        if isinstance(value, Placeholder):
            stand_in = ({} if value.text.startswith("IsPartialDict") else
                        [] if value.text.startswith("IsList") else
                        0 if value.text.startswith("IsInt") else value.text)
            liberties.append(f"{where}: {path.lstrip('.')} is {value} in the snapshot; "
                             f"{json.dumps(stand_in)} written")
            return stand_in
        return value

    out = []
    for span in spans:
        where = f"span {span['name']!r}"
        context, parent = span["context"], span.get("parent")
        otlp = {"traceId": f"{context['trace_id']:032x}", "spanId": f"{context['span_id']:016x}"}
        if parent:
            otlp["parentSpanId"] = f"{parent['span_id']:016x}"
        otlp["name"] = span["name"]
        otlp["startTimeUnixNano"] = str(time_of(span, "start_time"))
        otlp["endTimeUnixNano"] = str(time_of(span, "end_time"))
        otlp["attributes"] = attributes_of(where, span.get("attributes"))
        if span.get("events"):
            otlp["events"] = [{"timeUnixNano": str(e["timestamp"]), "name": e["name"],
                               "attributes": attributes_of(f"{where} event {e['name']!r}",
                                                           e.get("attributes"))}
                              for e in span["events"]]
        if span.get("links"):
            otlp["links"] = [{"traceId": f"{link['context']['trace_id']:032x}",
                              "spanId": f"{link['context']['span_id']:016x}",
                              "attributes": attributes_of(f"{where} link", link.get("attributes"))}
                             for link in span["links"]]
        out.append(otlp)
    liberties.append("ids: the snapshot's integers (logfire's deterministic test ids) as hex")
    liberties.append("span kind and status: not in the snapshot; left unset")
    return out


# ---------------------------------------------------------------- protobuf.js objects


def _long(value: dict) -> int:
    low, high = value["low"] & 0xFFFFFFFF, value["high"]
    if value.get("unsigned"):
        high &= 0xFFFFFFFF
    return high * 2 ** 32 + low


def protobufjs_plain(value, path: str, liberties: list):
    """Buffers -> hex, Longs -> int, as OTLP JSON writes them."""
    if isinstance(value, dict):
        if (set(value) in ({"type", "data"}, {"data"}) and value.get("type", "Buffer") == "Buffer"
                and isinstance(value.get("data"), list)):
            return bytes(value["data"]).hex()
        if set(value) >= {"low", "high"} and set(value) <= {"low", "high", "unsigned"}:
            return str(_long(value))
        out = {}
        for key, item in value.items():
            item = protobufjs_plain(item, f"{path}.{key}", liberties)
            if key in ("intValue", "timeUnixNano", "startTimeUnixNano",
                       "endTimeUnixNano") and isinstance(item, int):
                item = str(item)
            out[key] = item
        return out
    if isinstance(value, list):
        return [protobufjs_plain(v, f"{path}[{i}]", liberties) for i, v in enumerate(value)]
    return value


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (strings skipped)."""
    depth, i, quote = 0, start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ConversionError("unbalanced brackets")


def js_literal(text: str, name: str, liberties: list):
    """A JavaScript literal (json5), with ``JSON.stringify(<literal>)`` evaluated as
    JavaScript does (compact JSON)."""
    import json5

    call = "JSON.stringify("
    while call in text:
        at = text.index(call)
        end = _closing(text, at + len(call) - 1)
        inner = js_literal(text[at + len(call):end], name, liberties)
        text = (text[:at] + json.dumps(json.dumps(inner, ensure_ascii=False,
                                                  separators=(",", ":")), ensure_ascii=False)
                + text[end + 1:])
        liberties.append("JSON.stringify(...) of a literal evaluated (compact JSON, as "
                         "JavaScript writes it)")
    try:
        return json5.loads(text)
    except ValueError as exc:
        raise ConversionError(f"{name}: {exc}") from None


_CONST_STRING = re.compile(r'const (\w+) = ("(?:[^"\\]|\\.)*");')
_CONST_OBJECT = re.compile(r"const \w+ = ([\[{])")
_BUFFER_FROM = re.compile(r'Buffer\.from\(\s*(\w+|"[0-9a-fA-F]*")\s*,\s*"hex"\s*\)')


def otlp_js_request(text: str, name: str, liberties: list) -> dict:
    # the test's string constants, and Buffer.from(<hex>, "hex") as the hex it is
    strings = {m.group(1): m.group(2) for m in _CONST_STRING.finditer(text)}

    def hex_of(match):
        arg = match.group(1)
        if arg.startswith('"'):
            return arg
        if arg not in strings:
            raise ConversionError(f"{name}: Buffer.from({arg}): {arg} is not a string constant "
                                  "of the extract")
        return strings[arg]

    if _BUFFER_FROM.search(text):
        text = _BUFFER_FROM.sub(hex_of, text)
        liberties.append('Buffer.from(<hex>, "hex") written as the hex (the test\'s string '
                         "constants resolved)")
    declared = _CONST_OBJECT.search(text)
    if declared:
        start = declared.start(1)
    else:
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        if not starts:
            raise ConversionError(f"{name}: no object literal in the extract")
        start = min(starts)
    value = js_literal(text[start:_closing(text, start) + 1], name, liberties)
    value = protobufjs_plain(value, "", liberties)
    if isinstance(value, list):  # a list of resourceSpans entries
        value = {"resourceSpans": value}
    elif "resourceSpans" not in value:
        value = {"resourceSpans": [value]}
    for rs in value["resourceSpans"]:
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                if span.get("parentSpanId") == "":
                    del span["parentSpanId"]
                for key in ("startTimeUnixNano", "endTimeUnixNano"):
                    if key not in span:
                        liberties.append(f"span {span.get('name')!r}: no {key}; left out")
    liberties.append("protobuf.js Buffers written as hex ids, Longs as decimal strings")
    return value


# ---------------------------------------------------------------- vitest snapshots

_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def pretty_format(text: str, name: str):
    """Parse the body of a vitest snapshot (pretty-format, strings unescaped)."""
    lines = text.splitlines()
    root: list = []
    stack: list = []
    pending_key = None
    i = 0

    def put(value):
        nonlocal pending_key
        if not stack:
            root.append(value)
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        else:
            stack[-1][pending_key] = value

    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if not line:
            continue
        if line in ("]", "],", "}", "},"):
            stack.pop()
            continue
        key = None
        if isinstance(stack[-1] if stack else None, dict):
            m = re.match(r'"((?:[^"\\]|\\.)*)": (.*)$', line)
            if not m:
                raise ConversionError(f"{name}: line {i}: expected a key: {raw!r}")
            key, line = m.group(1), m.group(2)
        pending_key = key
        if line in ("[", "{", "Array [", "Object {"):
            container = [] if line.endswith("[") else {}
            put(container)
            stack.append(container)
            continue
        if line in ("[],", "[]", "{},", "{}"):
            put([] if line.startswith("[") else {})
            continue
        body = line[:-1] if line.endswith(",") else line
        if body.startswith('"'):
            # a string, printed unescaped: it ends with the line that ends in '",'
            chunk = [line]
            while not (chunk[-1].endswith('",') or (len(chunk) == 1 and len(body) > 1
                                                    and body.endswith('"') and not stack)):
                if i >= len(lines):
                    raise ConversionError(f"{name}: unterminated string from line {i}")
                chunk.append(lines[i])
                i += 1
            whole = "\n".join(chunk)
            whole = whole[:-1] if whole.endswith(",") else whole
            put(whole[1:-1])
            continue
        if body in ("true", "false"):
            put(body == "true")
        elif body == "null":
            put(None)
        elif body == "undefined":
            raise ConversionError(f"{name}: line {i}: undefined has no OTLP form")
        elif _NUMBER.match(body):
            put(float(body) if any(c in body for c in ".eE") else int(body))
        else:
            raise ConversionError(f"{name}: line {i}: cannot read {raw!r}")
    return root[0] if len(root) == 1 else root


_INLINE = re.compile(r"toMatchInlineSnapshot\(`\n(.*?)\n\s*`\)", re.S)


def vitest_inline_spans(text: str, name: str, seed: str, compose: list,
                        liberties: list) -> list:
    """Spans composed from a test file's inline snapshots (see the module doc)."""
    snapshots = [pretty_format(body, name) for body in _INLINE.findall(text)]
    trace_id = derived_id(seed, 32)
    base, ms, n = 1_700_000_000_000_000_000, 1_000_000, len(compose)
    out = []
    for index, part in enumerate(compose):
        span_name, attributes = None, {}
        for k in part["snapshots"]:
            if k >= len(snapshots):
                raise ConversionError(f"{name}: no inline snapshot {k} (found {len(snapshots)})")
            snap = snapshots[k]
            if isinstance(snap, dict) and "initAttributes" in snap:
                span_name = snap.get("name")
                attributes.update(snap.get("initAttributes") or {})
                attributes.update(snap.get("runtimeAttributes") or {})
            elif isinstance(snap, dict):
                for key, value in snap.items():
                    if isinstance(value, (list, dict)):
                        liberties.append(f"snapshot {k}: {key} is parsed JSON in the snapshot "
                                         "(the test's parseJsonAttributes); written as JSON text")
                        value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                    attributes[key] = value
            else:
                raise ConversionError(f"{name}: inline snapshot {k} is not an object")
        if span_name is None:
            raise ConversionError(f"{name}: span {index} has no serialized snapshot (no name)")
        otlp = {"traceId": trace_id, "spanId": derived_id(f"{seed}#{index}", 16)}
        if part.get("parent") is not None:
            otlp["parentSpanId"] = derived_id(f"{seed}#{part['parent']}", 16)
        otlp.update({"name": span_name, "startTimeUnixNano": str(base + index * ms),
                     "endTimeUnixNano": str(base + (2 * n - index) * ms),
                     "attributes": key_values(attributes)})
        out.append(otlp)
        liberties.append(f"span {span_name!r}: from inline snapshots {part['snapshots']}; "
                         f"parent: {part.get('parent_note', 'none')}")
    liberties.extend([
        "ids: none in the snapshots; trace id and span ids derived from the source's sha256",
        "times: none in the snapshots; span i starts i ms after a fixed epoch, a parent "
        "ends after its children",
        "span kind and status: not in the snapshots; left unset",
    ])
    return out


def vitest_spans(text: str, name: str, seed: str, liberties: list) -> list:
    m = re.search(r"^exports\[`(.*)`\] = `\n(.*)\n`;\s*$", text, re.S | re.M)
    if not m:
        raise ConversionError(f"{name}: not one vitest snapshot entry (exports[`...`] = `...`;)")
    spans = pretty_format(m.group(2), name)
    trace_id = derived_id(seed, 32)
    base = 1_700_000_000_000_000_000
    ms = 1_000_000
    out = []
    for index, span in enumerate(spans):
        start = base + index * ms
        end = base + len(spans) * ms if index == 0 else start + ms // 2
        otlp = {"traceId": trace_id, "spanId": derived_id(f"{seed}#{index}", 16)}
        if index:
            otlp["parentSpanId"] = out[0]["spanId"]
        otlp.update({"name": span["name"], "startTimeUnixNano": str(start),
                     "endTimeUnixNano": str(end),
                     "attributes": key_values(span.get("attributes") or {})})
        if span.get("events"):
            otlp["events"] = [{"timeUnixNano": str(start), "name": e["name"],
                               "attributes": key_values(e.get("attributes") or {})}
                              for e in span["events"]]
        out.append(otlp)
    liberties.extend([
        "ids: none in the snapshot; trace id and span ids derived from the source's sha256",
        "parents: none in the snapshot; every span a child of the first (the operation span, "
        "under which the SDK starts its model and tool spans)",
        "times: none in the snapshot; span i starts i ms after a fixed epoch (the recorded "
        "order), the first ends after all, the others 0.5 ms after their start; events at "
        "their span's start",
        "span kind and status: not in the snapshot; left unset",
    ])
    return out


# ---------------------------------------------------------------- the fixtures


def convert(directory: Path) -> tuple:
    """``(traces_json_text, liberties)`` of one fixture directory, from its committed files."""
    meta = json.loads((directory / "SOURCE.json").read_text())
    fmt = meta["format"]
    if fmt not in SOURCE_NAMES:
        raise ConversionError(f"{directory / 'SOURCE.json'}: unknown format {fmt!r}")
    source = directory / SOURCE_NAMES[fmt]
    text = source.read_text()
    name = str(source.relative_to(ROOT)) if source.is_relative_to(ROOT) else str(source)
    liberties: list = []
    if fmt == "logfire-snapshot":
        body = request(meta.get("resource", {}), meta["scope"], logfire_spans(text, name, liberties),
                       meta.get("scope_by_span_name", ()))
    elif fmt == "vitest-snapshot":
        seed = f"{meta['repository']}:{meta['path']}:{meta['case']}"
        body = request(meta.get("resource", {}), meta["scope"],
                       vitest_spans(text, name, seed, liberties))
    elif fmt == "vitest-inline":
        seed = f"{meta['repository']}:{meta['path']}:{meta['case']}"
        body = request(meta.get("resource", {}), meta["scope"],
                       vitest_inline_spans(text, name, seed, meta["compose"], liberties))
    elif fmt == "otlp-js":
        body = otlp_js_request(text, name, liberties)
    elif fmt == "span-attributes":
        seed = f"{meta['repository']}:{meta['path']}"
        start = 1_700_000_000_000_000_000
        span = {"traceId": derived_id(seed, 32), "spanId": derived_id(seed + "#0", 16),
                "name": meta["span_name"], "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + 1_000_000_000),
                "attributes": key_values(json.loads(text))}
        body = request(meta.get("resource", {}), meta.get("scope", {}), [span])
        liberties.extend([
            "the source holds one span's attributes only: trace and span ids derived from "
            "the source's sha256, a 1 s span at a fixed time, no parent",
            f"span name {meta['span_name']!r}: {meta['span_name_note']}",
            "span kind and status: not in the source; left unset",
            "resource and scope: not in the source; none written"])
    elif fmt in ("jaeger-json", "tempo-json"):
        # formats ek-otel reads itself: converted by its own reader (the episode and the gaps
        # in expected.json are still written by hand from the spans)
        sys.path.insert(0, str(ROOT))
        from ek_otel.ingest.jaeger import jaeger_to_otlp
        from ek_otel.ingest.tempo import tempo_to_otlp

        body = (jaeger_to_otlp if fmt == "jaeger-json" else tempo_to_otlp)(json.loads(text))
        liberties.append(f"converted by ek_otel.ingest.{fmt.split('-')[0]} (the mapping "
                         "docs/traces-from-elsewhere.md describes)")
    if not meta.get("resource") and fmt in ("logfire-snapshot", "vitest-snapshot",
                                            "vitest-inline"):
        liberties.append("resource: not in the snapshot; no resource attributes written")
    if "scope_note" in meta:
        names = [meta["scope"]] + [s for _, s in meta.get("scope_by_span_name", ())]
        liberties.append(f"scope {', '.join(repr(s.get('name')) for s in names)}: "
                         f"{meta['scope_note']}")
    seen: list = []
    for item in liberties:  # once each, in order
        if item not in seen:
            seen.append(item)
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n", seen


def foreign_external() -> Path:
    """``$EK_OTEL_FOREIGN/external``, else ``../shared/foreign/external`` beside the checkout.

    >>> foreign_external().name
    'external'
    """
    base = os.environ.get(FOREIGN_VARIABLE) or ROOT.parent / "shared" / "foreign"
    return Path(base) / "external"


def fixtures(folders: list) -> list:
    """The fixture folders named (each holding a ``SOURCE.json``); a folder in this repository
    or without ``SOURCE.json`` is refused.

    >>> try:
    ...     fixtures([ROOT / "tests"])
    ... except ConversionError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    inside the repository; other projects' files stay out of the tree
    """
    found = []
    for folder in folders:
        folder = Path(folder).resolve()
        if folder == ROOT or folder.is_relative_to(ROOT):
            raise ConversionError(f"{folder}: inside the repository; other projects' files "
                                  "stay out of the tree")
        if not (folder / "SOURCE.json").is_file():
            raise ConversionError(f"{folder}: no SOURCE.json (not a fixture folder)")
        found.append(folder)
    return found


def extract(directory: Path, mirrors: Path) -> None:
    """Re-cut ``source.<ext>`` from a git mirror of the source repository."""
    meta = json.loads((directory / "SOURCE.json").read_text())
    git_dir = mirrors / meta["repository"].replace("/", "+") / "repo"
    text = subprocess.run(["git", "--git-dir", str(git_dir), "show",
                           f"{meta['commit']}:{meta['path']}"],
                          check=True, capture_output=True, text=True).stdout
    lines = text.splitlines(keepends=True)
    ranges = meta["lines"] if isinstance(meta["lines"][0], list) else [meta["lines"]]
    (directory / SOURCE_NAMES[meta["format"]]).write_text(
        "".join("".join(lines[first - 1:last]) for first, last in ranges))


def convertible(directory: Path) -> bool:
    """Whether the folder holds its extract (a conversion kept without one cannot be re-run)."""
    meta = json.loads((directory / "SOURCE.json").read_text())
    return (directory / SOURCE_NAMES.get(meta.get("format"), "source")).is_file()


def check(directory: Path) -> list:
    """What is stale in one fixture folder: its ``traces.json``, its liberties."""
    text, liberties = convert(directory)
    target, meta_path = directory / "traces.json", directory / "SOURCE.json"
    stale = []
    if not target.is_file() or target.read_text() != text:
        stale.append(str(target))
    if json.loads(meta_path.read_text()).get("liberties") != liberties:
        stale.append(f"{meta_path} (liberties)")
    return stale


def write(directory: Path) -> None:
    """Write the folder's ``traces.json``, and its liberties into ``SOURCE.json``."""
    text, liberties = convert(directory)
    (directory / "traces.json").write_text(text)
    meta_path = directory / "SOURCE.json"
    meta = json.loads(meta_path.read_text())
    if meta.get("liberties") != liberties:
        meta["liberties"] = liberties
        meta_path.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, metavar="DIR",
                        help="fixture folders (SOURCE.json and source.<ext>), outside the tree")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a traces.json or its liberties are stale (without "
                             "DIR: every folder of ../shared/foreign/external with its extract)")
    parser.add_argument("--extract", type=Path, metavar="MIRRORS",
                        help="re-cut each source.<ext> from git mirrors first")
    args = parser.parse_args(argv)
    try:
        if args.folders:
            folders = fixtures(args.folders)
        elif args.check and not args.extract:
            root = foreign_external()
            if not root.is_dir():
                raise ConversionError(f"{root}: not found; set {FOREIGN_VARIABLE} or name the "
                                      "fixture folders")
            folders = [p for p in fixtures(sorted(p for p in root.iterdir()
                                                  if (p / "SOURCE.json").is_file()))
                       if convertible(p)]
        else:
            parser.error("name the fixture folders (DIR...)")
        stale = []
        for directory in folders:
            if args.extract:
                extract(directory, args.extract)
            if args.check:
                stale += check(directory)
            else:
                write(directory)
    except ConversionError as exc:
        print(f"external_fixtures: {exc}", file=sys.stderr)
        return 2
    for item in stale:
        print("stale:", item, file=sys.stderr)
    if args.check and not stale:
        print(f"{len(folders)} fixture(s) up to date")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
