"""The verdict on one BFCL entry: valid or not, and the official error type.

Example:
    >>> v = Verdict(id="simple_python_0", category="simple_python", valid=False,
    ...             error_type="value_error:string", errors=("Invalid value for parameter 'x'",))
    >>> v.valid, v.error_type
    (False, 'value_error:string')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["Verdict"]


@dataclass(frozen=True)
class Verdict:
    """One checked entry. ``error_type`` is the official string (None when valid);
    ``errors`` are the official human-readable messages; ``detail`` holds anything else the
    score file prints for a failed entry (model output, decoded calls, possible answer).

    ``prompt_line``, when set, is the data line that ``detail["prompt"]`` was read from, as
    :attr:`~ek_otel.bfcl.data.BfclEntry.question_line` (a score file may write it as it
    is); it takes no part in comparisons."""

    id: str
    category: str
    valid: bool
    error_type: Optional[str] = None
    errors: tuple = ()
    detail: Mapping[str, Any] = field(default_factory=dict)
    prompt_line: Any = field(default=None, compare=False, repr=False)
