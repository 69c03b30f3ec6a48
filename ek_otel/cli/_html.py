"""The ``--html`` and ``--trace-url`` options of ``score``, ``report`` and ``bfcl``.

Example:
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @html_options
    ... def show(html_out, trace_url): click.echo(f"{html_out} {trace_url}")
    >>> CliRunner().invoke(show, ["--html", "r.html"]).output
    'r.html None\\n'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import click

__all__ = ["html_options", "check_html_options"]


def html_options(command: Callable) -> Callable:
    """Add ``--html OUT.html`` (``html_out``) and ``--trace-url TEMPLATE`` (``trace_url``)."""
    command = click.option(
        "--trace-url", "trace_url", metavar="TEMPLATE",
        help="Link each trace id in the page, e.g. 'https://jaeger.example/trace/{trace_id}' "
             "(http or https, one {trace_id}).")(command)
    return click.option(
        "--html", "html_out", metavar="OUT.html", type=click.Path(dir_okay=False),
        help="Write the report as one self-contained HTML page.")(command)


def check_html_options(html_out: Optional[str], trace_url: Optional[str]) -> None:
    """Fail before any work on an unwritable page or a bad ``--trace-url`` (one line, exit 2).

    Example:
        >>> check_html_options(None, "ftp://x/{trace_id}")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --trace-url must be an http:// or https:// URL, got 'ftp://x/{trace_id}'
    """
    if html_out is None and trace_url is None:
        return  # the page's modules (jinja2, numpy) cost time to import: only for a page
    from ..report.html import check_writable
    from ..report.page_data import validate_trace_url

    validate_trace_url(trace_url)
    if html_out is not None:
        check_writable(html_out)
