"""The CI fuzz harnesses: hypothesis drives each target of :mod:`tests.fuzz.targets` with
inputs built from the seeds (mutated byte by byte, and structure-aware: attribute strings
of real traces replaced by hostile JSON, compressed and corrupted bodies, generated gold
files and Python expressions), with a fixed seed (``derandomize``), for a bounded number
of inputs.

Run one harness in its own process (``test_harnesses.py`` does, and checks the figures)::

    python -m tests.fuzz.harness dump 1500

It prints one JSON line: ``{"harness", "inputs", "max_cpu_s", "peak_rss_mib", "seconds"}``,
and exits 1 on any input that a target refuses to call documented (its message on stderr),
or that took more than :data:`MAX_INPUT_CPU_S` of CPU.
"""

from __future__ import annotations

import gzip
import json
import resource
import sys
import time

import zstandard
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from . import reproducers as r
from . import seeds as s
from . import targets

#: The most CPU one input may take.
MAX_INPUT_CPU_S = 2.0

_STATS = {"inputs": 0, "max_cpu_s": 0.0}


def _bounded(run, *args) -> None:
    start = time.process_time()
    run(*args)
    spent = time.process_time() - start
    _STATS["inputs"] += 1
    _STATS["max_cpu_s"] = max(_STATS["max_cpu_s"], spent)
    if spent > MAX_INPUT_CPU_S:
        raise targets.Undocumented(f"one input took {spent:.2f} s of CPU (over {MAX_INPUT_CPU_S} s)")


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------

@st.composite
def mutated(draw, seeds: list) -> bytes:
    """A seed with up to 8 byte-level mutations (flip, insert, delete, duplicate, cut)."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 8))):
        op = draw(st.integers(0, 4))
        at = draw(st.integers(0, len(data)))
        if op == 0 and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == 1:
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == 2:
            del data[at:at + draw(st.integers(1, 64))]
        elif op == 3:
            data[at:at] = data[at:at + draw(st.integers(1, 256))]
        else:
            del data[at:]
    return bytes(data)


def hostile_text() -> st.SearchStrategy:
    """Attribute-string text meant to hurt: deep JSON, lone surrogate escapes, huge
    numbers, control characters, JSON of random shape."""
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20)
    return st.one_of(
        st.integers(30, 3000).map(r.deep_json),
        st.integers(30, 1500).map(r.deep_object_json),
        st.just(r.surrogate_json()),
        st.sampled_from(['"\\ud800"', '["\\udfff", {"\\udbff": 1}]', '{"a": "\\ud83d\\ude00"}',
                         "1" * 5000, "[1e999, -1e999, NaN]", "\x00\x07\x1b", "{" * 1100]),
        json_values.map(json.dumps),
        st.text(max_size=200),
    )


@st.composite
def poisoned_dump(draw) -> bytes:
    """A real trace (the examples, a corpus scenario) with attributes set to hostile text,
    maybe compressed, maybe corrupted after compression."""
    bases = _json_bases()
    base = draw(st.sampled_from(bases))
    request = json.loads(base)
    keys = r.attribute_keys()
    for _ in range(draw(st.integers(1, 3))):
        request = r.poisoned_request(request, draw(st.sampled_from(keys)), draw(hostile_text()))
    body = json.dumps(request).encode() + b"\n"
    wrap = draw(st.integers(0, 3))
    if wrap == 1:
        body = gzip.compress(body)
    elif wrap == 2:
        body = zstandard.ZstdCompressor().compress(body)
    if wrap and draw(st.booleans()):
        body = bytearray(body)
        at = draw(st.integers(0, len(body) - 1))
        body[at:at + 8] = b"\xff" * 8
        body = bytes(body)
    return body


_BASES: list = []


def _json_bases() -> list:
    if not _BASES:
        _BASES.extend(line for line in r.example_lines() if line.strip())
        for path in sorted(s.CORPUS.glob("*/traces.jsonl"))[::6]:
            lines = [line for line in path.read_bytes().splitlines() if line.strip()]
            if lines and len(lines[0]) < 32 << 10:
                _BASES.append(lines[0])
    return _BASES


@st.composite
def gold_text(draw) -> tuple:
    """``(kind, text)``: a seed gold file mutated, or a generated task in any form."""
    if draw(st.booleans()):
        kind, text = draw(st.sampled_from(s.gold_seeds()))
        return kind[5:], draw(mutated([text]))
    task = {"task_id": draw(st.text(max_size=8)),
            "calls": [{draw(st.text(min_size=1, max_size=8)): {"x": [draw(st.integers() | st.floats() | st.text())]}}],
            "value": draw(st.integers() | st.floats() | st.just(10 ** 400)),
            "meta": draw(st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3))}
    kind = draw(st.sampled_from(["jsonl", "json", "yaml"]))
    if kind == "jsonl":
        text = json.dumps(task)
    elif kind == "json":
        text = json.dumps([task], indent=draw(st.sampled_from([None, 2])))
    else:
        import yaml

        text = yaml.safe_dump([task], allow_unicode=draw(st.booleans()))
    return kind, text.encode("utf-8", "surrogatepass")


@st.composite
def python_expression(draw, depth: int = 0) -> str:
    """A generated Python value expression of the kinds BFCL model outputs hold."""
    leaf = st.one_of(st.integers(-10 ** 6, 10 ** 6).map(str), st.floats(allow_nan=False).map(repr),
                     st.text(max_size=6).map(repr), st.sampled_from(["x", "True", "None", "'%d'", "'%0999999d'"]))
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(leaf)
    a, b = draw(python_expression(depth + 1)), draw(python_expression(depth + 1))
    op = draw(st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "<<", "|", "<", "and", "if 1 else"]))
    form = draw(st.integers(0, 4))
    if form == 0:
        return f"({a} {op} {b})"
    if form == 1:
        return f"[{a}, {b}]"
    if form == 2:
        return f"{draw(st.sampled_from(['round', 'len', 'max', 'str', 'sorted', 'pow', 'sum', 'int']))}({a})"
    if form == 3:
        return f"{{{a}: {b}}}"
    return f"{a}[{b}]"


@st.composite
def bfcl_text(draw) -> str:
    if draw(st.booleans()):
        return draw(mutated([t.encode() for t in s.bfcl_seeds()])).decode("utf-8", "replace")
    calls = [f"f{i}(a={draw(python_expression())})" for i in range(draw(st.integers(1, 3)))]
    return "[" + ", ".join(calls) + "]"


# ---------------------------------------------------------------------------
# harnesses
# ---------------------------------------------------------------------------

def _settings(examples: int):
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    phases=[Phase.explicit, Phase.generate], print_blob=True,
                    suppress_health_check=list(HealthCheck))


def dump(examples: int) -> None:
    targets.run_dump(r.example_lines()[0], html=True)  # imports and caches: not an input's cost

    @_settings(examples)
    @given(st.one_of(mutated(s.dump_seeds(16 << 10)), poisoned_dump()), st.integers(0, 15))
    def run(data: bytes, html: int) -> None:
        _bounded(lambda: targets.run_dump(data, html=html == 0))

    run()


def gold(examples: int) -> None:
    pricing = s.pricing_seeds()
    targets.run_gold(s.gold_seeds()[0][1], "jsonl")
    targets.run_pricing(pricing[0][1], "yaml")

    @_settings(examples)
    @given(gold_text(), st.sampled_from(pricing), st.booleans())
    def run(gold_file, pricing_file, mutate_pricing: bool) -> None:
        kind, text = gold_file
        _bounded(targets.run_gold, text, kind)
        kind, text = pricing_file
        if mutate_pricing:
            text = text[: len(text) // 2] + text
        _bounded(targets.run_pricing, text, kind[8:])

    run()


def bfcl(examples: int) -> None:
    targets.run_bfcl(s.bfcl_seeds()[0])
    @_settings(examples)
    @given(bfcl_text())
    def run(text: str) -> None:
        _bounded(targets.run_bfcl, text)

    run()


def http(examples: int) -> None:
    bodies = [data for kind, data in s.all_seeds() if kind == "http"]
    bodies += [r.example_lines()[0], gzip.compress(r.example_lines()[0])]
    targets.run_http(r.example_lines()[0], 2)

    @_settings(examples)
    @given(st.one_of(mutated(bodies), poisoned_dump()), st.integers(0, 255))
    def run(body: bytes, selector: int) -> None:
        _bounded(targets.run_http, body, selector)

    try:
        run()
    finally:
        targets.receiver().close()


_HOSTILE_REGEXES = ["(a+)+$", "(a|aa)+$", "(a*)*b", "(.*a){12}", "(x+x+)+y", "([a-z]+)*[0-9]",
                    "(?i)(ab|a)*c", "(\\w+\\s?)+$"]


@st.composite
def _hostile_string(draw) -> str:
    unit = draw(st.sampled_from(["a", "ab", "x", "aa", " a", "\ud800", "é"]))
    return unit * draw(st.integers(0, 50_000)) + draw(st.sampled_from(["", "!", "b", "\udfff"]))


def matchers(examples: int) -> None:
    """Gold regex rules (argument and answer) against hostile trace strings, wildcards of
    ``ignore_tools`` against long tool names, and the pairing of many calls of one tool."""
    from ek_otel.core.answer import score_answer
    from ek_otel.core.ignore import is_ignored
    from ek_otel.core.rules import RuleError, parse_rule
    from ek_otel.core.toolcalls import align_calls, explain_alignment

    @_settings(examples)
    @given(st.sampled_from(_HOSTILE_REGEXES) | st.text(alphabet="a()+*?|.[]{}x\\", max_size=12),
           _hostile_string(), st.integers(1, 12), st.integers(0, 1000), st.integers(0, 1000))
    def run(regex: str, text: str, stars: int, n_pred: int, n_gold: int) -> None:
        def once() -> None:
            try:
                rule = parse_rule({"regex": regex})
            except RuleError:
                rule = None
            if rule is not None:
                rule.matches(text)
                score_answer(text, rule)
            is_ignored(text[:100_000], ["*a" * stars + "*b"])
            explain_alignment(align_calls([("t", {"x": text[:3] + str(i)}) for i in range(n_pred)],
                                          [("t", {"x": str(i)}) for i in range(n_gold)],
                                          strategy=("best_first", "optimal", "ordered")[n_pred % 3]))
        _bounded(once)

    run()


HARNESSES = {"dump": dump, "gold": gold, "bfcl": bfcl, "http": http, "matchers": matchers}


def peak_rss_mib() -> float:
    """This process's own peak resident memory, in MiB: ``VmHWM`` of /proc/self/status.
    ``ru_maxrss`` is not it: Linux keeps it across the fork and exec that started the process,
    so a harness started by a large pytest process would report that process's memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list) -> int:
    name, examples = argv[0], int(argv[1])
    started = time.time()
    try:
        HARNESSES[name](examples)
    finally:
        peak = peak_rss_mib()
        print(json.dumps({"harness": name, "inputs": _STATS["inputs"],
                          "max_cpu_s": round(_STATS["max_cpu_s"], 3),
                          "peak_rss_mib": round(peak, 1), "seconds": round(time.time() - started, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
