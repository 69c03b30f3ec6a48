"""Fixtures for the BFCL tests: the BFCL data, the bfcl-real submission, the official checker.

- data: an installed ``bfcl_eval`` (``pip install --no-deps bfcl-eval==2026.3.23``), else the
  wheel named by ``EK_OTEL_BFCL_WHEEL``; tests needing it are skipped otherwise;
- bfcl-real: ``EK_OTEL_BFCL_REAL``, else ``../shared/bfcl-real`` next to the repository;
- the official checker: importable only with ``bfcl_eval`` installed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ek_otel.bfcl.data import BfclData

REPO = Path(__file__).resolve().parents[2]


def find_bfcl_data():
    """The BFCL data source for tests, or None."""
    installed = BfclData.installed()
    if installed is not None:
        return installed
    wheel = os.environ.get("EK_OTEL_BFCL_WHEEL")
    if wheel and os.path.isfile(wheel):
        return BfclData.locate(wheel)
    return None


def find_bfcl_real():
    """The bfcl-real directory (result/ and score/), or None."""
    candidate = os.environ.get("EK_OTEL_BFCL_REAL") or str(REPO.parent / "shared" / "bfcl-real")
    path = Path(candidate)
    if (path / "result").is_dir() and (path / "score").is_dir():
        return path
    return None


@pytest.fixture(scope="session")
def bfcl_data():
    data = find_bfcl_data()
    if data is None:
        pytest.skip("BFCL data not found: install it with `pip install --no-deps "
                    "bfcl-eval==2026.3.23` or set EK_OTEL_BFCL_WHEEL to a bfcl-eval wheel")
    return data


@pytest.fixture(scope="session")
def bfcl_real():
    path = find_bfcl_real()
    if path is None:
        message = "bfcl-real not found: set EK_OTEL_BFCL_REAL or put it at ../shared/bfcl-real"
        if os.environ.get("EK_OTEL_REQUIRE_BFCL_REAL"):  # CI, where it lies beside the clone
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def official_checker():
    from ek_otel.bfcl.official import official_ast_checker

    checker = official_ast_checker()
    if checker is None:
        pytest.skip("the official checker is not importable: "
                    "`pip install --no-deps bfcl-eval==2026.3.23`")
    return checker


@pytest.fixture(scope="session")
def bfcl_real_optional():
    """bfcl-real when present, else None (tests then build their own results)."""
    return find_bfcl_real()
