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

    ``prompt_json``, when set, is the JSON text (UTF-8) that a score file writes for
    ``detail["prompt"]``, known without encoding it (the data line it was read from, see
    :attr:`~ek_otel.bfcl.data.BfclEntry.question_json`); it takes no part in comparisons."""

    id: str
    category: str
    valid: bool
    error_type: Optional[str] = None
    errors: tuple = ()
    detail: Mapping[str, Any] = field(default_factory=dict)
    prompt_json: Optional[bytes] = field(default=None, compare=False, repr=False)
