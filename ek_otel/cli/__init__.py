"""The ``ek-otel`` command line: the only place that prints or exits.

Each command lives in its own module of this package and is listed in :data:`COMMANDS`;
a module is imported only when its command runs (or ``--help`` lists the commands), so
``ek-otel --version`` or ``ek-otel bfcl --help`` do not pay for the OpenTelemetry SDK or the
receivers. A subcommand that lives in another command's module (``gold from-bfcl``, in
``bfcl.py`` beside the other BFCL commands) is listed in :data:`SUBCOMMANDS` and added to
its group when that group is loaded; no command module imports another.

Library errors (:class:`~ek_otel.errors.EkOtelError`) become one line on stderr and exit
code 2, never a traceback; :func:`error_line` words them in terms of the command's flags.

Example:
    >>> sorted(COMMANDS)
    ['bfcl', 'compare', 'doctor', 'episodes', 'gold', 'report', 'score', 'serve']
"""

from __future__ import annotations

import importlib
import sys
from typing import Optional

import click

from .._version import __version__
from ..errors import (BfclDataNotFound, ConfigError, EkOtelError, GoldFileError,
                      IgnoredGoldCallError, UnknownTaskError)

__all__ = ["COMMANDS", "SUBCOMMANDS", "cli", "main", "own_process", "error_line"]

#: Command name -> ``"module:attribute"`` of the click command or group (in this package).
COMMANDS: dict = {
    "gold": "gold:gold",
    "bfcl": "bfcl:bfcl",
    "episodes": "episodes:episodes",
    "doctor": "doctor:doctor",
    "score": "score:score",
    "serve": "serve:serve",
    "report": "report:report",
    "compare": "compare:compare",
}
#: Group name -> {subcommand name -> ``"module:attribute"``}: subcommands defined outside
#: their group's module, added when the group is loaded.
SUBCOMMANDS: dict = {
    "gold": {"from-bfcl": "bfcl:from_bfcl", "from-traces": "gold_traces:from_traces_command",
             "import": "gold_formats:import_command", "export": "gold_formats:export_command"},
}


def _load(target: str) -> click.Command:
    module_name, attr = target.split(":")
    return getattr(importlib.import_module(f"{__name__}.{module_name}"), attr)


#: Setting (a ``ConfigError`` field, e.g. of ``ServeConfig``) -> the flag that sets it.
FLAGS: dict = {
    "gold": "--gold", "store": "--store", "http": "--http", "grpc": "--grpc",
    "emit_protocol": "--emit-protocol", "emit_endpoint": "--emit-endpoint",
    "tls_cert": "--tls-cert", "tls_key": "--tls-key", "grace_s": "--grace",
    "max_wait_s": "--max-wait", "export_give_up_s": "--export-give-up", "max_open_traces": "--max-open-traces",
    "max_pending_bytes": "--max-pending-mib", "scorer_processes": "--scorers",
    "synchronous": "--synchronous", "phoenix_url": "--phoenix-url",
    "mlflow_tracking_uri": "--mlflow-tracking-uri", "trace_url": "--trace-url",
}


def error_line(exc: EkOtelError) -> str:
    """The one line the CLI prints for a library error (library errors name parameters, the
    CLI names its flags).

    Example:
        >>> error_line(UnknownTaskError("g.jsonl", "t9"))
        "g.jsonl: --task 't9' is not a task of this gold file"
        >>> error_line(IgnoredGoldCallError("g.jsonl", "t1", "think", "think"))
        "g.jsonl: task 't1' expects a call to 'think', which --ignore-tool 'think' removes from every run"
        >>> error_line(ConfigError("{tls_cert} and {tls_key} go together", fields=("tls_cert", "tls_key")))
        '--tls-cert and --tls-key go together'
    """
    if isinstance(exc, IgnoredGoldCallError):
        return str(IgnoredGoldCallError(exc.path, exc.task_id, exc.tool, exc.pattern,
                                        option="--ignore-tool"))
    if isinstance(exc, UnknownTaskError):
        exc = GoldFileError(exc.path, exc.line, f"--task {exc.task_id!r} is not a task of this gold file")
    elif isinstance(exc, ConfigError):
        return exc.describe(FLAGS)
    elif isinstance(exc, BfclDataNotFound):
        where = f"{exc.path}: " if exc.path else ""
        return (f"{where}no BFCL data found: pass --data DIR (holding BFCL_v4_*.json and "
                f"possible_answer/) or --data PATH/TO/bfcl_eval-*.whl, or install it with "
                f"{exc.INSTALL}")
    return str(exc)


class _Group(click.Group):
    """The top-level group: commands imported on first use, errors turned into one line."""

    def list_commands(self, ctx: click.Context) -> list:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        target = COMMANDS.get(name)
        if target is None:
            return None
        command = _load(target)
        if isinstance(command, click.Group):
            for sub_name, sub_target in SUBCOMMANDS.get(name, {}).items():
                if sub_name not in command.commands:
                    command.add_command(_load(sub_target), sub_name)
        return command

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except EkOtelError as exc:
            click.echo(f"ek-otel: error: {error_line(exc)}", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ek-otel")
def cli() -> None:
    """Score AI agents from their OpenTelemetry traces."""


_OWN_PROCESS = False


def own_process() -> bool:
    """Whether the command runs as the ``ek-otel`` process itself (through :func:`main`),
    which ends with it, rather than inside another program (click's test runner, a
    benchmark). A command may then leave process-wide state for the exit, such as the
    garbage collector off (``ek-otel bfcl``).

    Example:
        >>> own_process()
        False
    """
    return _OWN_PROCESS


def main(argv: list[str] | None = None) -> None:
    """Run the CLI (the ``ek-otel`` console script)."""
    global _OWN_PROCESS
    _OWN_PROCESS = True
    cli.main(args=argv, prog_name="ek-otel")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
