"""Where the tests find the data that lives outside the repository, beside the checkout.

The repository holds only what its own authors wrote. Two folders of other people's data
lie beside it, in ``../shared`` (CI lays them there; a clone on its own has neither):

- ``bfcl-real``: a real BFCL submission (``result/``) with its official score files
  (``score/``); ``$EK_OTEL_BFCL_REAL``, else ``../shared/bfcl-real``;
- ``foreign``: other projects' test data (eval sets, Jaeger and Tempo files, trace
  snapshots and their OTLP JSON conversions); ``$EK_OTEL_FOREIGN``, else
  ``../shared/foreign``.

A test that needs one asks for the ``bfcl_real`` or ``foreign`` fixture: absent, it skips
with the one reason ``tests/skip_allowlist.txt`` allows, or fails when
``$EK_OTEL_REQUIRE_BFCL_REAL`` / ``$EK_OTEL_REQUIRE_FOREIGN`` is set (``.ci/run`` sets them
when the folders lie beside the clone).

Example:
    >>> find_beside("EK_OTEL_NO_SUCH_VARIABLE", "no-such-folder", ()) is None
    True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[1]

#: The skip reason of every test that reads ``foreign`` (allowed in tests/skip_allowlist.txt).
FOREIGN_MISSING = ("other projects' test data not found: set EK_OTEL_FOREIGN or put it at "
                   "../shared/foreign")
#: The skip reason of every test that reads ``bfcl-real``.
BFCL_REAL_MISSING = "bfcl-real not found: set EK_OTEL_BFCL_REAL or put it at ../shared/bfcl-real"


def find_beside(variable: str, name: str, parts: tuple) -> Optional[Path]:
    """``$variable``, else ``../shared/<name>`` beside the checkout, when it holds every
    folder of ``parts``; None otherwise."""
    path = Path(os.environ.get(variable) or REPO.parent / "shared" / name)
    if path.is_dir() and all((path / part).is_dir() for part in parts):
        return path
    return None


def find_bfcl_real() -> Optional[Path]:
    """The bfcl-real directory (``result/`` and ``score/``), or None."""
    return find_beside("EK_OTEL_BFCL_REAL", "bfcl-real", ("result", "score"))


def find_foreign() -> Optional[Path]:
    """The folder of other projects' test data (``gold/``, ``ingest/``, ``external/``), or
    None."""
    return find_beside("EK_OTEL_FOREIGN", "foreign", ("gold", "ingest", "external"))


def require(path: Optional[Path], message: str, variable: str) -> Path:
    """``path``, else a skip with ``message`` (a failure when ``$variable`` is set)."""
    if path is None:
        if os.environ.get(variable):  # CI, where it lies beside the clone
            pytest.fail(message)
        pytest.skip(message)
    return path


def foreign_folder() -> Path:
    """The foreign folder for a test: found, or the test skips (fails in CI)."""
    return require(find_foreign(), FOREIGN_MISSING, "EK_OTEL_REQUIRE_FOREIGN")


def bfcl_real_folder() -> Path:
    """The bfcl-real folder for a test: found, or the test skips (fails in CI)."""
    return require(find_bfcl_real(), BFCL_REAL_MISSING, "EK_OTEL_REQUIRE_BFCL_REAL")
