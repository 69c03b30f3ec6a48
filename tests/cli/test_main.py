"""The `ek-otel` group itself: --version, --help, and one-line errors with exit code 2."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

import ek_otel
from ek_otel.cli import COMMAND_MODULES, cli


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"ek-otel, version {ek_otel.__version__}\n"


def test_help_lists_every_registered_command():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in cli.commands:
        assert name in result.stdout
    assert "gold" in cli.commands
    assert set(COMMAND_MODULES) >= {"gold"}


def test_short_help_option():
    assert CliRunner().invoke(cli, ["-h"]).exit_code == 0


def test_unknown_command_is_a_usage_error():
    assert CliRunner().invoke(cli, ["no-such-command"]).exit_code == 2


def test_library_error_becomes_one_stderr_line_and_exit_2(tmp_path):
    missing = tmp_path / "absent.jsonl"
    result = CliRunner().invoke(cli, ["gold", "show", str(missing)])
    assert result.exit_code == 2
    assert result.stderr == f"ek-otel: error: {missing}: no such file\n"
    assert isinstance(result.exception, SystemExit) and result.exception.code == 2


def test_console_entry_point_runs_without_traceback(tmp_path):
    missing = tmp_path / "absent.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "ek_otel", "gold", "show", str(missing)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"ek-otel: error: {missing}: no such file"]
