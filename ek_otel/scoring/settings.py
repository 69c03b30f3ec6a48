"""How episodes are linked, scored and stamped: :class:`ScoreSettings`, the one shape the
scoring options travel in, from the command line to the worker processes of ``ek-otel
serve`` and into its store (:meth:`ScoreSettings.to_json` / :meth:`ScoreSettings.from_json`).

Example:
    >>> s = ScoreSettings(level="arg", default_task_id="t1", gold_sha256="ab" * 32)
    >>> ScoreSettings.from_json(s.to_json()) == s
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

from .._version import __version__
from ..core.cost import ModelPrice, PriceTable
from ..core.evaluate import canonicalizer_name
from ..core.ignore import check_ignore_patterns
from ..core.modes import MATCH_MODES
from ..core.pairing import STRATEGIES
from ..core.toolcalls import LEVELS
from ..emit.envelope import ScoreProvenance
from ..ingest.episodes import GROUP_BY_CHOICES
from ..ingest.semconv import DEFAULT_TASK_ID_KEYS

__all__ = [
    "MATCHERS",
    "SCORE_STRATEGIES",
    "GROUP_BY_CHOICES",
    "ScoreSettings",
    "file_sha256",
    "task_id_key_list",
]

#: ``ek``: ek-otel's tool-call matcher (F1 over calls or arguments). ``bfcl``: the official
#: BFCL checker's verdict per episode (:mod:`ek_otel.bfcl.matcher`; gold from
#: ``ek-otel gold from-bfcl``): it decides pass/fail, the ek counts stay as detail.
MATCHERS = ("ek", "bfcl")
#: How an episode finds its task: by its task id, or (without one) by its first user message.
LINK_BY = ("task", "input")
#: How predicted calls are paired with gold calls when scoring (``ordered`` is for traces).
SCORE_STRATEGIES = tuple(s for s in STRATEGIES if s != "ordered")

_PRICE_FIELDS = ("input", "output", "cached_input", "reasoning")


@dataclass(frozen=True)
class ScoreSettings:
    """How episodes are linked, scored and stamped.

    Args:
        level: ``"call"`` or ``"arg"`` (what a true positive is).
        strategy: ``"optimal"`` or ``"best_first"`` pairing of calls with gold calls.
        matcher: One of :data:`MATCHERS`.
        canonicalizer: Optional value canonicalizer passed to the matcher (library use only:
            a function does not travel as JSON).
        prices: A :class:`~ek_otel.core.cost.PriceTable` for dollars, or None.
        default_task_id: The task of episodes that carry no task id (the only task of a
            one-task gold file, or the one named by the caller).
        gold_sha256: The hash of the gold file (provenance of every score).
        evaluator_version: Stamped on every score; ek-otel's version by default.
        group_by: One of :data:`GROUP_BY_CHOICES`.
        task_id_keys: Attribute keys tried for the task id, in order.
        scored_at_ns: A fixed score timestamp (tests); None means "now".
        ignore_tools: Framework-internal tools whose calls are removed before matching
            (with each task's own ``ignore_tools``; :mod:`ek_otel.core.ignore`). Recorded in
            the provenance only when given, so default scores keep their exact shape.
        link_by: ``"task"``, or ``"input"``: an episode without a task id is linked to the
            task whose ``input`` equals its normalised first user message (see
            :func:`ek_otel.scoring.link.link_task`); the episodes then carry their input
            (``read_request``).
        transcripts: Each written-back score carries the run's transcript (``--transcripts``).
        json_rows: Each scored outcome also carries its row of the JSON report, encoded by
            the process that scored it (``ek-otel score --json``:
            :func:`ek_otel.scoring.report.envelope_row`), so that the report is written by
            joining them.
        match: A match mode (:data:`~ek_otel.core.modes.MATCH_MODES`) that overrides every
            task's ``match`` (``--match``); None keeps the gold file's.
        ordered: Overrides every task's ``ordered`` (``--ordered/--unordered``); None keeps
            the gold file's. Both are recorded in the provenance only when given.

    Raises:
        ValueError: for an unknown level, strategy, matcher or grouping, or a bad
            ``ignore_tools`` pattern.

    Example:
        >>> ScoreSettings(level="arg").provenance().matcher
        {'matcher': 'ek', 'level': 'arg', 'strategy': 'optimal', 'canonicalizer': 'default'}
        >>> ScoreSettings(ignore_tools=["transfer_to_*"]).provenance().matcher["ignore_tools"]
        ['transfer_to_*']
        >>> ScoreSettings(level="word")
        Traceback (most recent call last):
        ...
        ValueError: level must be one of call, arg; got 'word'
    """

    level: str = "call"
    strategy: str = "optimal"
    matcher: str = "ek"
    canonicalizer: Any = None
    prices: Optional[PriceTable] = None
    default_task_id: Optional[str] = None
    gold_sha256: str = ""
    evaluator_version: str = __version__
    group_by: str = "trace"
    task_id_keys: tuple = DEFAULT_TASK_ID_KEYS
    scored_at_ns: Optional[int] = None
    ignore_tools: tuple = ()
    link_by: str = "task"
    transcripts: bool = False
    json_rows: bool = False
    match: Optional[str] = None
    ordered: Optional[bool] = None

    def __post_init__(self) -> None:
        for name, value, choices in (
            ("link_by", self.link_by, LINK_BY),
            ("level", self.level, LEVELS),
            ("strategy", self.strategy, SCORE_STRATEGIES),
            ("matcher", self.matcher, MATCHERS),
            ("group_by", self.group_by, GROUP_BY_CHOICES),
        ):
            if value not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
        if self.match is not None and self.match not in MATCH_MODES:
            raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}; got {self.match!r}")
        if self.matcher != "ek" and (self.match is not None or self.ordered is not None):
            raise ValueError("match and ordered overrides need the ek matcher (the BFCL "
                             "checker decides its own verdicts)")
        object.__setattr__(self, "task_id_keys", tuple(self.task_id_keys))
        object.__setattr__(self, "ignore_tools", check_ignore_patterns(self.ignore_tools))

    def canonicalizer_name(self) -> str:
        """The canonicalizer's name as recorded in provenance (``"default"`` when None).

        Example:
            >>> ScoreSettings(canonicalizer=str.lower).canonicalizer_name()
            'str.lower'
        """
        return canonicalizer_name(self.canonicalizer)

    def provenance(self) -> ScoreProvenance:
        """The :class:`~ek_otel.emit.envelope.ScoreProvenance` of scores made with these settings.

        Example:
            >>> ScoreSettings(gold_sha256="ab" * 32).provenance().gold_sha256[:4]
            'abab'
        """
        cached = self.__dict__.get("_provenance")
        if cached is None:
            matcher = {
                "matcher": self.matcher,
                "level": self.level,
                "strategy": self.strategy,
                "canonicalizer": self.canonicalizer_name(),
            }
            if self.ignore_tools:  # only when used: default provenance keeps its bytes
                matcher["ignore_tools"] = list(self.ignore_tools)
            if self.match is not None:
                matcher["match"] = self.match
            if self.ordered is not None:
                matcher["ordered"] = self.ordered
            cached = ScoreProvenance(
                evaluator_version=self.evaluator_version,
                gold_sha256=self.gold_sha256,
                matcher=matcher,
            )
            object.__setattr__(self, "_provenance", cached)  # one per settings, shared by scores
        return cached

    def to_json(self) -> str:
        """The settings as one JSON object (what ``serve`` hands its workers and stores).

        Raises:
            ValueError: the settings hold a canonicalizer (a function does not travel).

        Example:
            >>> from ek_otel.core.cost import ModelPrice, PriceTable
            >>> s = ScoreSettings(prices=PriceTable({"m": ModelPrice(1.0, 2.0)}))
            >>> '"prices": {"m": {"input": 1.0, "output": 2.0' in s.to_json()
            True
            >>> ScoreSettings(canonicalizer=str.lower).to_json()
            Traceback (most recent call last):
            ...
            ValueError: a canonicalizer (str.lower) cannot travel as JSON
        """
        if self.canonicalizer is not None:
            raise ValueError(f"a canonicalizer ({self.canonicalizer_name()}) cannot travel as JSON")
        prices = None
        if self.prices is not None:
            prices = {model: {name: getattr(price, name) for name in _PRICE_FIELDS}
                      for model, price in self.prices.models.items()}
        data = {
            "level": self.level, "strategy": self.strategy, "matcher": self.matcher,
            "prices": prices, "default_task_id": self.default_task_id,
            "gold_sha256": self.gold_sha256, "evaluator_version": self.evaluator_version,
            "group_by": self.group_by, "task_id_keys": list(self.task_id_keys),
            "scored_at_ns": self.scored_at_ns,
        }
        if self.ignore_tools:
            data["ignore_tools"] = list(self.ignore_tools)
        if self.link_by != "task":
            data["link_by"] = self.link_by
        for key in ("match", "ordered"):  # overrides: only when given
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> "ScoreSettings":
        """The settings :meth:`to_json` wrote.

        Raises:
            ValueError: text that is not such an object.

        Example:
            >>> ScoreSettings.from_json('{"level": "arg"}').level
            'arg'
            >>> ScoreSettings.from_json('{"colour": "red"}')
            Traceback (most recent call last):
            ...
            ValueError: not scoring settings: unknown key 'colour'
        """
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not scoring settings: not a JSON object")
        unknown = sorted(set(data) - _JSON_KEYS)
        if unknown:
            raise ValueError(f"not scoring settings: unknown key {unknown[0]!r}")
        prices = data.pop("prices", None)
        if prices is not None:
            data["prices"] = PriceTable({model: ModelPrice(**fields)
                                         for model, fields in prices.items()})
        for key in ("task_id_keys", "ignore_tools"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(**data)


_JSON_KEYS = frozenset({"level", "strategy", "matcher", "prices", "default_task_id",
                        "gold_sha256", "evaluator_version", "group_by", "task_id_keys",
                        "scored_at_ns", "ignore_tools", "link_by", "match", "ordered"})


def file_sha256(path: str) -> str:
    """The SHA-256 (hex) of a file's bytes: the gold file's identity in every score.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "g.jsonl"); _ = open(p, "wb").write(b"")
        >>> file_sha256(p)
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def task_id_key_list(extra: Iterable[str] = ()) -> tuple:
    """The task-id keys to try: the given ones first, then the defaults (no duplicates).

    Example:
        >>> task_id_key_list(["my.task"])[:2]
        ('my.task', 'ek.task.id')
    """
    return tuple(dict.fromkeys([*extra, *DEFAULT_TASK_ID_KEYS]))
