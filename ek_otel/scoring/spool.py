"""The latest score of each episode of a scoring run, in first-seen order: in memory for a
small run, in a temporary SQLite file for a large one, so that scoring millions of episodes
takes flat memory.

:class:`EpisodeRows` takes each scored outcome (a
:class:`~ek_otel.emit.envelope.ScoreEnvelope`, or an
:class:`~ek_otel.core.scores.EpisodeScore` for the library's ``evaluate``) with its episode
key and comparability key; an outcome whose key came before replaces the earlier one (a
revision) and keeps its place. Up to ``spool_after`` episodes (:data:`SPOOL_AFTER`) it keeps
them in a dict. Past that it moves them, and every later one, to a private temporary SQLite
database (:func:`~ek_otel.tempdb.temporary_database`: a file in ``$TMPDIR`` that SQLite
deletes when the rows are closed or garbage-collected), one row per episode: the figures the corpus report sums (task
id, tp/fp/fn, exact, success, dollars, tokens) in columns of their own, the outcome
pickled, and its row of the JSON report as the process that scored it encoded it, when it
did (``ek-otel score --json``: :func:`~ek_otel.scoring.report.envelope_row`). The pickles are read back only by this process (nothing outside it writes that
file).

Reading it back:

- :meth:`EpisodeRows.facts` streams ``(score, comparability)`` for the aggregation
  (:func:`~ek_otel.core.aggregate.aggregate_scores`): light :class:`ScoreFacts` records from
  the columns, nothing unpickled;
- iterating the rows (a :class:`~collections.abc.Sequence`) gives the outcomes, and
  :meth:`EpisodeRows.rows` gives them with their comparability keys, as the JSON report's
  ``episodes`` are written (:mod:`ek_otel.scoring.report`), one block at a time, and
  :meth:`EpisodeRows.encoded_rows` the rows already encoded, with nothing unpickled;
- :meth:`EpisodeRows.scores` is a sequence of the scores (all, or of one comparability key)
  that reads them again on each pass: the report's ``scores``.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> rows = EpisodeRows(spool_after=1)
    >>> rows.put("a", EpisodeScore("t", tp=1.0), ("m",))
    >>> rows.put("b", EpisodeScore("u"), ("m",))
    >>> rows.put("a", EpisodeScore("t", tp=2.0, revision=1), ("m",))   # a revision of "a"
    >>> rows.spooled, len(rows), [(s.task_id, s.tp) for s in rows]
    (True, 2, [('t', 2.0), ('u', 0.0)])
    >>> [(f.task_id, f.tp, key) for f, key in rows.facts()]
    [('t', 2.0, ('m',)), ('u', 0.0, ('m',))]
    >>> rows.close()
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, Optional

from ..core.episode import Cost
from ..emit.envelope import ScoreEnvelope
from ..tempdb import temporary_database

__all__ = ["SPOOL_AFTER", "ScoreFacts", "EpisodeRows", "AppendRows", "ignored_calls_of",
           "score_of"]

#: Episodes kept in memory before the rows move to a temporary SQLite file (a scored
#: episode takes some 3-4 KB in memory: 20k of them about 70 MB; its encoded JSON row, for
#: ``ek-otel score --json``, some 3 KB more).
SPOOL_AFTER = 20_000

#: Rows written to the spool at once.
_WRITE_BATCH = 512

#: Rows read from the spool at once.
_READ_BATCH = 1024

_COLUMNS = ("task_id", "tp", "fp", "fn", "exact", "success", "dollars", "input_tokens",
            "output_tokens", "cached_input_tokens", "reasoning_tokens", "retries", "latency_s",
            "ignored_calls", "comparability")
_FACTS = ", ".join(_COLUMNS)


class ScoreFacts(NamedTuple):
    """What the corpus report reads of one score (the attributes of
    :class:`~ek_otel.core.scores.EpisodeScore` it sums), read from the spool without the
    whole score.

    Example:
        >>> ScoreFacts("t", 1.0, 0.0, 0.0, True, True, None, Cost(), 0).success
        True
    """

    task_id: str
    tp: float
    fp: float
    fn: float
    exact: bool
    success: bool
    dollars: Optional[float]
    cost: Cost
    ignored_calls: int


def score_of(outcome: Any) -> Any:
    """The :class:`~ek_otel.core.scores.EpisodeScore` of an envelope (or a score itself).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> score_of(EpisodeScore("t")).task_id
        't'
    """
    return outcome.score if isinstance(outcome, ScoreEnvelope) else outcome


def ignored_calls_of(score: Any) -> int:
    """How many calls to ignored tools a score (or its :class:`ScoreFacts`) left out.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> ignored_calls_of(EpisodeScore("t", settings={"ignored_calls": 2}))
        2
    """
    if isinstance(score, ScoreFacts):
        return score.ignored_calls
    return score.settings.get("ignored_calls", 0)


class _Spool:
    """The SQLite side of :class:`EpisodeRows`."""

    def __init__(self) -> None:
        conn = temporary_database(self, cache_kib=8192)  # the page cache stays small
        # Columns without a type keep what they are given (an int stays an int).
        conn.execute(f"CREATE TABLE episode (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
                     f"{', '.join(_COLUMNS)}, outcome BLOB, row BLOB)")
        conn.execute("BEGIN")
        self.conn = conn
        self.upsert = (
            f"INSERT INTO episode (key, {_FACTS}, outcome, row) VALUES ({', '.join('?' * (len(_COLUMNS) + 3))}) "
            f"ON CONFLICT(key) DO UPDATE SET "
            + ", ".join(f"{c}=excluded.{c}" for c in _COLUMNS + ("outcome", "row")))
        self.pending: list = []
        self.keys: dict = {}  # comparability key -> its number in the rows
        self.key_list: list = []
        self.count: Optional[int] = 0

    def put(self, key: Any, outcome: Any, comparability: tuple, row: Optional[bytes]) -> None:
        score = score_of(outcome)
        number = self.keys.get(comparability)
        if number is None:
            number = self.keys[comparability] = len(self.key_list)
            self.key_list.append(comparability)
        cost = score.cost if score.cost is not None else Cost()
        self.pending.append((
            repr(key), score.task_id, score.tp, score.fp, score.fn, score.exact, score.success,
            score.dollars, cost.input_tokens, cost.output_tokens, cost.cached_input_tokens,
            cost.reasoning_tokens, cost.retries, cost.latency_s, ignored_calls_of(score), number,
            pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL), row))
        self.count = None
        if len(self.pending) >= _WRITE_BATCH:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.conn.executemany(self.upsert, self.pending)
            self.pending = []

    def __len__(self) -> int:
        if self.count is None:
            self.flush()
            self.count = self.conn.execute("SELECT COUNT(*) FROM episode").fetchone()[0]
        return self.count

    def select(self, columns: str, comparability: Any = None, offset: int = 0,
               limit: int = -1) -> Iterator[tuple]:
        """Rows in first-seen order (of one comparability key, when given)."""
        self.flush()
        where, args = "", ()
        if comparability is not None:
            number = self.keys.get(comparability)
            if number is None:
                return
            where, args = " WHERE comparability = ?", (number,)
        cursor = self.conn.execute(
            f"SELECT {columns} FROM episode{where} ORDER BY seq LIMIT ? OFFSET ?",
            args + (limit, offset))
        while True:
            batch = cursor.fetchmany(_READ_BATCH)
            if not batch:
                return
            yield from batch

    def close(self) -> None:
        self.conn.close()


class _Rows(Sequence):
    """A sequence that finds one item by its position (:meth:`_item`); slices are lists."""

    def _item(self, index: int) -> Any:
        raise NotImplementedError

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("row index out of range")
        return self._item(index)


class EpisodeRows(_Rows):
    """The latest outcome of each episode, in first-seen order (module doc); a sequence of
    the outcomes.

    Args:
        spool_after: Episodes kept in memory before they move to the spool (0: spool from
            the first; None: :data:`SPOOL_AFTER`).
    """

    def __init__(self, spool_after: Optional[int] = None):
        self.spool_after = SPOOL_AFTER if spool_after is None else spool_after
        self.memory: "OrderedDict[Any, tuple]" = OrderedDict()
        self.spool: Optional[_Spool] = None
        #: Whether every outcome came with its encoded row (:meth:`encoded_rows`).
        self.has_rows = True

    @property
    def spooled(self) -> bool:
        """Whether the rows are in the SQLite spool (else in memory)."""
        return self.spool is not None

    def put(self, key: Any, outcome: Any, comparability: tuple, row: Optional[bytes] = None) -> None:
        """Take an episode's latest outcome (replacing an earlier one of the same ``key``),
        and its row of the JSON report when it was encoded already."""
        if row is None:
            self.has_rows = False
        if self.spool is not None:
            self.spool.put(key, outcome, comparability, row)
            return
        self.memory[key] = (outcome, comparability, row)
        if len(self.memory) > self.spool_after:
            spool = _Spool()
            for earlier, (item, comp, encoded) in self.memory.items():
                spool.put(earlier, item, comp, encoded)
            self.memory = OrderedDict()
            self.spool = spool

    def __len__(self) -> int:
        return len(self.spool) if self.spool is not None else len(self.memory)

    def __iter__(self) -> Iterator[Any]:
        for outcome, _ in self.rows():
            yield outcome

    def _item(self, index: int) -> Any:
        if self.spool is None:
            return next(v for i, v in enumerate(self.memory.values()) if i == index)[0]
        (blob,), = self.spool.select("outcome", offset=index, limit=1)
        return pickle.loads(blob)

    def rows(self, comparability: Any = None) -> Iterator[tuple]:
        """``(outcome, comparability)`` of each episode (of one comparability key, when
        given), in first-seen order."""
        if self.spool is None:
            for outcome, comp, _ in list(self.memory.values()):
                if comparability is None or comp == comparability:
                    yield outcome, comp
            return
        key_list = self.spool.key_list
        for blob, number in self.spool.select("outcome, comparability", comparability):
            yield pickle.loads(blob), key_list[number]

    def facts(self) -> Iterator[tuple]:
        """``(score, comparability)`` of each episode, in first-seen order: the scores
        themselves in memory, :class:`ScoreFacts` from the spool."""
        if self.spool is None:
            for outcome, comp, _ in list(self.memory.values()):
                yield score_of(outcome), comp
            return
        key_list = self.spool.key_list
        for row in self.spool.select(_FACTS):
            yield ScoreFacts(row[0], row[1], row[2], row[3], bool(row[4]), bool(row[5]), row[6],
                             Cost(row[7], row[8], row[9], row[10], row[11], row[12]),
                             row[13]), key_list[row[14]]

    def encoded_rows(self) -> Iterator[tuple]:
        """``(encoded row, comparability)`` of each episode, in first-seen order, when
        :attr:`has_rows` (the rows as they came with the outcomes; nothing unpickled).

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> rows = EpisodeRows(spool_after=1)
            >>> rows.put("a", EpisodeScore("t"), ("m",), b"row a")
            >>> rows.put("b", EpisodeScore("u"), ("m",), b"row b")
            >>> rows.spooled, rows.has_rows, list(rows.encoded_rows())
            (True, True, [(b'row a', ('m',)), (b'row b', ('m',))])
            >>> rows.close()
        """
        if not self.has_rows:
            raise ValueError("these rows came without their encoded rows")
        if self.spool is None:
            for _, comp, row in list(self.memory.values()):
                yield row, comp
            return
        key_list = self.spool.key_list
        for row, number in self.spool.select("row, comparability"):
            yield row, key_list[number]

    def scores(self, comparability: Any = None) -> "Scores":
        """The scores (of one comparability key, when given), read again on each pass."""
        return Scores(self, comparability)

    def close(self) -> None:
        """Delete the spool (the rows are empty afterwards)."""
        if self.spool is not None:
            self.spool.close()
            self.spool = None
        self.memory = OrderedDict()


class Scores(_Rows):
    """The scores of :class:`EpisodeRows` (all, or of one comparability key) as a sequence
    that reads them from the rows on each pass (what a report's ``scores`` is for a spooled
    run).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> rows = EpisodeRows()
        >>> rows.put("a", EpisodeScore("t"), ("m",)); rows.put("b", EpisodeScore("u"), ("n",))
        >>> [s.task_id for s in rows.scores(("n",))], len(rows.scores())
        (['u'], 2)
    """

    def __init__(self, rows: EpisodeRows, comparability: Any = None):
        self.rows, self.comparability = rows, comparability
        self._len: Optional[int] = None

    def __iter__(self) -> Iterator[Any]:
        for outcome, _ in self.rows.rows(self.comparability):
            yield score_of(outcome)

    def __len__(self) -> int:
        if self._len is None:
            if self.comparability is None:
                self._len = len(self.rows)
            else:
                self._len = sum(1 for _, comp in self.rows.facts() if comp == self.comparability)
        return self._len

    def _item(self, index: int) -> Any:
        if self.comparability is None:
            return score_of(self.rows[index])
        return next(score for i, score in enumerate(self) if i == index)


class AppendRows(_Rows):
    """A list that only grows (the unmatched episodes of a run), in memory up to
    ``spool_after`` items (None: :data:`SPOOL_AFTER`), then pickled in a temporary SQLite
    file like :class:`EpisodeRows`; ``rows + other`` is a sequence of both.

    Example:
        >>> rows = AppendRows(spool_after=1)
        >>> for item in ("a", "b", "c"):
        ...     rows.append(item)
        >>> rows.spooled, len(rows), list(rows), rows[-1], rows[:2], list(rows + ("d",))
        (True, 3, ['a', 'b', 'c'], 'c', ['a', 'b'], ['a', 'b', 'c', 'd'])
    """

    def __init__(self, spool_after: Optional[int] = None):
        self.spool_after = SPOOL_AFTER if spool_after is None else spool_after
        self.memory: list = []
        self.pending: list = []
        self.conn: Any = None
        self.count = 0

    @property
    def spooled(self) -> bool:
        """Whether the items are in the SQLite spool (else in memory)."""
        return self.conn is not None

    def append(self, item: Any) -> None:
        self.count += 1
        if self.conn is None:
            self.memory.append(item)
            if len(self.memory) <= self.spool_after:
                return
            conn = temporary_database(self)
            conn.execute("CREATE TABLE item (seq INTEGER PRIMARY KEY, value BLOB)")
            self.conn = conn
            items, self.memory = self.memory, []
        else:
            items = [item]
        self.pending.extend((pickle.dumps(i, pickle.HIGHEST_PROTOCOL),) for i in items)
        if len(self.pending) >= _WRITE_BATCH:
            self._flush()

    def _flush(self) -> None:
        if self.pending and self.conn is not None:
            self.conn.executemany("INSERT INTO item (value) VALUES (?)", self.pending)
            self.pending = []

    def __len__(self) -> int:
        return self.count

    def _select(self, offset: int = 0, limit: int = -1) -> Iterator[Any]:
        if self.conn is None:
            stop = None if limit < 0 else offset + limit
            yield from self.memory[offset:stop]
            return
        self._flush()
        cursor = self.conn.execute("SELECT value FROM item ORDER BY seq LIMIT ? OFFSET ?",
                                   (limit, offset))
        while True:
            batch = cursor.fetchmany(_READ_BATCH)
            if not batch:
                return
            for (blob,) in batch:
                yield pickle.loads(blob)

    def __iter__(self) -> Iterator[Any]:
        return self._select()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice) and index.step in (None, 1):  # one query
            start, stop, _ = index.indices(self.count)
            return list(self._select(start, max(stop - start, 0)))
        return super().__getitem__(index)

    def _item(self, index: int) -> Any:
        return next(self._select(index, 1))

    def __add__(self, other: Any) -> "Chained":
        return Chained(self, other)


class Chained(_Rows):
    """Two sequences one after the other, neither copied (``AppendRows + tuple``).

    Example:
        >>> both = Chained(("a",), ("b", "c"))
        >>> len(both), both[1], both[-1], both[:2], list(both + ("d",))
        (3, 'b', 'c', ['a', 'b'], ['a', 'b', 'c', 'd'])
    """

    def __init__(self, first: Sequence, second: Sequence):
        self.first, self.second = first, second

    def __len__(self) -> int:
        return len(self.first) + len(self.second)

    def __iter__(self) -> Iterator[Any]:
        yield from self.first
        yield from self.second

    def _item(self, index: int) -> Any:
        head = len(self.first)
        return self.first[index] if index < head else self.second[index - head]

    def __add__(self, other: Any) -> "Chained":
        return Chained(self, other)
