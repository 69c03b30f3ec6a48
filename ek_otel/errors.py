"""Typed errors. The CLI turns each into one clear line on stderr and exit code 2.

Errors a sender can meet are split in two, as the OpenTelemetry Collector's
``consumererror`` splits them: a :class:`PermanentError` fails the same way however often
the same input is sent (a receiver answers 400 / ``INVALID_ARGUMENT`` and the client drops
the data), a :class:`RetryableError` is a refusal of the moment (503 / ``UNAVAILABLE`` with
``Retry-After`` / ``RetryInfo``: the client keeps the data and sends it again). Every
:class:`InputError` is permanent. The status table of ``ek-otel serve`` is
:mod:`ek_otel.serve.responses`.

Example:
    >>> str(GoldFileError("gold.jsonl", 3, "task_id is missing"))
    'gold.jsonl:3: task_id is missing'
    >>> isinstance(DecodeError("truncated"), PermanentError), Overloaded("at the cap").retry_after_s
    (True, 1)
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "EkOtelError",
    "PermanentError",
    "RetryableError",
    "Overloaded",
    "InputError",
    "ConfigError",
    "DecodeError",
    "GoldFileError",
    "UnknownTaskError",
    "IgnoredGoldCallError",
    "PricingError",
    "BfclDataError",
    "BfclDataNotFound",
    "ComparabilityError",
    "WorkerError",
]


class EkOtelError(Exception):
    """Base of every error ek-otel raises on purpose (a user error, not a bug)."""


class PermanentError(EkOtelError):
    """Refused for good: the same input fails the same way, so the sender must not retry it.

    Example:
        >>> issubclass(InputError, PermanentError), issubclass(Overloaded, PermanentError)
        (True, False)
    """


class RetryableError(EkOtelError):
    """A refusal of the moment: the same input may succeed later, ``retry_after_s`` from now.

    Example:
        >>> RetryableError("store not open yet", retry_after_s=5).retry_after_s
        5
    """

    def __init__(self, message: str, retry_after_s: int = 1):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Overloaded(RetryableError):
    """A memory cap is reached (open traces, pending or in-flight bytes): retry later.

    Nothing is dropped: the sender keeps the data and sends it again.

    Example:
        >>> str(Overloaded("pending bytes at the cap; retry later", retry_after_s=2))
        'pending bytes at the cap; retry later'
    """


class InputError(PermanentError):
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


class ConfigError(InputError):
    """Settings that cannot work together, named in the library's own terms.

    ``message`` names each setting as ``{field}``; ``str()`` shows the field names, and
    :meth:`describe` shows other names (a CLI passes its flags).

    Example:
        >>> err = ConfigError("{tls_cert} and {tls_key} go together", fields=("tls_cert", "tls_key"))
        >>> str(err)
        'tls_cert and tls_key go together'
        >>> err.describe({"tls_cert": "--tls-cert", "tls_key": "--tls-key"})
        '--tls-cert and --tls-key go together'
    """

    def __init__(self, message: str, *, fields: tuple = (), path: Optional[str] = None):
        self.template = message
        self.fields = tuple(fields)
        super().__init__(self._render({}), path=path)

    def _render(self, names: dict) -> str:
        text = self.template  # str.replace, not format: values quoted in it may hold braces
        for field in self.fields:
            text = text.replace("{" + field + "}", names.get(field, field))
        return text

    def describe(self, names: dict) -> str:
        """The message with each field shown by ``names[field]`` (the field itself if absent)."""
        where = f"{self.path}: " if self.path is not None else ""
        return where + self._render(names)


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


class WorkerError(EkOtelError):
    """A process of a parallel ``score`` or ``episodes`` failed or died (``--jobs 1`` runs
    in one process).

    Example:
        >>> str(WorkerError("process 2 of 2 (--jobs 2) was killed by signal 9"))
        'process 2 of 2 (--jobs 2) was killed by signal 9'
    """
