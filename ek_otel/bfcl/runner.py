"""Scoring BFCL result files: pair them with the data, check every entry.

The files are found and read by :mod:`ek_otel.bfcl.result_files` (``BFCL_v4_<category>_result.json``,
JSON Lines, sorted by id as the official loader sorts them).

Single-turn categories are checked here; multi-turn and agentic categories go to
``ek_otel.bfcl.multi_turn.check_multi_turn_entry`` and
``ek_otel.bfcl.agentic.check_agentic_entry``.

Example:
    >>> score = CategoryScore("m", "irrelevance", 3, 4)
    >>> score.accuracy, score.header()["accuracy"], score.official
    (0.75, 0.75, True)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Optional

from ..core.gc_pause import paused_gc
from ..errors import BfclDataError
from .categories import ALL_SCORING, checker_kind, is_multi_turn
from .data import BfclData, BfclEntry
from .jsonlines import parse_json
from .models import lookup, model_registry, style_of_results
from .result_files import ResultFile, find_result_files
from .single_turn import check_ast_entry, check_single_turn, relevance_verdict
from .summary import AST_MODE_NOTE
from .verdict import Verdict

__all__ = [
    "AST_MODE_NOTE",
    "CategoryScore",
    "BfclRun",
    "score_category",
    "model_settings",
    "score_result_files",
    "run_bfcl",
]

@dataclass(frozen=True)
class CategoryScore:
    """Accuracy of one category: correct / total, as in the score file header.

    Example:
        >>> CategoryScore("m", "parallel", 3, 4).accuracy
        0.75
    """

    model: str
    category: str
    correct_count: int
    total_count: int
    mode: str = ""  # "ast": a multi-turn category checked in ast mode, not the official one

    @property
    def accuracy(self) -> float:
        """``correct_count / total_count`` (0.0 for an empty category)."""
        return self.correct_count / self.total_count if self.total_count else 0.0

    @property
    def official(self) -> bool:
        """False for a multi-turn category checked in ast mode (``--multi-turn ast``)."""
        return self.mode != "ast"

    def header(self) -> dict:
        """The official score-file header line; a category checked in ast mode says so
        (``note``: :data:`AST_MODE_NOTE`), so that its file is never taken for the official.

        Example:
            >>> CategoryScore("m", "parallel", 1, 2).header()
            {'accuracy': 0.5, 'correct_count': 1, 'total_count': 2}
            >>> CategoryScore("m", "multi_turn_base", 1, 2, mode="ast").header()["note"]
            'ast mode, not the official figure'
        """
        header = {"accuracy": self.accuracy, "correct_count": self.correct_count,
                  "total_count": self.total_count}
        if not self.official:
            header["note"] = AST_MODE_NOTE
        return header


@dataclass(frozen=True)
class BfclRun:
    """Everything one ``ek-otel bfcl`` run produced: per-category scores and verdicts.

    Example:
        >>> run = BfclRun(scores=(CategoryScore("m", "parallel", 1, 1),),
        ...               verdicts={("m", "parallel"): (Verdict("parallel_0", "parallel", True),)})
        >>> run.models, run.score("m", "parallel").accuracy
        (('m',), 1.0)
    """

    scores: tuple = ()
    verdicts: dict = field(default_factory=dict)

    @property
    def models(self) -> tuple:
        """The model names, in order of appearance."""
        return tuple(dict.fromkeys(s.model for s in self.scores))

    def unofficial(self, model: str) -> tuple:
        """The figures of ``model`` that are not the official ones: its multi-turn categories
        checked in ast mode, and then the Multi-Turn and Overall summary figures.

        Example:
            >>> run = BfclRun((CategoryScore("m", "multi_turn_base", 1, 2, mode="ast"),
            ...                CategoryScore("m", "parallel", 1, 1)))
            >>> run.unofficial("m")
            ('multi_turn_base', 'Multi-Turn', 'Overall')
        """
        names = tuple(s.category for s in self.scores if s.model == model and not s.official)
        return names + ("Multi-Turn", "Overall") if names else ()

    def score(self, model: str, category: str) -> Optional[CategoryScore]:
        """The :class:`CategoryScore` of ``model``/``category``, or None."""
        for s in self.scores:
            if s.model == model and s.category == category:
                return s
        return None


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------


def _pair(result_file: ResultFile, entries: Sequence[BfclEntry]) -> list:
    by_id = {e.id: e for e in entries}
    pairs = []
    for record in result_file.records:
        entry = by_id.get(record["id"])
        if entry is None:
            raise BfclDataError(
                f"{result_file.path}: id {record['id']!r} is not in the BFCL data for "
                f"{result_file.category}"
            )
        pairs.append((entry, record))
    return pairs


def _checker_for(category: str, *, underscore_to_dot: bool, multi_turn: Optional[str],
                 model: str, style: Optional[str] = None, exact_ints: bool = True) -> Callable:
    kind = checker_kind(category)
    if kind == "ast":  # check_single_turn's own dispatch, one call less per entry
        return lambda entry, record: check_ast_entry(
            entry, record.get("result"), underscore_to_dot=underscore_to_dot, style=style,
            exact_ints=exact_ints)
    if kind == "relevance":
        return lambda entry, record: check_single_turn(
            entry, record.get("result"), underscore_to_dot=underscore_to_dot, style=style,
            exact_ints=exact_ints)
    if kind == "multi_turn":
        try:
            from .multi_turn import check_multi_turn_entry
        except ImportError as exc:  # pragma: no cover - depends on the optional module
            raise BfclDataError(f"multi-turn checking is unavailable: {exc}") from None

        def check_multi(entry: BfclEntry, record: dict) -> Verdict:
            verdict = check_multi_turn_entry(
                entry.id, category, record.get("result"), entry.question, entry.answer or {},
                mode=multi_turn, style=style, model_name=model)
            return _with_official_line(verdict, entry, record)

        return check_multi
    try:
        from .agentic import check_agentic_entry
    except ImportError as exc:  # pragma: no cover - depends on the optional module
        raise BfclDataError(f"agentic checking is unavailable: {exc}") from None

    def check_agentic(entry: BfclEntry, record: dict) -> Verdict:
        verdict = check_agentic_entry(entry.id, category, record.get("result"), entry.question,
                                      entry.answer or {}, style=style)
        return _with_official_line(verdict, entry, record)

    return check_agentic


def _with_official_line(verdict: Verdict, entry: BfclEntry, record: dict) -> Verdict:
    """Complete a multi-turn/agentic verdict's detail into the official score line: the
    error (a dict holding ``error_type``), the prompt, the checker's fields, then the
    record's ``inference_log``."""
    if verdict.valid:
        return verdict
    line = dict(verdict.detail)
    if "error" not in line:
        messages = list(verdict.errors)
        line = {"error": {"error_message": messages[0] if len(messages) == 1 else messages,
                          "error_type": verdict.error_type},
                "prompt": entry.question, **line}
    if "inference_log" not in line:
        line["inference_log"] = record.get("inference_log", "")
    return replace(verdict, detail=line)


def score_category(result_file: ResultFile, data: BfclData, *, underscore_to_dot: bool = False,
                   multi_turn: Optional[str] = None,
                   on_entry: Optional[Callable[[], None]] = None,
                   style: Optional[str] = None) -> tuple:
    """Check every record of one result file. Returns ``(CategoryScore, verdicts)``.

    ``on_entry`` is called once per checked entry (progress bars). ``style`` is the model
    handler's kind, ``"fc"`` or ``"prompting"`` (None: each result's own form).

    Example:
        >>> from ek_otel.bfcl.data import BfclData
        >>> rf = ResultFile("x", "m", "simple_python", ())
        >>> score_category(rf, BfclData("/nowhere"))
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: directory /nowhere: BFCL_v4_simple_python.json is missing
    """
    category = result_file.category
    if category not in ALL_SCORING:
        raise BfclDataError(f"{result_file.path}: unsupported BFCL category {category!r}")
    kind = checker_kind(category)
    if kind == "relevance":
        with paused_gc():
            return _score_relevance(result_file, data, on_entry, style)
    if kind == "ast":
        with paused_gc():
            return _score_entries(result_file, data, underscore_to_dot, multi_turn, on_entry,
                                  style)
    return _score_entries(result_file, data, underscore_to_dot, multi_turn, on_entry, style)


def _score_entries(result_file: ResultFile, data: BfclData, underscore_to_dot: bool,
                   multi_turn: Optional[str], on_entry: Optional[Callable[[], None]],
                   style: Optional[str]) -> tuple:
    category = result_file.category
    pairs = _pair(result_file, data.entries(category))
    check = _checker_for(category, underscore_to_dot=underscore_to_dot,
                         multi_turn=multi_turn, model=result_file.model, style=style,
                         exact_ints=result_file.long_digits)
    verdicts = []
    for entry, record in pairs:
        verdicts.append(check(entry, record))
        if on_entry is not None:
            on_entry()
    correct = sum(1 for v in verdicts if v.valid)
    mode = ""
    if is_multi_turn(category):
        from .multi_turn import default_mode

        mode = "ast" if (multi_turn or default_mode()) == "ast" else ""
    return (CategoryScore(result_file.model, category, correct, len(verdicts), mode),
            tuple(verdicts))


def _score_relevance(result_file: ResultFile, data: BfclData,
                     on_entry: Optional[Callable[[], None]], style: Optional[str]) -> tuple:
    """Relevance categories need a question only to report a failure: parse it then."""
    category = result_file.category
    lines = dict(data.question_lines(category))
    exact_ints = not data.vetted
    verdicts = []
    for record in result_file.records:
        line = lines.get(record["id"])
        if line is None:
            raise BfclDataError(f"{result_file.path}: id {record['id']!r} is not in the BFCL "
                                f"data for {category}")
        verdicts.append(relevance_verdict(
            record["id"], category, lambda line=line: parse_json(line, exact_ints=exact_ints),
            record.get("result"), style=style, question_line=line if data.vetted else None,
            exact_ints=result_file.long_digits))
        if on_entry is not None:
            on_entry()
    correct = sum(1 for v in verdicts if v.valid)
    return CategoryScore(result_file.model, category, correct, len(verdicts)), tuple(verdicts)


def model_settings(files: Sequence[ResultFile], data: BfclData, *,
                   underscore_to_dot: Optional[bool] = None,
                   style: Optional[str] = None) -> dict:
    """``{model: (style, underscore_to_dot)}``: how each model's results are decoded and
    checked, as the official runner would for that model.

    A model registered in the ``bfcl_eval`` registry that comes with ``data`` takes its
    ``underscore_to_dot`` from there, and its style from its handler and ``is_fc_model``
    (:class:`~ek_otel.bfcl.models.ModelTraits`); another model, or one whose handler has
    a decoder of its own, is function-calling when any of its results holds a call list,
    else prompting (``underscore_to_dot`` off when not registered). ``underscore_to_dot`` and ``style``,
    when given, override both for every model.

    Example:
        >>> rf = ResultFile("x", "mine", "irrelevance", ({"id": "irrelevance_0", "result": "no"},))
        >>> model_settings([rf], BfclData("/nowhere"))
        {'mine': ('prompting', False)}
        >>> model_settings([rf], BfclData("/nowhere"), underscore_to_dot=True, style="fc")
        {'mine': ('fc', True)}
    """
    results: dict = {}
    for result_file in files:
        depth = 0 if checker_kind(result_file.category) in ("ast", "relevance") else 2
        results.setdefault(result_file.model, []).append(
            style_of_results((r.get("result") for r in result_file.records), depth))
    registry = model_registry(data, results)  # not parsed when it cannot name these models
    settings = {}
    for model, styles in results.items():
        traits = lookup(registry, model)
        model_style = style or (traits and traits.style) or (
            "fc" if "fc" in styles else "prompting")
        model_u2d = underscore_to_dot if underscore_to_dot is not None else (
            traits.underscore_to_dot if traits else False)
        settings[model] = (model_style, model_u2d)
    return settings


def score_result_files(files: Sequence[ResultFile], data: BfclData, *,
                       underscore_to_dot: Optional[bool] = None,
                       multi_turn: Optional[str] = None,
                       on_entry: Optional[Callable[[], None]] = None,
                       style: Optional[str] = None) -> BfclRun:
    """Score already-read result files (see :func:`find_result_files`) against ``data``.

    Each model is decoded and checked with :func:`model_settings`.

    Example:
        >>> score_result_files([], BfclData("/nowhere")).scores
        ()
    """
    settings = model_settings(files, data, underscore_to_dot=underscore_to_dot, style=style)
    scores = []
    verdicts = {}
    single_turn_only = all(checker_kind(f.category) in ("ast", "relevance") for f in files)
    # single-turn scoring runs with the cyclic collector paused (see score_category); a run
    # of single-turn files only keeps it paused from the first file to the last
    with paused_gc() if single_turn_only else contextlib.nullcontext():
        for result_file in files:
            model_style, model_u2d = settings[result_file.model]
            score, file_verdicts = score_category(
                result_file, data, underscore_to_dot=model_u2d, multi_turn=multi_turn,
                on_entry=on_entry, style=model_style)
            scores.append(score)
            verdicts[(score.model, score.category)] = file_verdicts
    return BfclRun(tuple(scores), verdicts)


def run_bfcl(paths: Iterable[str], data: BfclData, *, underscore_to_dot: Optional[bool] = None,
             multi_turn: Optional[str] = None, style: Optional[str] = None) -> BfclRun:
    """Find and score every result file under ``paths`` against ``data``.

    Example:
        >>> run_bfcl([], BfclData("/nowhere")).scores
        ()
    """
    return score_result_files(find_result_files(paths), data, underscore_to_dot=underscore_to_dot,
                              multi_turn=multi_turn, style=style)
