"""Render reports as one self-contained HTML page (Jinja2, autoescaped; inline CSS and JS).

Every page is one file with no network access: the styles and the script are inlined, and
the data is embedded **once** as JSON in ``<script type="application/json">`` (serialised by
Jinja2's ``tojson``, which escapes ``<``, ``>``, ``&`` and ``'`` so no string can close the
element or open a comment). The server-side template writes the header and the totals; the
script builds the sortable, filterable, paginated tables and the episode details from the
embedded data with ``textContent``/``createElement`` only, never ``innerHTML``: every string
from a trace (tool names, argument values, explanations) is shown as text.

- :func:`render_run`: the page of one JSON report (``score --html``, ``report --html``, and
  ``GET /`` of ``ek-otel serve``);
- :func:`render_comparison`: the page of ``ek-otel compare``;
- :func:`render_bfcl`: the page of ``ek-otel bfcl --html`` (see :mod:`ek_otel.report.bfcl`).

Example:
    >>> from ek_otel.report.model import report_from_dict
    >>> page = render_run(report_from_dict({"aggregate": {"episodes": 0}, "per_task": {},
    ...     "episodes": [{"task_id": "</script><script>alert(1)</script>"}]}, "r.json"))
    >>> "<script>alert(1)" in page, page.count('<script type="application/json"')
    (False, 1)
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping, Sequence
from typing import Any, Optional
from urllib.parse import urlsplit

import jinja2

from .. import __version__
from ..core.text import utf8_safe
from ..errors import InputError
from ..ingest.semconv.nonruns import NOT_AN_AGENT_RUN
from .compare import Comparison, compare_tasks
from .model import RunReport
from .stats import STATISTICS, task_intervals

__all__ = ["validate_trace_url", "run_context", "render_run", "render_comparison",
           "render_bfcl", "check_writable", "write_run_page", "write_html", "TOTAL_RATES"]

#: The rates of the totals table, in order: (key in the report's aggregate, label).
TOTAL_RATES = (
    ("precision", "micro precision"),
    ("recall", "micro recall"),
    ("f1", "micro F1"),
    ("exact_match", "exact match"),
    ("success_rate", "success rate"),
)

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("ek_otel.report", "templates"),
    autoescape=True,  # every template, whatever its name: no HTML from data, ever
    undefined=jinja2.ChainableUndefined,  # older reports lack some keys: shown as "–"
    trim_blocks=True,
    lstrip_blocks=True,
)
# The embedded data keeps its key order (and 10,000 episodes need no sorting); NaN would
# make JSON.parse fail, so it is refused here rather than shipped.
_ENV.policies["json.dumps_kwargs"] = {"sort_keys": False, "allow_nan": False,
                                      "ensure_ascii": False}


def _rate(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}"


def _money(value: Any) -> str:
    if value is None:
        return "–"
    return f"${value:,.2f}" if value >= 100 else f"${value:.3g}"


def _count(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3f}"
    return f"{int(value):,}"


def _signed(value: Any) -> str:
    return "–" if value is None else f"{value:+.3f}"


def _defined(format_value):
    def wrapped(value: Any) -> str:
        return format_value(None if isinstance(value, jinja2.Undefined) else value)
    return wrapped


#: The figures that are null where undefined (no call predicted / expected): shown "n/a".
UNDEFINED_AS_NA = frozenset({"precision", "recall", "f1"})


def _figure(value: Any, key: str) -> str:
    """A rate of the totals: ``n/a`` for a precision, recall or F1 that is undefined (null),
    ``–`` for a figure the report lacks."""
    if value is None and key in UNDEFINED_AS_NA:
        return "n/a"
    return _defined(_rate)(value)


_ENV.filters.update(rate=_defined(_rate), money=_defined(_money), count=_defined(_count),
                    signed=_defined(_signed), figure=_figure)
_ENV.globals["ek_version"] = __version__
_ENV.globals["undefined_as_na"] = UNDEFINED_AS_NA


def validate_trace_url(template: Optional[str]) -> Optional[str]:
    """Check a ``--trace-url`` template: http(s), with exactly one ``{trace_id}``.

    Raises:
        InputError: any other scheme, a missing or repeated placeholder, or other braces.

    Example:
        >>> validate_trace_url("https://jaeger.example/trace/{trace_id}")
        'https://jaeger.example/trace/{trace_id}'
        >>> validate_trace_url("javascript:alert({trace_id})")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --trace-url must be an http:// or https:// URL, got 'javascript:alert({trace_id})'
    """
    if template is None:
        return None
    parts = urlsplit(template.replace("{trace_id}", "x"))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--trace-url must be an http:// or https:// URL, got {template!r:.200}")
    if template.count("{trace_id}") != 1:
        raise InputError("--trace-url must hold exactly one {trace_id} placeholder, got "
                         f"{template!r:.200}")
    rest = template.replace("{trace_id}", "")
    if "{" in rest or "}" in rest:
        raise InputError(f"--trace-url holds braces other than {{trace_id}}: {template!r:.200}")
    return template


def _intervals(tasks: Sequence[Any]) -> dict:
    counts = [t.counts for t in tasks]
    return {name: iv.to_dict() for name, iv in task_intervals(counts, STATISTICS).items()}


def _comparison_dict(comparison: Comparison) -> dict:
    out = comparison.to_dict()
    return out


def _group_comparisons(report: RunReport) -> list:
    """The first provenance group against each other one, on the tasks they share."""
    if len(report.groups) < 2:
        return []
    base = report.groups[0]
    slices = {t.task_id: t.slice for t in report.tasks}
    out = []
    for other in report.groups[1:]:
        comparison = compare_tasks({t.task_id: t.counts for t in base.tasks},
                                   {t.task_id: t.counts for t in other.tasks}, slices=slices,
                                   base_label=base.label, candidate_label=other.label)
        out.append(_comparison_dict(comparison))
    return out


def _task_rows(tasks: Sequence[Any]) -> list:
    return [dict(t.figures, task_id=t.task_id, passed=t.counts.passed, verdict=t.counts.verdict)
            for t in tasks]


def _headline(data: Mapping[str, Any], tasks: Sequence[Any]) -> dict:
    """The report's ``headline`` (an older report's: made from its tasks)."""
    from ..core.verdicts import headline_of

    given = data.get("headline")
    if isinstance(given, Mapping) and given.get("text"):
        return dict(given)
    return headline_of((t.counts.episodes, t.counts.successes) for t in tasks).to_dict()


def slice_rows(tasks: Sequence[Any]) -> list:
    """Per-slice figures summed from task views (micro, as the report makes them), for
    the runs of one provenance group (the report's ``per_slice`` pools every run).

    Example:
        >>> from ek_otel.report.model import TaskView
        >>> from ek_otel.report.stats import TaskCounts
        >>> rows = slice_rows([TaskView("a", "s", TaskCounts(1, 1, 1, 1.0), {}),
        ...                    TaskView("b", "s", TaskCounts(1, 0, 0, 0.0, 1.0, 1.0), {}),
        ...                    TaskView("c", None, TaskCounts(1, 1, 1, 1.0), {})])
        >>> [(r["slice"], r["episodes"], r["f1"], r["success_rate"]) for r in rows]
        [('s', 2, 0.5, 0.5)]
    """
    from ..core.fields import defined_precision_recall_f1

    by_slice: dict = {}
    for task in tasks:
        if task.slice is not None:
            by_slice.setdefault(task.slice, []).append(task.counts)
    rows = []
    for name in sorted(by_slice):
        counts = by_slice[name]
        n = sum(c.episodes for c in counts)
        precision, recall, f1 = defined_precision_recall_f1(sum(c.tp for c in counts),
                                                            sum(c.fp for c in counts),
                                                            sum(c.fn for c in counts))
        rows.append({"slice": name, "episodes": n, "successes": sum(c.successes for c in counts),
                     "precision": precision, "recall": recall, "f1": f1,
                     "exact_match": sum(c.exact for c in counts) / n if n else None,
                     "success_rate": sum(c.successes for c in counts) / n if n else None})
    return rows


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _traces(data: Mapping[str, Any]) -> int:
    ids = {e.get("trace_id") for e in data.get("episodes") or () if isinstance(e, Mapping)}
    ids |= {u.get("trace_id") for u in data.get("unmatched") or () if isinstance(u, Mapping)}
    ids.discard(None)
    ids.discard("")
    return len(ids)


#: Episode keys the page does without (derived, or shown per task): the data is smaller.
_EPISODE_KEYS_LEFT_OUT = frozenset({"tp", "fp", "fn", "precision", "recall", "label"})
#: The order of an episode's ``cost`` when the page stores it as an array.
COST_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens",
               "retries", "latency_s")


def page_episodes(episodes: Sequence[Any]) -> tuple:
    """``(episodes, gold_calls)``: the episodes as the page embeds them, compacted.

    The data is embedded once and must stay small at 10,000 episodes: each gold call is
    stored once in ``gold_calls`` and the pairing refers to it by index; ``cost`` becomes
    an array in :data:`COST_FIELDS` order; ``missing_calls``/``spurious_calls`` are left
    out when the pairing holds them, and so are the keys of :data:`_EPISODE_KEYS_LEFT_OUT`.

    Example:
        >>> gold = {"tool": "f", "args": {"x": {"any_of": [1]}}}
        >>> eps, golds = page_episodes([{"f1": 1.0, "tp": 1.0, "cost": {"input_tokens": 5},
        ...     "calls": [{"got": {"tool": "f", "args": {"x": 1}}, "gold": gold}]}] * 2)
        >>> eps[1], golds
        ({'f1': 1.0, 'cost': [5, None, None, None, None, None], 'calls': [{'got': {'tool': 'f', 'args': {'x': 1}}, 'gold': 0}]}, [{'tool': 'f', 'args': {'x': {'any_of': [1]}}}])
    """
    import json

    golds: list = []
    index: dict = {}
    out = []
    for episode in episodes:
        if not isinstance(episode, Mapping):
            continue
        has_calls = isinstance(episode.get("calls"), list)
        compact = {}
        for key, value in episode.items():
            if key in _EPISODE_KEYS_LEFT_OUT or (
                    has_calls and key in ("missing_calls", "spurious_calls")):
                continue
            if key == "cost" and isinstance(value, Mapping):
                value = [value.get(name) for name in COST_FIELDS]
            elif key == "calls" and has_calls:
                rows = []
                for row in value:
                    gold = row.get("gold") if isinstance(row, Mapping) else None
                    if gold is not None:
                        key_text = json.dumps(gold, sort_keys=True)
                        if key_text not in index:
                            index[key_text] = len(golds)
                            golds.append(gold)
                        row = dict(row, gold=index[key_text])
                    rows.append(row)
                value = rows
            compact[key] = value
        out.append(compact)
    return out, golds


def run_context(report: RunReport, *, trace_url: Optional[str] = None,
                gold_path: Optional[str] = None, title: Optional[str] = None,
                generated_at: Optional[str] = None, refresh_seconds: Optional[int] = None) -> dict:
    """The template context of :func:`render_run` (the figures the page shows).

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> ctx = run_context(report_from_dict({"aggregate": {"episodes": 0}, "per_task": {}},
        ...                   "r.json"), generated_at="now")
        >>> ctx["intervals"]["success_rate"]["reason"], ctx["headline"]["text"]
        ('no trials', '0 of 0 runs passed; tasks: 0 pass, 0 flaky, 0 fail')
    """
    data = report.data
    aggregate = data.get("aggregate") or {}
    groups = [{"label": g.label, "key": list(g.key), "aggregate": g.aggregate,
               "intervals": _intervals(g.tasks), "headline": _headline({}, g.tasks)}
              for g in report.groups]
    comparisons = _group_comparisons(report)
    episodes, gold_calls = page_episodes(data.get("episodes") or ())
    page = {
        "kind": "run",
        "k": data.get("k", aggregate.get("k")),
        "trace_url": validate_trace_url(trace_url),
        "tasks": _task_rows(report.tasks),
        "slices": [dict(v, slice=k) for k, v in (data.get("per_slice") or {}).items()],
        "episodes": episodes,
        "gold_calls": gold_calls,
        "cost_fields": list(COST_FIELDS),
        "groups": [g["label"] for g in groups],
        "runs": [{"label": g.label, "k": g.aggregate.get("k"), "tasks": _task_rows(g.tasks),
                  "slices": slice_rows(g.tasks)}
                 for g in report.groups],
        "comparisons": comparisons,
    }
    return {
        "title": title or "ek-otel report",
        "source": report.source,
        "gold_path": gold_path,
        "gold_sha256": report.gold_sha256,
        "evaluator_version": report.provenance.get("evaluator_version"),
        "matcher": dict(report.matcher),
        "generated_at": generated_at or _now(),
        "aggregate": aggregate,
        "headline": _headline(data, report.tasks),
        "exact_is_success": aggregate.get("exact_match") == aggregate.get("success_rate") and all(
            t.counts.exact == t.counts.successes for t in report.tasks),
        "traces": _traces(data),
        "n_unmatched": len(data.get("unmatched") or ()),
        "n_not_runs": sum(1 for u in data.get("unmatched") or ()
                          if isinstance(u, Mapping)
                          and str(u.get("reason") or "").startswith(NOT_AN_AGENT_RUN)),
        "unmatched": list(data.get("unmatched") or ())[:100],
        "bad_input": data.get("bad_input"),
        "intervals": _intervals(report.tasks),
        "rates": TOTAL_RATES,
        "groups": groups,
        "comparisons": comparisons,
        "refresh_seconds": refresh_seconds,
        "page": page,
    }


def render_run(report: RunReport, **options: Any) -> str:
    """The HTML page of one JSON report (options: see :func:`run_context`).

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> page = render_run(report_from_dict({"aggregate": {"f1": 0.5}, "per_task": {}}, "r"))
        >>> '<div class="value">0.500</div>' in page
        True
    """
    return _ENV.get_template("run.html.j2").render(run_context(report, **options))


def render_comparison(comparison: Comparison, base: RunReport, candidate: RunReport, *,
                      generated_at: Optional[str] = None) -> str:
    """The HTML page of ``ek-otel compare``.

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> r = report_from_dict({"aggregate": {}, "per_task": {}}, "a.json")
        >>> "no task" in render_comparison(compare_tasks({}, {}), r, r, generated_at="now")
        True
    """
    data = _comparison_dict(comparison)
    return _ENV.get_template("compare.html.j2").render(
        title="ek-otel compare", comparison=data, base=base, candidate=candidate,
        generated_at=generated_at or _now(), matcher=dict(base.matcher),
        gold_sha256=base.gold_sha256, page={"kind": "compare", "comparison": data},
        refresh_seconds=None,
    )


def render_bfcl(view: Mapping[str, Any], *, generated_at: Optional[str] = None) -> str:
    """The HTML page of ``ek-otel bfcl --html`` from :func:`ek_otel.report.bfcl.bfcl_view`.

    Example:
        >>> from ek_otel.bfcl.runner import BfclRun
        >>> from ek_otel.report.bfcl import bfcl_view
        >>> "0 failing entries" in render_bfcl(bfcl_view(BfclRun()), generated_at="now")
        True
    """
    return _ENV.get_template("bfcl.html.j2").render(
        title="ek-otel BFCL report", view=view, generated_at=generated_at or _now(),
        page={"kind": "bfcl", "entries": view.get("failing", []),
              "categories": list(dict.fromkeys(c["category"] for c in view.get("categories", [])))},
        refresh_seconds=None,
    )


def check_writable(path: str) -> None:
    """Fail before any work when the page cannot be written (an existing file is kept).

    Raises:
        InputError: naming the file.

    Example:
        >>> check_writable("/no/such/dir/r.html")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/r.html: cannot write the HTML report: No such file or directory
    """
    try:
        open(path, "a", encoding="utf-8").close()
    except OSError as exc:
        raise InputError(f"cannot write the HTML report: {exc.strerror or exc}", path=path) from None


def write_run_page(data: Mapping[str, Any], path: str, *, source: str, **options: Any) -> None:
    """Render the JSON report ``data`` (what ``--json`` writes) and write the page to ``path``.

    ``options`` are those of :func:`run_context` (``trace_url``, ``gold_path``, ...).

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "r.html")
        >>> write_run_page({"aggregate": {}, "per_task": {}}, p, source="x")
        >>> open(p).read(15)
        '<!doctype html>'
    """
    from .model import report_from_dict

    write_html(render_run(report_from_dict(data, source), **options), path)


def write_html(text: str, path: str) -> None:
    """Write a page (UTF-8), replacing the file only once it is complete.

    Raises:
        InputError: the file cannot be written (names it).

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "r.html"); write_html("<p>x</p>", p)
        >>> open(p).read()
        '<p>x</p>'
    """
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(utf8_safe(text))  # a lone surrogate from any source: U+FFFD
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError(f"cannot write the HTML report: {exc.strerror or exc}", path=path) from None
