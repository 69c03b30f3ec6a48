"""Reading back what ``ek-otel serve`` scored, for ``ek-otel report``.

Each trace appears once, at its latest revision, from the score envelopes the server
recorded; the corpus goes through the same :func:`~ek_otel.scoring.run.aggregate` and
:class:`~ek_otel.scoring.run.ScoreRun` as ``ek-otel score`` (one report, not two).

Example:
    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> gold = os.path.join(d, "gold.jsonl")
    >>> _ = open(gold, "w").write(json.dumps({"task_id": "t", "calls": []}) + "\\n")
    >>> s = Store(os.path.join(d, "s.db")); s.set_meta("gold", gold); s.close()
    >>> run = load_run(os.path.join(d, "s.db"))
    >>> run.report.n_episodes, run.unmatched
    (0, ())
    >>> _ = open(os.path.join(d, "x.db"), "w").write("not sqlite")
    >>> load_run(os.path.join(d, "x.db"))
    Traceback (most recent call last):
    ...
    ek_otel.errors.InputError: ...x.db: cannot read the store: file is not a database
"""

from __future__ import annotations

import json
import sqlite3
from typing import Optional

from ..errors import ConfigError, InputError
from .store import Store

__all__ = ["load_run"]


def load_run(store_path: str, *, gold: Optional[str] = None, k: Optional[int] = None):
    """The :class:`~ek_otel.scoring.run.ScoreRun` of everything a server scored.

    A stored score that cannot be read back is listed among the unmatched runs with why
    (its trace id named), never allowed to break the report of the others.

    Args:
        store_path: The SQLite store of ``ek-otel serve``.
        gold: The gold file (default: the one the server recorded when it started).
        k: The k of pass@k / pass^k (default: the smallest repeated trial count).
    """
    from ..emit.envelope import ScoreEnvelope
    from ..scoring import ScoreRun, Unmatched, aggregate, load_scoring

    store = None
    try:
        store = Store(store_path, readonly=True)
        if not store.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='scores'").fetchone():
            raise InputError("not an ek-otel store (no scores table)", path=store_path)
        gold = gold or store.meta("gold")
        if not gold:
            raise ConfigError("the store records no gold file: pass one as {gold}",
                              fields=("gold",), path=store_path)
        settings_json = store.meta("score_settings") or ""
        rows = store.latest_scores()
        revisions = store.revision_count()
    except sqlite3.DatabaseError as exc:  # not a database, corrupt, locked...
        raise InputError(f"cannot read the store: {exc}", path=store_path) from None
    finally:
        if store is not None:
            store.close()
    tasks, settings = load_scoring(gold, settings_json)
    envelopes, unmatched, scored = [], [], []
    for row in rows:
        if row.matched and row.envelope:
            try:
                envelope = ScoreEnvelope.from_json(row.envelope)
                key = tuple(json.loads(row.comparability)) if row.comparability else ()
            except Exception as exc:  # noqa: BLE001 - one unreadable row never hides the others
                unmatched.append(Unmatched(row.trace_id, row.task_id or "",
                                           f"stored score unreadable: {type(exc).__name__}: {exc}"[:300]))
                continue
            envelopes.append(envelope)
            scored.append((envelope.score, key))
        else:
            unmatched.append(Unmatched(row.trace_id, row.task_id or "", row.detail or ""))
    report = aggregate(scored, tasks, unmatched=unmatched, k=k, settings=settings)
    return ScoreRun(envelopes=tuple(envelopes), unmatched=tuple(unmatched), report=report,
                    revisions=revisions, provenance=settings.provenance())
