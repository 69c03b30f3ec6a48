"""CPU per score of writing scores out: the outbox's work for a file sink, alone, in one process.

Reads what a server stored, then does what the outbox of the tree on ``PYTHONPATH`` does for
``--emit-file``, batches of 200: with prepared scores (a tree whose ``FileSink`` has
``send_prepared`` and a store whose outbox rows hold them: ``emit.prepared``, encoded by the
scoring workers), it frames and writes their bytes; otherwise it reads each envelope back
(``scores.envelope``, ``ScoreEnvelope.from_json``) and hands the batch to a
:class:`~ek_otel.emit.sinks.FileSink` (SDK span and log-record objects, the SDK's protobuf
encoders, the OTLP JSON mapping, ``json.dumps``, write and fsync). Prints one JSON line: the
best CPU seconds per score of ``--repeat`` passes (``cpu_s_per_score``: the receiver's work),
the bytes written per score, and with prepared scores what preparing one cost
(``prepare_cpu_s_per_score``: the scoring worker's extra work, ``encode_scores`` on jobs
of 32 scores, packed).

``bench/all.py --only serve-scoring`` runs it on a store of its live run, for this tree and
(``--before``) an earlier one, alternated.

Usage:
    python bench/emit_cost.py STORE [--repeat 3] [--limit 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=2000)
    args = parser.parse_args(argv)
    from ek_otel.emit.envelope import ScoreEnvelope
    from ek_otel.emit.sinks import FileSink

    conn = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    rows = [r[0] for r in conn.execute(
        "SELECT envelope FROM scores WHERE envelope IS NOT NULL LIMIT ?", (args.limit,))]
    columns = {r[1] for r in conn.execute("PRAGMA table_info(outbox)")}
    prepared = [] if "prepared" not in columns or not hasattr(FileSink, "send_prepared") else [
        r[0] for r in conn.execute("SELECT prepared FROM outbox WHERE sink='file' AND prepared "
                                   "IS NOT NULL ORDER BY id LIMIT ?", (args.limit,))]
    conn.close()
    if not rows:
        raise SystemExit(f"{args.store}: no stored scores")
    extra: dict = {}
    if prepared:
        from ek_otel.emit.prepared import encode_scores, parts
        from ek_otel.serve.payload import pack_payload, unpack_payload

        encoding = FileSink(os.devnull).encoding
        envelopes = [ScoreEnvelope.from_json(r) for r in rows]
        encode_scores([encoding], envelopes[:1])
        start = time.process_time()
        for i in range(0, len(envelopes), 32):  # as the worker does: a job of 32 traces at once
            for (data,) in encode_scores([encoding], envelopes[i:i + 32]):
                pack_payload(data)
        extra["prepare_cpu_s_per_score"] = (time.process_time() - start) / len(envelopes)
        rows = prepared
    with tempfile.TemporaryDirectory(prefix="ek-emit-cost-") as folder:
        out = os.path.join(folder, "scores.jsonl")

        def one_pass() -> None:
            if os.path.exists(out):
                os.remove(out)
            sink = FileSink(out)
            for i in range(0, len(rows), 200):
                batch = rows[i:i + 200]
                sent = (sink.send_prepared([parts(sink.encoding, unpack_payload(r))
                                            for r in batch]) if prepared
                        else sink.send([ScoreEnvelope.from_json(r) for r in batch]))
                if not sent:
                    raise SystemExit("the file sink failed")
            sink.close()

        one_pass()  # imports and first-use caches, as a running server has them
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            one_pass()
            best = min(best, time.process_time() - start)
        size = os.path.getsize(out)
    print(json.dumps({"scores": len(rows), "cpu_s_per_score": best / len(rows),
                      "bytes_per_score": size / len(rows), "prepared": bool(prepared), **extra}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
