"""Fixtures for the BFCL tests: the BFCL data, the bfcl-real submission, the official checker.

- data: an installed ``bfcl_eval`` (``pip install --no-deps bfcl-eval==2026.3.23``), else the
  wheel named by ``EK_OTEL_BFCL_WHEEL``; tests needing it are skipped otherwise;
- bfcl-real: ``EK_OTEL_BFCL_REAL``, else ``../shared/bfcl-real`` next to the repository
  (found by :mod:`tests.outside`, as other projects' test data is);
- the official checker: importable only with ``bfcl_eval`` installed.
"""

from __future__ import annotations

import os
import pytest

from ek_otel.bfcl.data import BfclData
from tests.outside import bfcl_real_folder, find_bfcl_real



def find_bfcl_data():
    """The BFCL data source for tests, or None."""
    installed = BfclData.installed()
    if installed is not None:
        return installed
    wheel = os.environ.get("EK_OTEL_BFCL_WHEEL")
    if wheel and os.path.isfile(wheel):
        return BfclData.locate(wheel)
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
    return bfcl_real_folder()


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
