"""A coverage-guided fuzz campaign over ek-otel's inputs, with atheris (libFuzzer), for
long runs; CI runs the hypothesis suite of ``tests/fuzz/`` instead (same targets).

The first byte of each input chooses the target, the rest is the input:

====  =====================================================================
 0    a dump file: decode, episodes, scoring, doctor, JSON/HTML/table writers
 1-3  a gold file: JSON Lines, JSON array, YAML
 4-5  a pricing file: JSON, YAML
 6    a BFCL model result: every decoder
 7    an OTLP/HTTP request to the receiver (in process); the second byte
      picks the path, content type and encoding
====  =====================================================================

Run (one process; seeds from the corpus, the examples and every regression input)::

    pip install atheris
    python fuzz/campaign.py --seeds fuzz/seeds      # writes the seed corpus
    nice -n 10 python fuzz/campaign.py fuzz/work fuzz/seeds -max_total_time=1800 \\
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

``EK_OTEL_FUZZ_KINDS=dump,bfcl`` limits a run to some targets (the HTTP receiver runs
threads, which atheris's instrumentation may not survive for long).

A crash is an input on which a target raised (see ``tests/fuzz/targets.py``): libFuzzer
writes it as ``crash-*``; turn it into a regression input of ``tests/fuzz/``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

KINDS = ("dump", "gold-jsonl", "gold-json", "gold-yaml", "pricing-json", "pricing-yaml", "bfcl", "http")


def write_seeds(folder: str) -> int:
    """Write the seed corpus (target byte + input) into ``folder``; how many seeds."""
    from tests.fuzz.seeds import all_seeds

    os.makedirs(folder, exist_ok=True)
    count = 0
    for kind, data in all_seeds():
        with open(os.path.join(folder, f"{kind}-{count:05d}"), "wb") as handle:
            handle.write(bytes([KINDS.index(kind)]) + data)
        count += 1
    return count


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--seeds":
        print(f"{write_seeds(sys.argv[2])} seeds written to {sys.argv[2]}")
        return
    import atheris

    with atheris.instrument_imports(include=["ek_otel"]):
        from tests.fuzz import targets
        import ek_otel.pipeline  # noqa: F401
        import ek_otel.gold.native  # noqa: F401
        import ek_otel.gold.pricing  # noqa: F401
        import ek_otel.bfcl.decode  # noqa: F401
        import ek_otel.serve.http_receiver  # noqa: F401

    only = [k for k in os.environ.get("EK_OTEL_FUZZ_KINDS", "").split(",") if k]

    def one_input(data: bytes) -> None:
        if not data:
            return
        kind, body = KINDS[data[0] % len(KINDS)], data[1:]
        if only and kind not in only:
            return
        if kind == "dump":
            targets.run_dump(body, html=len(body) % 16 == 0)
        elif kind.startswith("gold-"):
            targets.run_gold(body, kind[5:])
        elif kind.startswith("pricing-"):
            targets.run_pricing(body, kind[8:])
        elif kind == "bfcl":
            targets.run_bfcl(body.decode("utf-8", "replace"))
        else:
            targets.run_http(body[1:], body[0] if body else 0)

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
