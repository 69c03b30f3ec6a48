"""Reading back what ``ek-otel serve`` scored, for ``ek-otel report``: one store, or the
stores of several instances behind a load-balancing Collector as one corpus.

Each trace appears once, at its latest revision, from the score envelopes the server
recorded; the corpus goes through the same :func:`~ek_otel.scoring.run.aggregate` and
:class:`~ek_otel.scoring.run.ScoreRun` as ``ek-otel score`` (one report, not two). The runs
come in the order of their own time (the root span's end, then the trace id), which no
instance decides: the stores of N instances that shared the traffic give the report of one
instance that received it all.

Example:
    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> gold = os.path.join(d, "gold.jsonl")
    >>> _ = open(gold, "w").write(json.dumps({"task_id": "t", "calls": []}) + "\\n")
    >>> s = Store(os.path.join(d, "s.db")); s.set_meta("gold", gold); s.close()
    >>> run = load_run(os.path.join(d, "s.db"))
    >>> run.report.n_episodes, run.unmatched
    (0, ())
    >>> load_run([os.path.join(d, "s.db"), os.path.join(d, "s.db")]).report.n_episodes
    0
    >>> _ = open(os.path.join(d, "x.db"), "w").write("not sqlite")
    >>> load_run(os.path.join(d, "x.db"))
    Traceback (most recent call last):
    ...
    ek_otel.errors.InputError: ...x.db: cannot read the store: file is not a database
"""

from __future__ import annotations

import glob
import json
import os
import sqlite3
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

from ..errors import ConfigError, InputError
from .store import ScoreRow, Store

__all__ = ["load_run", "store_paths"]


@dataclass(frozen=True)
class _StoreRows:
    path: str
    gold: Optional[str]
    settings_json: str
    rows: tuple
    revisions: int


def store_paths(paths: Sequence[str]) -> list:
    """The store files named by ``paths``: each a store file, or a directory of ``*.db`` stores.

    Example:
        >>> import os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> for name in ("b.db", "a.db", "a.db-wal", "notes.txt"):
        ...     _ = open(os.path.join(d, name), "w").write("")
        >>> [os.path.basename(p) for p in store_paths([d])]
        ['a.db', 'b.db']
        >>> store_paths([os.path.join(d, "none")])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: ...none: no such store (start `ek-otel serve --store` first)
    """
    out: list = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(glob.glob(os.path.join(glob.escape(path), "*.db")))
            if not found:
                raise InputError("a directory with no store in it (no *.db file)", path=path)
            out.extend(found)
        elif os.path.exists(path):
            out.append(path)
        else:
            raise InputError("no such store (start `ek-otel serve --store` first)", path=path)
    seen: set = set()
    unique = []
    for path in out:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            unique.append(path)
    return unique


def _read_store(store_path: str) -> _StoreRows:
    store = None
    try:
        store = Store(store_path, readonly=True)
        if not store.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='scores'").fetchone():
            raise InputError("not an ek-otel store (no scores table)", path=store_path)
        return _StoreRows(store_path, store.meta("gold"), store.meta("score_settings") or "",
                          tuple(store.latest_scores()), store.revision_count())
    except sqlite3.DatabaseError as exc:  # not a database, corrupt, locked...
        raise InputError(f"cannot read the store: {exc}", path=store_path) from None
    finally:
        if store is not None:
            store.close()


def load_run(store_path: Union[str, Sequence[str]], *, gold: Optional[str] = None,
             k: Optional[int] = None, warn: Optional[Callable[[str], None]] = None):
    """The :class:`~ek_otel.scoring.run.ScoreRun` of everything one server, or several, scored.

    Args:
        store_path: The SQLite store of ``ek-otel serve``, or a list of them (one per
            instance behind a load-balancing Collector): one corpus, each trace once.
        gold: The gold file (default: the one the (first) server recorded when it started).
        k: The k of pass@k / pass^k (default: the smallest repeated trial count).
        warn: Told (one line) of traces scored in more than one store: a run the Collector's
            ring split between instances. One score is kept: a matched part before an
            unmatched one (the part without the root span has no task id), then the
            highest revision, then the latest.

    Stores scored with other settings (gold file content, matcher, level, ...) than the first
    cannot make one corpus: :class:`~ek_otel.errors.InputError` names the store. A stored
    score that cannot be read back is listed among the unmatched runs with why (its trace id
    named), never allowed to break the report of the others.
    """
    from ..emit.envelope import ScoreEnvelope
    from ..scoring import ScoreRun, Unmatched, aggregate, load_scoring

    paths = [store_path] if isinstance(store_path, str) else list(store_path)
    if not paths:
        raise InputError("no store to report on")
    parts = [_read_store(path) for path in paths]
    first = parts[0]
    gold = gold or first.gold
    if not gold:
        raise ConfigError("the store records no gold file: pass one as {gold}",
                          fields=("gold",), path=first.path)
    for part in parts[1:]:
        if part.settings_json != first.settings_json:
            raise InputError(f"scored with other settings than {first.path} (gold file, matcher, "
                             "level, strategy, pricing or task id keys): not one corpus",
                             path=part.path)
    tasks, settings = load_scoring(gold, first.settings_json)
    rows = _merged_rows(parts, warn)
    matched, unmatched_rows, unreadable = [], [], []
    for row in rows:
        if row.matched and row.envelope:
            try:
                envelope = ScoreEnvelope.from_json(row.envelope)
                key = tuple(json.loads(row.comparability)) if row.comparability else ()
            except Exception as exc:  # noqa: BLE001 - one unreadable row never hides the others
                unreadable.append(Unmatched(row.trace_id, row.task_id or "",
                                            f"stored score unreadable: {type(exc).__name__}: {exc}"[:300]))
                continue
            matched.append((envelope.root_end_ns, envelope.trace_id, envelope, key))
        else:
            unmatched_rows.append(row)
    matched.sort(key=lambda item: (item[0], item[1]))
    unmatched_rows.sort(key=lambda row: row.trace_id)
    envelopes, scored = [], []
    for _, _, envelope, key in matched:
        envelopes.append(envelope)
        scored.append((envelope.score, key))
    unmatched = [Unmatched(row.trace_id, row.task_id or "", row.detail or "")
                 for row in unmatched_rows] + unreadable
    report = aggregate(scored, tasks, unmatched=unmatched, k=k, settings=settings)
    return ScoreRun(envelopes=tuple(envelopes), unmatched=tuple(unmatched), report=report,
                    revisions=sum(part.revisions for part in parts),
                    provenance=settings.provenance())


def _merged_rows(parts: Sequence[_StoreRows], warn: Optional[Callable[[str], None]]) -> list:
    """Every trace's latest row over all stores; a trace in several stores is kept once."""
    if len(parts) == 1:
        return list(parts[0].rows)
    best: dict = {}
    split: dict = {}
    for part in parts:
        for row in part.rows:
            held = best.get(row.trace_id)
            if held is None:
                best[row.trace_id] = (row, part.path)
                continue
            split.setdefault(row.trace_id, [held[1]]).append(part.path)
            if _later(row, held[0]):
                best[row.trace_id] = (row, part.path)
    if split and warn is not None:
        example, where = next(iter(split.items()))
        warn(f"{len(split)} traces were scored in more than one store (a ring change split "
             f"them between instances; each store scored only its part; one score each is "
             f"kept, the matched part's), e.g. {example} in {', '.join(where)}")
    return [row for row, _ in best.values()]


def _later(row: ScoreRow, other: ScoreRow) -> bool:
    """Whether ``row`` is the one to keep of two scores of one trace in different stores."""
    return _recency(row) > _recency(other)


def _recency(row: ScoreRow) -> tuple:
    try:
        scored_at = json.loads(row.envelope).get("scored_at_ns", 0) if row.envelope else 0
    except (ValueError, AttributeError):  # an unreadable score: load_run names it
        scored_at = 0
    return (bool(row.matched and row.envelope), row.revision, scored_at, row.envelope or "")
