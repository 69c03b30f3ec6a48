"""The `ek-otel` group itself: --version, --help, and one-line errors with exit code 2."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

import ek_otel
from ek_otel.cli import COMMANDS, SUBCOMMANDS, cli


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"ek-otel, version {ek_otel.__version__}\n"


def test_help_lists_every_registered_command():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.stdout
    assert set(COMMANDS) >= {"gold", "bfcl", "episodes", "score", "serve", "report"}


def test_subcommands_from_other_modules_are_added_to_their_group():
    result = CliRunner().invoke(cli, ["gold", "--help"])
    assert result.exit_code == 0
    for name in SUBCOMMANDS["gold"]:
        assert name in result.stdout
    assert CliRunner().invoke(cli, ["gold", "from-bfcl", "--help"]).exit_code == 0


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


def _modules_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "; import sys; print(sorted(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(eval(out.splitlines()[-1]))  # noqa: S307 - our own printed list


_HEAVY = ("opentelemetry.sdk", "grpc", "aiohttp")


def test_importing_the_package_or_the_cli_loads_no_sdk_grpc_or_aiohttp():
    for code in ("import ek_otel", "import ek_otel.cli", "import ek_otel; ek_otel.evaluate"):
        loaded = _modules_after(code)
        assert not [m for m in loaded if m.split(".")[0] in ("grpc", "aiohttp")], code
        assert "opentelemetry.sdk" not in loaded, code


def test_version_and_bfcl_help_load_no_sdk_grpc_or_aiohttp():
    for argv in (["--version"], ["bfcl", "--help"]):
        code = ("import sys; from ek_otel.cli import main\n"
                "try:\n    main(%r)\nexcept SystemExit:\n    pass" % argv)
        out = subprocess.run([sys.executable, "-c", code + "\nprint(sorted(sys.modules))"],
                             capture_output=True, text=True, check=True).stdout
        loaded = set(eval(out.splitlines()[-1]))  # noqa: S307 - our own printed list
        heavy = [m for m in loaded if m in _HEAVY or m.split(".")[0] in ("grpc", "aiohttp")]
        assert heavy == [], argv
