"""``ek-otel report``: the corpus report over everything ``ek-otel serve`` has scored.

Example:
    >>> from click.testing import CliRunner
    >>> "--store" in CliRunner().invoke(report, ["--help"]).output
    True
"""

from __future__ import annotations

import json
import os

import click

from ..errors import InputError
from ..serve.config import DEFAULT_STORE

__all__ = ["report"]


@click.command("report")
@click.option("--store", default=DEFAULT_STORE, show_default=True,
              type=click.Path(dir_okay=False), help="The store of `ek-otel serve`.")
@click.option("--gold", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Gold task file (default: the one the server was started with).")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False),
              help="Also write the report as JSON to this file ('-' for stdout).")
@click.option("-k", "k", default=None, type=int, help="k of pass@k and pass^k.")
def report(store, gold, json_out, k) -> None:
    """Report on every run the server scored: the latest revision of each trace, once.

    The same report as `ek-otel score`: per task and per slice, pass@k and pass^k when
    trials repeat, dollars per success.

    Example:

        ek-otel report --store ek-otel.db --json report.json
    """
    from ..serve.report import load_scored

    if not os.path.exists(store):
        raise InputError("no such store", path=store)
    scored = load_scored(store, gold=gold)
    result = scored.evaluate(k=k)
    data = result.to_dict()
    data["store"] = {"traces": scored.n_traces, "unmatched": scored.unmatched_details}
    if json_out == "-":
        click.echo(json.dumps(data, indent=2, default=str))
        return
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, default=str)
    _render(result, scored)


def _render(result, scored) -> None:
    try:  # the same rendering as `ek-otel score`, when available
        from .score import render_report
    except ImportError:
        render_report = None
    if render_report is not None:
        render_report(result)
    else:
        click.echo(json.dumps(result.to_dict(), indent=2, default=str))
    click.echo(f"{scored.n_traces} traces scored, {len(scored.unmatched_details)} unmatched",
               err=True)
