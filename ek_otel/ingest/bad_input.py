"""The bad-input report: what the readers skipped (or repaired), counted by reason.

Readers never crash on bad input: they add a case here and go on with the rest. The report
counts every case by reason and keeps the first few with where they came from.

Example:
    >>> from ek_otel.ingest.records import Origin
    >>> report = BadInputReport(keep=1)
    >>> report.add(INVALID_JSON, "expected value", Origin("dump.jsonl", 3))
    >>> report.add(INVALID_JSON, "unexpected end", Origin("dump.jsonl", 9))
    >>> report.total, report.counts[INVALID_JSON], str(report.cases[0].origin)
    (2, 2, 'dump.jsonl:3')
    >>> print(report.summary())
    2 bad input records skipped or repaired:
      2 invalid JSON
    first cases:
      dump.jsonl:3: invalid JSON: expected value
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .records import Origin

__all__ = [
    "DEFAULT_KEEP",
    "UNDECODABLE_PROTOBUF",
    "INVALID_JSON",
    "BAD_REQUEST",
    "BAD_ATTRIBUTE",
    "INVALID_ID",
    "MALFORMED_RECORD",
    "DEEP_NESTING",
    "INVALID_UTF8",
    "UNREADABLE_FILE",
    "BadInputCase",
    "BadInputReport",
    "report_issues",
]

#: How many cases a report keeps in full (the rest are only counted).
DEFAULT_KEEP = 10

# Reasons. A reason names what was wrong; the case detail says what exactly.
#: A protobuf body or frame that does not parse (truncated, corrupt). The whole body is skipped.
UNDECODABLE_PROTOBUF = "undecodable protobuf"
#: A JSON line or file that does not parse. The whole line is skipped.
INVALID_JSON = "invalid JSON"
#: Valid JSON/protobuf that is not an OTLP request (wrong shape). Skipped.
BAD_REQUEST = "not an OTLP request"
#: An attribute whose value has an unexpected type. The attribute is dropped, the record kept.
BAD_ATTRIBUTE = "attribute of unexpected type"
#: A span or log with an invalid trace/span id (wrong length, bad hex, all zeros). Skipped.
INVALID_ID = "invalid id"
#: A span or log whose fields have the wrong shape. Skipped.
MALFORMED_RECORD = "malformed record"
#: An AnyValue nested deeper than the cap. The value is replaced by a marker, the record kept.
DEEP_NESTING = "nesting too deep"
#: A string holding invalid UTF-8 (the parsers refuse the whole request for it). The bad
#: bytes are replaced by U+FFFD, everything else is kept.
INVALID_UTF8 = "invalid UTF-8"
#: A file that cannot be opened or decompressed. The rest of the file is skipped.
UNREADABLE_FILE = "unreadable file"


@dataclass(frozen=True)
class BadInputCase:
    """One bad-input case: why, what exactly, and where it was read.

    Example:
        >>> str(BadInputCase(INVALID_ID, "trace id 'xyz'", Origin("a.json", 1)))
        "a.json:1: invalid id: trace id 'xyz'"
    """

    reason: str
    detail: str = ""
    origin: Optional[Origin] = None

    def __str__(self) -> str:
        where = f"{self.origin}: " if self.origin is not None and str(self.origin) else ""
        return f"{where}{self.reason}: {self.detail}" if self.detail else f"{where}{self.reason}"


class BadInputReport:
    """Counts bad-input cases by reason and keeps the first ``keep`` of them.

    This is an accumulator (mutable on purpose): readers share one report over a whole run.

    Example:
        >>> r = BadInputReport()
        >>> r.ok, r.summary()
        (True, 'no bad input')
        >>> r.add(INVALID_ID, "span id ''")
        >>> r.ok, r.counts
        (False, {'invalid id': 1})
    """

    def __init__(self, keep: int = DEFAULT_KEEP):
        self.keep = keep
        self.counts: dict[str, int] = {}
        self.cases: list[BadInputCase] = []

    def add(self, reason: str, detail: str = "", origin: Optional[Origin] = None) -> None:
        """Count one case; keep it in full when fewer than ``keep`` are kept.

        Example:
            >>> r = BadInputReport(keep=0)
            >>> r.add(DEEP_NESTING, "depth > 32")
            >>> r.total, r.cases
            (1, [])
        """
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if len(self.cases) < self.keep:
            self.cases.append(BadInputCase(reason, detail[:300], origin))

    @property
    def total(self) -> int:
        """The number of cases of every reason."""
        return sum(self.counts.values())

    @property
    def ok(self) -> bool:
        """True when nothing bad was seen."""
        return not self.counts

    def summary(self) -> str:
        """A few human-readable lines: the count per reason, then the first cases.

        Example:
            >>> r = BadInputReport()
            >>> r.add(UNDECODABLE_PROTOBUF, "truncated", Origin("d.pb"))
            >>> print(r.summary())
            1 bad input record skipped or repaired:
              1 undecodable protobuf
            first cases:
              d.pb: undecodable protobuf: truncated
        """
        if self.ok:
            return "no bad input"
        total = self.total
        lines = [f"{total} bad input record{'s' if total != 1 else ''} skipped or repaired:"]
        for reason, count in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count} {reason}")
        if self.cases:
            lines.append("first cases:")
            lines.extend(f"  {case}" for case in self.cases)
        return "\n".join(lines)


def report_issues(report: Optional[BadInputReport], issues: list, origin: Optional[Origin] = None,
                  where: str = "") -> None:
    """Add each ``(reason, detail)`` of ``issues`` to ``report`` (when there is one), the
    detail prefixed with ``where``; then empty ``issues``, ready for the next record.

    What every decoder does with the problems it collects while reading one record.

    Example:
        >>> r, issues = BadInputReport(), [(DEEP_NESTING, "more than 32 levels")]
        >>> report_issues(r, issues, where="span 0202020202020202")
        >>> str(r.cases[0]), issues
        ('nesting too deep: span 0202020202020202: more than 32 levels', [])
    """
    if report is not None:
        for reason, detail in issues:
            report.add(reason, f"{where}: {detail}" if where else detail, origin)
    issues.clear()
