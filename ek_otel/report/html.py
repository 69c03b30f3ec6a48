"""Render reports as one self-contained HTML page (Jinja2, autoescaped; inline CSS and JS).

What a page shows is built by :mod:`ek_otel.report.page_data`; this module renders it and
writes the file.

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

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

import jinja2
import markupsafe

from .. import __version__
from ..core.text import utf8_safe
from ..errors import InputError
from .model import RunReport
from .page_data import compare_page, now_text, run_context

if TYPE_CHECKING:  # typing only: compare and stats (numpy) load when a page needs them
    from .compare import Comparison

__all__ = ["render_run", "render_comparison", "render_bfcl", "check_writable", "write_run_page",
           "write_html"]

#: What the page writes for a figure that is undefined (``null`` in the report).
NOT_AVAILABLE = "n/a"
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
    return NOT_AVAILABLE if value is None else f"{value:.3f}"


def _money(value: Any) -> str:
    if value is None:
        return NOT_AVAILABLE
    return f"${value:,.2f}" if value >= 100 else f"${value:.3g}"


def _count(value: Any) -> str:
    if value is None:
        return NOT_AVAILABLE
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3f}"
    return f"{int(value):,}"


def _signed(value: Any) -> str:
    return NOT_AVAILABLE if value is None else f"{value:+.3f}"


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


class _Assets:
    """The page's own stylesheet and script, inlined as they are (read once, on first use:
    not templates, so Jinja2 never lexes 50 kB of JavaScript)."""

    def __init__(self) -> None:
        self._texts: dict = {}

    def _read(self, name: str) -> Any:
        text = self._texts.get(name)
        if text is None:
            from importlib.resources import files

            source = files("ek_otel.report").joinpath("templates", name).read_text(encoding="utf-8")
            text = self._texts[name] = markupsafe.Markup(source)  # ours, never data
        return text

    @property
    def style(self) -> Any:
        return self._read("report.css")

    @property
    def script(self) -> Any:
        return self._read("report.js")


_ENV.globals["assets"] = _Assets()


def render_run(report: RunReport, **options: Any) -> str:
    """The HTML page of one JSON report (options: see :func:`run_context`).

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> page = render_run(report_from_dict({"aggregate": {"f1": 0.5}, "per_task": {}}, "r"))
        >>> '<div class="value">0.500</div>' in page
        True
    """
    return _ENV.get_template("run.html.j2").render(run_context(report, **options))


def render_comparison(comparison: "Comparison", base: RunReport, candidate: RunReport, *,
                      generated_at: Optional[str] = None) -> str:
    """The HTML page of ``ek-otel compare``.

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> from ek_otel.report.compare import compare_tasks
        >>> r = report_from_dict({"aggregate": {}, "per_task": {}}, "a.json")
        >>> "no task" in render_comparison(compare_tasks({}, {}), r, r, generated_at="now")
        True
    """
    data = comparison.to_dict()
    page = compare_page(data, base, candidate)
    return _ENV.get_template("compare.html.j2").render(
        title="ek-otel compare", comparison=data, base=base, candidate=candidate,
        generated_at=generated_at or now_text(), matcher=dict(base.matcher),
        gold_sha256=base.gold_sha256, page=page, overall=page["overall"],
        slice_changes=page["slices"], refresh_seconds=None,
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
        title="ek-otel BFCL report", view=view, generated_at=generated_at or now_text(),
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
