"""``ek-otel report``: the corpus report over everything ``ek-otel serve`` has scored (one
store, or the stores of several instances as one corpus).

Example:
    >>> from click.testing import CliRunner
    >>> "--store" in CliRunner().invoke(report, ["--help"]).output
    True
"""

from __future__ import annotations

from typing import Optional, Sequence

import click

from ..serve.config import DEFAULT_STORE
from ._common import stderr_console, stdout_console, write_json, wrote
from ._html import check_html_options, html_options
from ._gates import check_gate_options, gate_options, write_run_gates
from ._tables import cost_warnings, print_run_tables

__all__ = ["report"]


@click.command("report")
@click.option("--store", "stores", multiple=True, metavar="FILE|DIR",
              help="The store of `ek-otel serve` (repeatable: several instances' stores, or a "
                   f"directory of *.db stores, as one corpus).  [default: {DEFAULT_STORE}]")
@click.option("--json", "json_out", metavar="OUT", help="Write the JSON report here ('-': stdout).")
@click.option("--gold", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Gold task file (default: the one the server was started with).")
@click.option("-k", "k", default=None, type=click.IntRange(min=1),
              help="k of pass@k and pass^k (default: the smallest repeated trial count).")
@html_options
@gate_options
@click.option("--wide", is_flag=True,
              help="Every column of the tables, values whole (default: fit 80 columns).")
def report(stores: Sequence[str], json_out: Optional[str], gold: Optional[str], k: Optional[int],
           html_out: Optional[str] = None, trace_url: Optional[str] = None,
           junit_out: Optional[str] = None, markdown_out: Optional[str] = None,
           wide: bool = False) -> None:
    """Report on every run a server scored: each trace once, at its latest revision.

    The same report as `ek-otel score`: per task and per slice, pass^k when trials repeat,
    dollars per success. It reads the store while the server runs, or after. Several
    stores (instances behind a load-balancing Collector) make one corpus: the report of
    one instance that received everything.

    \b
    Example:
        ek-otel report --store ek-otel.db --json report.json
        ek-otel report --store ek1.db --store ek2.db --store ek3.db
    """
    from ..serve.report import load_run, store_paths

    paths = store_paths(stores or (DEFAULT_STORE,))
    check_html_options(html_out, trace_url)
    check_gate_options(junit_out, markdown_out)
    err = stderr_console()
    run = load_run(paths, gold=gold, k=k, warn=lambda line: err.print(
        f"warning: {line}", markup=False, highlight=False, soft_wrap=True))
    out = err if json_out == "-" else stdout_console()
    print_run_tables(run, out, wide=wide, groups="line")
    for line in cost_warnings(run.report, None):  # runs whose cost is unknown (no usage)
        click.echo(f"ek-otel: warning: {line}", err=True)
    if json_out is not None:
        write_json(run.to_dict(), json_out)
        if json_out != "-":
            wrote("the JSON report", json_out)
    if html_out is not None:
        from ..report.html import write_run_page

        write_run_page(run.to_dict(), html_out, source=", ".join(paths), gold_path=gold,
                       trace_url=trace_url)
        wrote("the HTML page", html_out)
    if junit_out is not None or markdown_out is not None:
        write_run_gates(run.to_dict(), ", ".join(paths), junit_out, markdown_out, command="report")
