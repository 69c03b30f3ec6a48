"""The registry of other tools' gold formats: import_file / export_tasks, the CLI (on a real ADK
eval set, read from ``../shared/foreign/gold``)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli
from ek_otel.core.episode import AnyOf, TaskSpec
from ek_otel.errors import InputError
from ek_otel.gold.importers import FORMATS, export_tasks, import_file

def test_bad_files_and_formats_are_named(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        import_file("adk", "/no/such.evalset.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match=r"bad.json: not JSON"):
        import_file("deepeval", str(bad))
    with pytest.raises(InputError, match="unknown format 'ragas'"):
        import_file("ragas", str(bad))
    with pytest.raises(InputError, match="unknown format 'ragas'"):
        export_tasks("ragas", [])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_exports_what_it_imports_back(fmt, tmp_path):
    task = TaskSpec("t1", input="hello", ordered=True, gold=[("f", {"x": AnyOf((1,))}), ("g", {})])
    data, notes = export_tasks(fmt, [task])
    path = tmp_path / "out.json"
    path.write_text(json.dumps(data))
    back, _ = import_file(fmt, str(path))
    assert [(t.task_id, t.input, t.gold) for t in back] == [("t1", "hello", task.gold)]
    assert back[0].ordered == (fmt != "deepeval")  # DeepEval's default ignores order: noted
    assert (fmt == "deepeval") == any("ignores order" in n for n in notes)


def test_cli_import_and_export(tmp_path, foreign):
    trip = foreign / "gold" / "adk" / "trip_inquiry.test.json"
    out = tmp_path / "gold.jsonl"
    runner = CliRunner()
    result = runner.invoke(cli, ["gold", "import", "adk", str(trip),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 task(s) from" in result.stderr and result.stderr.count("compared by similarity") == 2
    again = runner.invoke(cli, ["gold", "import", "adk", str(trip),
                                "--out", str(out)])
    assert again.exit_code == 2 and "exists" in again.stderr
    evalset = tmp_path / "x.evalset.json"
    exported = runner.invoke(cli, ["gold", "export", "adk", str(out), "--out", str(evalset)])
    assert exported.exit_code == 0, exported.output
    assert len(json.loads(evalset.read_text())["eval_cases"]) == 2


def test_the_cli_lists_every_format():
    from ek_otel.cli.gold_formats import FORMAT_NAMES
    from ek_otel.gold.importers import FORMATS

    assert FORMAT_NAMES == sorted(FORMATS)
