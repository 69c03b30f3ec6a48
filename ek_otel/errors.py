"""Typed errors. The CLI turns each into one clear line on stderr and exit code 2.

Example:
    >>> str(GoldFileError("gold.jsonl", 3, "task_id is missing"))
    'gold.jsonl:3: task_id is missing'
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "EkOtelError",
    "InputError",
    "DecodeError",
    "GoldFileError",
    "UnknownTaskError",
    "IgnoredGoldCallError",
    "PricingError",
    "BfclDataError",
    "BfclDataNotFound",
    "ComparabilityError",
]


class EkOtelError(Exception):
    """Base of every error ek-otel raises on purpose (a user error, not a bug)."""


class InputError(EkOtelError):
    """Input that cannot be read at all: a missing file, an unknown format, a bad request.

    Example:
        >>> str(InputError("no such file", path="x.pb"))
        'x.pb: no such file'
    """

    def __init__(self, message: str, *, path: Optional[str] = None, line: Optional[int] = None):
        self.path = path
        self.line = line
        self.message = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")


class DecodeError(InputError):
    """An OTLP body (request, dump line or frame) that cannot be decoded at all.

    A permanent error: the receiver answers 400 and the client must not retry.

    Example:
        >>> isinstance(DecodeError("truncated protobuf"), InputError)
        True
    """


class GoldFileError(InputError):
    """A gold task file that cannot be used; names the file, the line and the problem."""

    def __init__(self, path: str, line: Optional[int], message: str):
        super().__init__(message, path=path, line=line)


class UnknownTaskError(GoldFileError):
    """A task id asked for (the default task of runs without one) that the gold file lacks.

    Example:
        >>> e = UnknownTaskError("gold.jsonl", "t9")
        >>> e.task_id, str(e)
        ('t9', "gold.jsonl: task 't9' is not a task of this gold file")
    """

    def __init__(self, path: str, task_id: str):
        self.task_id = task_id
        super().__init__(path, None, f"task {task_id!r} is not a task of this gold file")


class IgnoredGoldCallError(GoldFileError):
    """Tools to ignore (``ignore_tools``) that match a call the gold file expects: that
    call could never be matched.

    Example:
        >>> e = IgnoredGoldCallError("gold.jsonl", "t1", "final_answer", "final_*")
        >>> e.pattern, str(e)
        ('final_*', "gold.jsonl: task 't1' expects a call to 'final_answer', which ignore_tools 'final_*' removes from every run")
    """

    def __init__(self, path: str, task_id: str, tool: str, pattern: str, *,
                 option: str = "ignore_tools"):
        self.task_id, self.tool, self.pattern = task_id, tool, pattern
        super().__init__(path, None, f"task {task_id!r} expects a call to {tool!r}, which "
                                     f"{option} {pattern!r} removes from every run")


class PricingError(InputError):
    """A pricing file that cannot be used, or a model with no price."""


class BfclDataError(EkOtelError):
    """BFCL data (questions, possible answers) that cannot be found or read."""


class BfclDataNotFound(BfclDataError):
    """No BFCL data where it was looked for (``path``, or the installed ``bfcl_eval``).

    Example:
        >>> str(BfclDataNotFound("/data"))[:30]
        '/data: no BFCL data found: giv'
    """

    #: How to install the data.
    INSTALL = "`pip install --no-deps bfcl-eval==2026.3.23`"
    #: What to do about it, in library terms (the CLI words it with its flags).
    HINT = ("give a directory holding BFCL_v4_*.json and possible_answer/, or a "
            f"bfcl_eval-*.whl, or install it with {INSTALL}")

    def __init__(self, path: Optional[str] = None):
        self.path = path
        where = f"{path}: " if path else ""
        super().__init__(f"{where}no BFCL data found: {self.HINT}")


class ComparabilityError(EkOtelError):
    """Runs whose provenance keys differ (model, simulator, suite version, scaffold) were pooled.

    Example:
        >>> str(ComparabilityError("2 provenance keys"))
        '2 provenance keys'
    """
