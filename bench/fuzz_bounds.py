"""The CPU and memory bounds of issue 23's findings, each as a ratio against a baseline of
the same run (the machine may be shared: absolute times mean little).

| figure | baseline (same run) |
|---|---|
| ``episodes`` of a parent-id cycle of 6,000 spans (was 4.6 s for 4,000) | a plain 6,000-span chain |
| a chain and a cycle of 4x the spans (linear: about 4) | the 2,000- / 8,000-span one |
| ``score`` of the example dump with every attribute 2,000-deep JSON or lone surrogates | the clean example dump |
| ``gold validate`` of the 500-byte alias bomb (was 27 s) | the example gold file |
| the BFCL ``'%01000000000d' % 1`` output (was 2.95 GB): CPU, peak traced memory | a plain call |

Usage:
    python bench/fuzz_bounds.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tests.fuzz import reproducers as r  # noqa: E402


def cpu(run, repeat: int = 3) -> float:
    """The best CPU time of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def episodes_of(data: bytes):
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.pipeline import read_episodes

    path = os.path.join(tempfile.mkdtemp(), "dump.jsonl")
    with open(path, "wb") as handle:
        handle.write(data)
    return lambda: list(read_episodes([path], report=BadInputReport()))


def score_of(data: bytes):
    from tests.fuzz.targets import run_dump

    return lambda: run_dump(data)


def main() -> None:
    rows = []
    chain = cpu(episodes_of(r.span_chain(6000, cycle=False)))
    cycle = cpu(episodes_of(r.span_chain(6000, cycle=True)))
    rows.append(("cycle of 6,000 spans / chain of 6,000", cycle, chain))
    for kind in (False, True):
        small = cpu(episodes_of(r.span_chain(2000, cycle=kind)))
        big = cpu(episodes_of(r.span_chain(8000, cycle=kind)))
        rows.append((f"{'cycle' if kind else 'chain'} of 8,000 / of 2,000 (linear: ~4)", big, small))
    clean = cpu(score_of(b"".join(r.example_lines())))
    for name in ("deep-2000", "surrogate"):
        rows.append((f"score, every attribute {name} / clean dump",
                     cpu(score_of(r.poisoned_example_dump(r.POISONS[name]))), clean))
    from ek_otel.gold.native import validate_file

    folder = tempfile.mkdtemp()
    bomb = os.path.join(folder, "bomb.yaml")
    with open(bomb, "w", encoding="utf-8") as handle:
        handle.write(r.alias_bomb())
    example = str(r.EXAMPLES / "tasks.jsonl")
    rows.append(("gold validate, alias bomb / example gold", cpu(lambda: validate_file(bomb)),
                 cpu(lambda: validate_file(example))))
    from ek_otel.bfcl.decode import DecodeError, decode_ast

    def decode(text):
        def run():
            try:
                decode_ast(text)
            except DecodeError:
                pass
        return run

    hostile, plain = r.BFCL_OUTPUTS["percent-format"], "[math.factorial(number=5)]"
    rows.append(("BFCL '%01000000000d' % 1 / a plain call", cpu(decode(hostile)), cpu(decode(plain))))
    tracemalloc.start()
    decode(hostile)()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"load average: {os.getloadavg()[0]:.1f}")
    print(f"{'figure':58s} {'CPU s':>8s} {'baseline':>9s} {'ratio':>7s}")
    for name, value, base in rows:
        print(f"{name:58s} {value:8.3f} {base:9.3f} {value / base if base else float('inf'):7.2f}")
    print(f"BFCL '%01000000000d' % 1: peak traced memory {peak / 1024:.0f} KiB (was 2.95 GB)")


if __name__ == "__main__":
    main()
