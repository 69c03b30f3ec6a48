"""Helpers every CLI command may share: consoles, progress bars, error lines.

- :func:`stdout_console` / :func:`stderr_console`: rich consoles (tables go to stdout,
  progress and diagnostics to stderr);
- :func:`progress` / :func:`track`: rich progress bars on stderr that switch themselves off
  when stderr is not a terminal (pipes, CI, tests), so output stays clean;
- :func:`echo_errors`: print each error as one ``FILE:LINE: message`` line on stderr;
- :func:`nothing_read_error`: the one-line error of a command that could read nothing at all;
- :func:`write_json`: write a JSON report to a file, or to stdout for ``-``;
- :func:`reading_options`: ``--group-by`` and ``--task-id-key`` of ``episodes`` and ``doctor``;
- :func:`scoring_options` / :func:`emit_options`: the option bundles ``score`` and ``serve``
  share (``--task``, ``--level``, ... and ``--emit-*``), defined once with their help and
  validation; :func:`parse_headers` reads ``--emit-header``.

Example:
    >>> with progress("reading", total=3) as advance:
    ...     for _ in range(3):
    ...         advance()
    >>> list(track([1, 2], "scoring"))
    [1, 2]
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar

import click

from ..errors import InputError

if TYPE_CHECKING:  # rich is imported by the functions that draw (help screens need none of it)
    from rich.console import Console

__all__ = ["stdout_console", "stderr_console", "is_interactive", "progress", "track", "echo_errors",
           "nothing_read_error", "write_json", "scoring_options", "check_mode_overrides", "reading_options", "emit_options",
           "parse_headers", "parse_signals", "phoenix_api_key"]

T = TypeVar("T")


def stdout_console() -> Console:
    """A rich console on the current stdout (tables, reports).

    Created per call so that click's CliRunner, which swaps ``sys.stdout``, captures it.

    Example:
        >>> stdout_console().stderr
        False
    """
    from rich.console import Console

    return Console(file=sys.stdout, soft_wrap=False)


def stderr_console() -> Console:
    """A rich console on the current stderr (progress, diagnostics).

    Example:
        >>> stderr_console().stderr
        True
    """
    from rich.console import Console

    return Console(file=sys.stderr, stderr=True)


def is_interactive() -> bool:
    """True when stderr is a terminal, i.e. when a progress bar is worth drawing.

    Example:
        >>> import contextlib, io
        >>> with contextlib.redirect_stderr(io.StringIO()):
        ...     is_interactive()
        False
    """
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress(description: str, total: Optional[float] = None, *, enabled: Optional[bool] = None) -> Iterator[Callable[..., None]]:
    """A progress bar on stderr; yields ``advance(n=1)``. Off when stderr is not a terminal.

    Args:
        description: The label shown left of the bar.
        total: The number of units, or None for an indeterminate bar.
        enabled: Force the bar on or off; None means "only on a terminal".

    Example:
        >>> with progress("decoding", total=2, enabled=False) as advance:
        ...     advance(); advance()
    """
    show = is_interactive() if enabled is None else enabled
    if not show:  # no bar: counting would cost a lock and a clock read per unit of work
        yield _no_progress
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(),
        transient=True,
        disable=not show,
    )
    with bar:
        task = bar.add_task(description, total=total)
        pending = [0.0, time.monotonic()]

        def advance(n: float = 1) -> None:
            # Passed to the bar at most every 50 ms (it redraws 10 times a second).
            pending[0] += n
            now = time.monotonic()
            if now - pending[1] >= 0.05:
                bar.advance(task, pending[0])
                pending[0], pending[1] = 0.0, now

        try:
            yield advance
        finally:
            if pending[0]:
                bar.advance(task, pending[0])


def _no_progress(n: float = 1) -> None:
    """The ``advance`` of a progress bar that is not shown."""


def track(items: Iterable[T], description: str, total: Optional[float] = None) -> Iterator[T]:
    """Iterate over ``items`` with a progress bar on stderr (off when not a terminal).

    Example:
        >>> sum(track(range(4), "summing"))
        6
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(description, total=total) as advance:
        for item in items:
            yield item
            advance()


def echo_errors(errors: Iterable[object]) -> int:
    """Print each error as one line on stderr (its ``str`` is ``FILE:LINE: message``); returns the count.

    Example:
        >>> echo_errors([])
        0
    """
    count = 0
    for error in errors:
        click.echo(str(error), err=True)
        count += 1
    return count


def nothing_read_error(report: Any, paths: Optional[Sequence[str]] = None) -> Optional[InputError]:
    """The error to raise when the input gave no episode: the caller exits 2 with this one
    line (nothing is ever scored or shown as nothing).

    A dump whose every record was unreadable names its first bad record. With ``paths``, a
    dump that holds no span at all (an empty file) is an error too, naming the paths;
    without, it is not (None).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport, INVALID_JSON
        >>> report = BadInputReport()
        >>> nothing_read_error(report) is None
        True
        >>> print(nothing_read_error(report, ["empty.jsonl"]))
        empty.jsonl: no span of an agent run in the input (an empty dump, or only scores written by ek-otel)
        >>> report.add(INVALID_JSON, "expected value")
        >>> print(nothing_read_error(report))
        no trace could be read (1 bad input records; first: invalid JSON: expected value)
    """
    if report.ok:
        if paths is None:
            return None
        return InputError("no span of an agent run in the input (an empty dump, or only scores "
                          "written by ek-otel)", path=", ".join(paths))
    first = report.cases[0] if report.cases else report.summary()
    return InputError(f"no trace could be read ({report.total} bad input records; first: {first})")


def wrote(what: str, path: str) -> None:
    """Name a file a command wrote, on stderr (stdout keeps the tables or the JSON).

    Example:
        >>> from click.testing import CliRunner
        >>> import click
        >>> CliRunner().invoke(click.command()(lambda: wrote("the HTML page", "r.html"))).stderr
        'ek-otel: wrote the HTML page to r.html\\n'
    """
    click.echo(f"ek-otel: wrote {what} to {path}", err=True)


def write_json(data: Any, out: str) -> None:
    """Write ``data`` as indented JSON to the file ``out``, or to stdout when ``out`` is ``-``
    (streamed in chunks: :mod:`ek_otel.scoring.report_json`).

    Raises:
        InputError: the file cannot be written (one line, exit 2).

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "r.json")
        >>> write_json({"f1": 1.0, "episodes": [{"é": []}]}, p)
        >>> open(p, encoding="utf-8").read() == json.dumps(
        ...     {"f1": 1.0, "episodes": [{"é": []}]}, indent=2, ensure_ascii=False) + "\\n"
        True
        >>> write_json({"f1": 1.0}, "-")
        {
          "f1": 1.0
        }
        >>> write_json({}, "/no/such/dir/r.json")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/r.json: cannot write the JSON report: No such file or directory
    """
    from ..scoring.report_json import indented_json_chunks, write_json_file

    if out == "-":
        for chunk in indented_json_chunks(data):  # each chunk is whole UTF-8 text
            click.echo(chunk.decode("utf-8"), nl=False)
        return
    write_json_file(data, out)


def _apply(options: list, command: Callable) -> Callable:
    for option in reversed(options):
        command = option(command)
    return command


def scoring_options(command: Callable) -> Callable:
    """Decorate a command with how runs are linked to tasks and scored: ``--task``
    (``task_id``), ``--level``, ``--strategy``, ``--matcher``, ``--pricing`` and
    ``--task-id-key`` (``task_id_keys``), ``--ignore-tool`` (``ignore_tools``) and
    ``--link-by`` (``link_by``), ``--match`` and ``--ordered/--unordered`` (overrides of
    every task's modes), as :func:`~ek_otel.scoring.link.load_settings` takes them.

    Example:
        >>> from click.testing import CliRunner
        >>> @click.command()
        ... @scoring_options
        ... def show(**values): click.echo(sorted(values.items()))
        >>> print(CliRunner().invoke(show, ["--level", "arg", "--task-id-key", "k",
        ...                                 "--ignore-tool", "final_answer"]).output)
        [('ignore_tools', ('final_answer',)), ('level', 'arg'), ('link_by', 'task'), ('match', None), ('matcher', 'ek'), ('ordered', None), ('pricing', None), ('strategy', 'optimal'), ('task_id', None), ('task_id_keys', ('k',))]
    """
    from ..core.modes import MATCH_MODES
    from ..core.toolcalls import LEVELS
    from ..scoring.settings import LINK_BY, MATCHERS, SCORE_STRATEGIES

    return _apply([
        click.option("--task", "task_id", metavar="ID",
                     help="Score runs that carry no task id against this task."),
        click.option("--level", type=click.Choice(LEVELS), default=LEVELS[0], show_default=True,
                     help="What a true positive is: a whole call, or one argument."),
        click.option("--strategy", type=click.Choice(SCORE_STRATEGIES), default="optimal",
                     show_default=True, help="How predicted calls are paired with gold calls."),
        click.option("--matcher", type=click.Choice(MATCHERS), default=MATCHERS[0], show_default=True,
                     help="ek: tool-call F1; bfcl: the official BFCL checker's verdict per run "
                          "(gold from `ek-otel gold from-bfcl`)."),
        click.option("--pricing", metavar="FILE", help="A pricing file, for dollars."),
        click.option("--task-id-key", "task_id_keys", multiple=True, metavar="KEY",
                     help="Attribute key holding the task id (repeatable; tried before the defaults)."),
        click.option("--ignore-tool", "ignore_tools", multiple=True, metavar="NAME",
                     callback=_check_ignore_tools,
                     help="A framework-internal tool whose calls are neither true nor false "
                          "positives, e.g. final_answer (repeatable; '*' matches any run of "
                          "characters: 'transfer_to_*'; '@hosted': every tool the model "
                          "provider ran itself, web search and the like; added to each "
                          "task's ignore_tools)."),
        click.option("--link-by", "link_by", type=click.Choice(LINK_BY), default=LINK_BY[0],
                     show_default=True,
                     help="input: a run without a task id is scored against the task whose "
                          "input is its first user message (ambiguous or missing: unmatched)."),
        click.option("--match", "match", type=click.Choice(MATCH_MODES), default=None,
                     help="Score every task in this match mode, whatever the gold file says "
                          "(exact: these calls and no other; superset: extra calls allowed; "
                          "subset: gold calls may be missing)."),
        click.option("--ordered/--unordered", "ordered", default=None,
                     help="Every task's gold calls must (or need not) be made in gold order, "
                          "whatever the gold file says."),
    ], command)


def check_mode_overrides(matcher: str, match: Optional[str], ordered: Optional[bool]) -> None:
    """Refuse ``--match`` or ``--ordered/--unordered`` beside ``--matcher bfcl`` (one line).

    Example:
        >>> check_mode_overrides("ek", "superset", True)
        >>> check_mode_overrides("bfcl", "superset", None)
        Traceback (most recent call last):
        ...
        click.exceptions.UsageError: --match and --ordered/--unordered need --matcher ek (the BFCL checker decides its own verdicts)
    """
    if matcher != "ek" and (match is not None or ordered is not None):
        raise click.UsageError("--match and --ordered/--unordered need --matcher ek (the BFCL "
                               "checker decides its own verdicts)")


def _check_ignore_tools(_ctx: Any, _param: Any, value: tuple) -> tuple:
    from ..core.ignore import check_ignore_patterns

    try:
        return check_ignore_patterns(value, name="--ignore-tool")
    except ValueError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None


def reading_options(command: Callable) -> Callable:
    """Decorate a command that reads episodes without scoring them (``episodes``,
    ``doctor``) with ``--group-by`` and ``--task-id-key`` (``task_id_keys``).

    Example:
        >>> from click.testing import CliRunner
        >>> @click.command()
        ... @reading_options
        ... def show(**values): click.echo(sorted(values.items()))
        >>> print(CliRunner().invoke(show, ["--group-by", "session"]).output)
        [('group_by', 'session'), ('task_id_keys', ())]
    """
    from ..ingest.episodes import DEFAULT_TASK_ID_KEYS, GROUP_BY_CHOICES

    return _apply([
        click.option("--group-by", type=click.Choice(GROUP_BY_CHOICES), default="trace",
                     show_default=True,
                     help="One episode per trace, or per gen_ai.conversation.id / session.id."),
        click.option("--task-id-key", "task_id_keys", multiple=True, metavar="KEY",
                     help="Attribute key holding the task id (repeatable; tried before the "
                          "defaults: " + ", ".join(DEFAULT_TASK_ID_KEYS) + ")."),
    ], command)


def emit_options(command: Callable) -> Callable:
    """Decorate a command with where the scores are written back: ``--emit-file``,
    ``--emit-endpoint``, ``--emit-protocol``, ``--emit-header`` (``emit_headers``; see
    :func:`parse_headers`), ``--emit-timeout``, ``--emit-signals`` (a tuple; see
    :func:`parse_signals`), ``--phoenix``, ``--phoenix-url``, ``--phoenix-api-key-env`` (see
    :func:`phoenix_api_key`) and ``--mlflow-tracking-uri``.

    Example:
        >>> from click.testing import CliRunner
        >>> @click.command()
        ... @emit_options
        ... def show(**values): click.echo(values["emit_protocol"])
        >>> CliRunner().invoke(show, ["--emit-protocol", "grpc"]).output
        'grpc\\n'
    """
    from ..emit.sinks import DEFAULT_TIMEOUT_S, PROTOCOLS

    return _apply([
        click.option("--emit-file", type=click.Path(dir_okay=False), metavar="FILE",
                     help="Append the scores as OTLP JSON Lines (evaluation spans + events)."),
        click.option("--emit-endpoint", metavar="URL",
                     help="Send the scores to this OTLP endpoint (e.g. http://127.0.0.1:4318)."),
        click.option("--emit-protocol", type=click.Choice(PROTOCOLS), default=PROTOCOLS[0],
                     show_default=True, help="Protocol of --emit-endpoint."),
        click.option("--emit-header", "emit_headers", multiple=True, metavar="KEY=VALUE",
                     help="Header (HTTP) or metadata (gRPC) sent with every score export "
                          "(repeatable)."),
        click.option("--emit-timeout", type=click.FloatRange(min=0.1), default=DEFAULT_TIMEOUT_S,
                     show_default=True, metavar="SECONDS",
                     help="How long one export may take, retries included."),
        click.option("--emit-signals", default="spans,logs", show_default=True,
                     metavar="SIGNALS", callback=lambda ctx, param, value: parse_signals(value),
                     help="What --emit-endpoint/--emit-file get: evaluation spans, "
                          "gen_ai.evaluation.result events (logs), or both. A backend without "
                          "a logs endpoint (Phoenix, Jaeger, Tempo) is warned about once, "
                          "not failed."),
        click.option("--phoenix", is_flag=True,
                     help="Also emit OpenInference EVALUATOR spans (evaluations.* attributes; "
                          "Phoenix shows them as spans, its annotation columns come from "
                          "--phoenix-url)."),
        click.option("--phoenix-url", metavar="URL",
                     help="Write each score as a Phoenix span annotation (on the run's root "
                          "span) and trace annotation, name ek.<metric>, through Phoenix's "
                          "REST API (e.g. http://127.0.0.1:6006)."),
        click.option("--phoenix-api-key-env", metavar="VAR",
                     help="Environment variable holding the Phoenix API key (Phoenix auth)."),
        click.option("--mlflow-tracking-uri", metavar="URI",
                     help="Write each score as an MLflow feedback assessment on the run's trace "
                          "(MLflow >= 3.6 ingests OTLP traces; e.g. http://127.0.0.1:5000)."),
    ], command)


def parse_signals(text: str) -> tuple:
    """``--emit-signals spans,logs`` as a tuple of signals; InputError otherwise.

    Example:
        >>> parse_signals("logs, spans"), parse_signals("spans")
        (('spans', 'logs'), ('spans',))
        >>> parse_signals("traces")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --emit-signals: unknown signal 'traces'; use spans, logs or both
    """
    from ..emit.sinks import check_signals

    try:
        return check_signals([part.strip() for part in str(text).split(",") if part.strip()])
    except ValueError as exc:
        raise InputError(f"--emit-signals: {exc}") from None


def phoenix_api_key(env_var: Optional[str]) -> Optional[str]:
    """The Phoenix API key from the variable ``--phoenix-api-key-env`` names; InputError when
    that variable is unset or empty (None when no variable is named).

    Example:
        >>> import os
        >>> os.environ["EK_DOCTEST_PHX"] = "k3y"
        >>> phoenix_api_key("EK_DOCTEST_PHX"), phoenix_api_key(None)
        ('k3y', None)
        >>> phoenix_api_key("EK_DOCTEST_UNSET_VAR")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --phoenix-api-key-env: EK_DOCTEST_UNSET_VAR is not set (or empty)
    """
    if not env_var:
        return None
    value = os.environ.get(env_var, "").strip()
    if not value:
        raise InputError(f"--phoenix-api-key-env: {env_var} is not set (or empty)")
    return value


def parse_headers(pairs: Iterable[str]) -> dict:
    """``--emit-header KEY=VALUE`` values as a dict (keys lower-cased); InputError otherwise.

    Example:
        >>> parse_headers(["Authorization=Bearer t0k"])
        {'authorization': 'Bearer t0k'}
        >>> parse_headers(["novalue"])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: --emit-header must be KEY=VALUE, got 'novalue'
    """
    headers = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--emit-header must be KEY=VALUE, got {pair!r}")
        headers[key.strip().lower()] = value.strip()
    return headers
