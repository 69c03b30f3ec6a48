"""Seeds of the fuzz targets: the ingest corpus (real dumps of real instrumentations), the
examples, and every regression input (``reproducers``).

Example:
    >>> kinds = {kind for kind, _ in all_seeds()}
    >>> sorted(kinds)[:3]
    ['bfcl', 'dump', 'gold-json']
"""

from __future__ import annotations

from . import reproducers as r

CORPUS = r.CORPUS
EXAMPLES = r.EXAMPLES


def dump_seeds(limit_bytes: int = 64 << 10) -> list:
    """Dump files: the examples, each corpus scenario's traces and logs (JSON Lines and
    protobuf, those under ``limit_bytes``), and the dump reproducers."""
    seeds = [(EXAMPLES / "traces.jsonl").read_bytes()]
    for path in sorted(CORPUS.glob("*/*")):
        if path.suffix in (".jsonl", ".pb") and path.stat().st_size <= limit_bytes:
            seeds.append(path.read_bytes())
    seeds += [r.corrupt_gzip_pb(), r.late_corrupt_gzip_jsonl(), r.corrupt_zstd_jsonl(),
              r.corrupt_gzip_frames(), r.cut_gzip_pb(), r.surrogate_body_dump(),
              r.span_chain(300, cycle=True), r.span_chain(300, cycle=False),
              r.gzip_bytes(r.example_lines()[0])]
    seeds += [r.poisoned_example_dump(poison) for poison in r.POISONS.values()]
    return seeds


def gold_seeds() -> list:
    """``(kind, text)`` gold files: the example, and the bad ones of the campaign."""
    seeds = [("gold-jsonl", (EXAMPLES / "tasks.jsonl").read_bytes())]
    for name, text in r.gold_files().items():
        kind = name.rsplit(".", 1)[1]
        seeds.append((f"gold-{kind}", text.encode()))
    return seeds


def pricing_seeds() -> list:
    """``(kind, text)`` pricing files: the example, and the bad ones of the campaign."""
    seeds = [("pricing-yaml", (EXAMPLES / "pricing.yaml").read_bytes())]
    for name, text in r.pricing_files().items():
        seeds.append((f"pricing-{name.rsplit('.', 1)[1]}", text.encode()))
    return seeds


def bfcl_seeds() -> list:
    """Model results: good calls and the campaign's hostile ones."""
    good = ["[get_weather(city='Paris', unit='celsius')]", "[f(a=1, b=[1, 2], c={'k': (1, 2)})]",
            "[f(x=60*60*24, y=2**-3, z='a'+'b', w=[1]*3, v=round(3.14159, 2)*100)]",
            "[obj.run(cfg=new Config(), n=5)]", '[f(x="%s-%d" % ("a", 3))]',
            '{"a": 1, "b": [true, null]}']
    hostile = [t for t in [*r.BFCL_OUTPUTS.values(), *r.JAVA_OUTPUTS.values()] if len(t) <= 50_000]
    return good + hostile + ["[f(x=" + "1+" * 10_000 + "1)]"]  # the deep sum, smaller


def all_seeds() -> list:
    """``(kind, bytes)`` of every seed (``kind``: a target of ``fuzz/campaign.py``)."""
    seeds = [("dump", data) for data in dump_seeds()]
    seeds += gold_seeds() + pricing_seeds()
    seeds += [("bfcl", text.encode()) for text in bfcl_seeds()]
    lines = r.example_lines()
    seeds += [("http", bytes([selector]) + body) for selector, body in (
        (2, lines[0]), (0, b"\x0a\x00"), (34, r.gzip_bytes(lines[0])), (2, r.surrogate_body_dump()),
        (2, r.poisoned_example_dump(r.deep_json(2000)).splitlines()[0]))]
    return seeds
