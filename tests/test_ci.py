"""The CI script: it runs the whole suite, lists skips, and fails on a skip not allowed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("ek_otel_tests_conftest", ROOT / "tests" / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
disallowed, load_allowlist = _conftest.disallowed, _conftest.load_allowlist


def test_ci_fails_on_skips_not_on_the_allow_list():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q -rs --skip-allowlist tests/skip_allowlist.txt" in ci
    assert 'if [ "$rc" -eq 5 ]' in ci and "exit 1" in ci   # no tests collected: a failure
    allowed = load_allowlist(str(ROOT / "tests" / "skip_allowlist.txt"))
    assert allowed and all(rule.why for rule in allowed)
    # a missing optional package is never an allowed reason
    assert disallowed([("tests/serve/test_tls.py::test_https_and_grpc_over_tls",
                        "could not import 'cryptography.x509'")], allowed)


def test_a_malformed_allow_list_is_refused(tmp_path):
    path = tmp_path / "allow.txt"
    path.write_text("tests/x.py::t | reason without a why\n")
    with pytest.raises(pytest.UsageError, match="allow.txt:1: expected"):
        load_allowlist(str(path))
