"""Helpers every CLI command may share: consoles, progress bars, error lines.

- :func:`stdout_console` / :func:`stderr_console`: rich consoles (tables go to stdout,
  progress and diagnostics to stderr);
- :func:`progress` / :func:`track`: rich progress bars on stderr that switch themselves off
  when stderr is not a terminal (pipes, CI, tests), so output stays clean;
- :func:`echo_errors`: print each error as one ``FILE:LINE: message`` line on stderr;
- :func:`nothing_read_error`: the one-line error of a command that could read nothing at all;
- :func:`write_json`: write a JSON report to a file, or to stdout for ``-``.

Example:
    >>> with progress("reading", total=3) as advance:
    ...     for _ in range(3):
    ...         advance()
    >>> list(track([1, 2], "scoring"))
    [1, 2]
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Optional, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InputError

__all__ = ["stdout_console", "stderr_console", "is_interactive", "progress", "track", "echo_errors",
           "nothing_read_error", "write_json"]

T = TypeVar("T")


def stdout_console() -> Console:
    """A rich console on the current stdout (tables, reports).

    Created per call so that click's CliRunner, which swaps ``sys.stdout``, captures it.

    Example:
        >>> stdout_console().stderr
        False
    """
    return Console(file=sys.stdout, soft_wrap=False)


def stderr_console() -> Console:
    """A rich console on the current stderr (progress, diagnostics).

    Example:
        >>> stderr_console().stderr
        True
    """
    return Console(file=sys.stderr, stderr=True)


def is_interactive() -> bool:
    """True when stderr is a terminal, i.e. when a progress bar is worth drawing.

    Example:
        >>> isinstance(is_interactive(), bool)
        True
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

        def advance(n: float = 1) -> None:
            bar.advance(task, n)

        yield advance


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


def nothing_read_error(report: Any) -> Optional[InputError]:
    """The error to raise when the input gave nothing but bad input, else None.

    A dump that holds no episode and no bad input (an empty file) is not an error; one
    whose every record was unreadable is: the caller exits 2 with this one line.

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport, INVALID_JSON
        >>> report = BadInputReport()
        >>> nothing_read_error(report) is None
        True
        >>> report.add(INVALID_JSON, "expected value")
        >>> print(nothing_read_error(report))
        no trace could be read (1 bad input records; first: invalid JSON: expected value)
    """
    if report.ok:
        return None
    first = report.cases[0] if report.cases else report.summary()
    return InputError(f"no trace could be read ({report.total} bad input records; first: {first})")


def write_json(data: Any, out: str) -> None:
    """Write ``data`` as indented JSON to the file ``out``, or to stdout when ``out`` is ``-``.

    Raises:
        InputError: the file cannot be written (one line, exit 2).

    Example:
        >>> write_json({"f1": 1.0}, "-")
        {
          "f1": 1.0
        }
        >>> write_json({}, "/no/such/dir/r.json")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/r.json: cannot write the JSON report: No such file or directory
    """
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if out == "-":
        click.echo(text)
        return
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as exc:
        raise InputError(f"cannot write the JSON report: {exc.strerror or exc}", path=out) from None
