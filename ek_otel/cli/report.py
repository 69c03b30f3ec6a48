"""``ek-otel report``: the corpus report over everything ``ek-otel serve`` has scored.

Example:
    >>> from click.testing import CliRunner
    >>> "--store" in CliRunner().invoke(report, ["--help"]).output
    True
"""

from __future__ import annotations

import os
from typing import Optional

import click

from ..errors import InputError
from ..serve.config import DEFAULT_STORE
from ._common import stderr_console, stdout_console, write_json, wrote
from ._html import check_html_options, html_options
from ._tables import print_run_tables

__all__ = ["report"]


@click.command("report")
@click.option("--store", default=DEFAULT_STORE, show_default=True,
              type=click.Path(dir_okay=False), help="The store of `ek-otel serve`.")
@click.option("--json", "json_out", metavar="OUT", help="Write the JSON report here ('-': stdout).")
@click.option("--gold", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Gold task file (default: the one the server was started with).")
@click.option("-k", "k", default=None, type=click.IntRange(min=1),
              help="k of pass@k and pass^k (default: the smallest repeated trial count).")
@html_options
@click.option("--wide", is_flag=True,
              help="Every column of the tables, values whole (default: fit 80 columns).")
def report(store: str, json_out: Optional[str], gold: Optional[str], k: Optional[int],
           html_out: Optional[str] = None, trace_url: Optional[str] = None,
           wide: bool = False) -> None:
    """Report on every run a server scored: each trace once, at its latest revision.

    The same report as `ek-otel score`: per task and per slice, pass^k when trials repeat,
    dollars per success. It reads the store while the server runs, or after.

    \b
    Example:
        ek-otel report --store ek-otel.db --json report.json
    """
    from ..serve.report import load_run

    if not os.path.exists(store):
        raise InputError("no such store (start `ek-otel serve --store` first)", path=store)
    check_html_options(html_out, trace_url)
    run = load_run(store, gold=gold, k=k)
    out = stderr_console() if json_out == "-" else stdout_console()
    print_run_tables(run, out, wide=wide, groups="line")
    if json_out is not None:
        write_json(run.to_dict(), json_out)
        if json_out != "-":
            wrote("the JSON report", json_out)
    if html_out is not None:
        from ..report.html import write_run_page

        write_run_page(run.to_dict(), html_out, source=store, gold_path=gold, trace_url=trace_url)
        wrote("the HTML page", html_out)
