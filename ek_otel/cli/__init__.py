"""The ``ek-otel`` command line: the only place that prints or exits.

Each command lives in its own module of this package and is registered in
``COMMAND_MODULES``. Library errors (:class:`~ek_otel.errors.EkOtelError`) become one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from ..errors import EkOtelError

# Module name -> attribute holding the click command or group. Add one line per command.
COMMAND_MODULES: dict[str, str] = {
    "gold": "gold",
    "bfcl": "bfcl",
    # A module that only adds subcommands to an existing group (e.g. `gold from-bfcl`) does
    # `from ek_otel.cli.gold import gold` + `@gold.command("from-bfcl")`, and is listed AFTER
    # that group, mapped to the same attribute: "gold_bfcl": "gold". Importing it registers
    # the subcommand; adding the same group twice is harmless.
    "episodes": "episodes",
    "score": "score",
    "serve": "serve",
    "report": "report",
    "compare": "compare",
}


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except EkOtelError as exc:
            click.echo(f"ek-otel: error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ek-otel")
def cli() -> None:
    """Score AI agents from their OpenTelemetry traces."""


def _register() -> None:
    for module_name, attr in COMMAND_MODULES.items():
        module = importlib.import_module(f"{__name__}.{module_name}")
        cli.add_command(getattr(module, attr))


_register()


def main(argv: list[str] | None = None) -> None:
    """Run the CLI (the ``ek-otel`` console script)."""
    cli.main(args=argv, prog_name="ek-otel")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
