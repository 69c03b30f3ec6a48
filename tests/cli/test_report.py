"""`ek-otel report`: the same report as `ek-otel score` over what the server scored."""

from __future__ import annotations

import json
import os
import sys
import urllib.request

from click.testing import CliRunner

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "serve"))

from serve_helpers import GOLD_TASKS, ServerProcess, wait_for  # noqa: E402


def _request(n: int) -> bytes:
    """n runs of task-0 / task-1 (two trials each), one with a wrong argument, one late span."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    kv = rs.resource.attributes.add()
    kv.key, kv.value.string_value = "service.name", "agent"
    ss = rs.scope_spans.add()
    for i in range(n):
        tid = bytes([0x60 + i]) * 16
        task = i % 2
        city = "nowhere" if i == 3 else f"city-{task}"
        for sid, parent, name, attrs in (
            (b"\x01" * 8, b"", "invoke_agent a", {"gen_ai.operation.name": "invoke_agent",
                                                  "ek.task.id": f"task-{task}"}),
            (b"\x02" * 8, b"\x01" * 8, "execute_tool get_weather", {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": json.dumps({"city": city})}),
        ):
            span = ss.spans.add()
            span.trace_id, span.span_id, span.parent_span_id, span.name = tid, sid, parent, name
            span.start_time_unix_nano, span.end_time_unix_nano = 1_000, 2_000
            for k, v in attrs.items():
                a = span.attributes.add()
                a.key, a.value.string_value = k, v
    return req.SerializeToString()


def test_report_matches_score_on_the_same_traces(tmp_path):
    from ek_otel.cli import cli

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    store = tmp_path / "s.db"
    body = _request(4)
    server = ServerProcess(["--gold", str(gold), "--store", str(store), "--http", "127.0.0.1:0",
                            "--grpc", "127.0.0.1:0", "--grace", "0.2"], str(tmp_path / "log"))
    try:
        for _ in range(2):  # the same body twice: still 4 runs
            req = urllib.request.Request(f"http://127.0.0.1:{server.http_port}/v1/traces", body,
                                         {"Content-Type": "application/x-protobuf"})
            assert urllib.request.urlopen(req, timeout=10).status == 200
        runner = CliRunner()

        def scored():
            r = runner.invoke(cli, ["report", "--store", str(store), "--json", "-"])
            return r.exit_code == 0 and json.loads(r.stdout)["aggregate"]["episodes"] == 4 and r
        result = wait_for(scored, 60, "4 runs in the report")
    finally:
        assert server.terminate() == 0
        server.close()
    report = json.loads(result.stdout)

    dump = tmp_path / "runs.pb"
    dump.write_bytes(body)
    direct = CliRunner().invoke(cli, ["score", str(dump), "--gold", str(gold), "--json", "-"])
    assert direct.exit_code == 0, direct.output
    expected = json.loads(direct.stdout)
    for key in ("precision", "recall", "f1", "episodes", "k", "mean_pass_hat_k"):
        assert report["aggregate"][key] == expected["aggregate"][key], key
    assert report["aggregate"]["k"] == 2 and report["pass_hat_k"] == expected["pass_hat_k"]
    assert sorted(e["trace_id"] for e in report["episodes"]) == sorted(
        e["trace_id"] for e in expected["episodes"])
    text = CliRunner().invoke(cli, ["report", "--store", str(store), "--junit",
                                    str(tmp_path / "r.xml"), "--markdown", str(tmp_path / "r.md")])
    assert text.exit_code == 0 and "task-0" in text.output
    assert report["headline"] == expected["headline"]
    assert {t: v["verdict"] for t, v in report["per_task"].items()} == {
        t: v["verdict"] for t, v in expected["per_task"].items()}
    assert report["headline"]["text"] in text.output
    assert f"wrote {tmp_path / 'r.xml'} (JUnit XML: " in text.output
    assert (tmp_path / "r.md").read_text().startswith(f"### ek-otel report: {report['headline']['text']}")


def test_report_without_a_store_is_one_line(tmp_path):
    from ek_otel.cli import cli

    result = CliRunner().invoke(cli, ["report", "--store", str(tmp_path / "none.db")])
    assert result.exit_code == 2 and "no such store" in result.output


def test_report_on_a_file_that_is_not_an_ek_otel_store_is_one_line(tmp_path):
    """Regression: a non-SQLite file, an empty file or another SQLite database ended in a
    traceback (exit 1)."""
    import sqlite3

    from ek_otel.cli import cli

    (tmp_path / "text.db").write_text("{}\n")
    (tmp_path / "empty.db").write_bytes(b"")
    conn = sqlite3.connect(tmp_path / "other.db")
    conn.execute("CREATE TABLE foo(x)")
    conn.commit()
    conn.close()
    for name, message in (("text.db", "not a database"), ("empty.db", "not an ek-otel store"),
                          ("other.db", "not an ek-otel store")):
        result = CliRunner().invoke(cli, ["report", "--store", str(tmp_path / name)])
        assert result.exit_code == 2, (name, result.output)
        assert message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output


def test_report_on_a_store_with_nothing_scored_yet(tmp_path):
    from ek_otel.cli import cli
    from ek_otel.serve.store import Store

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    store = Store(str(tmp_path / "s.db"))
    store.set_meta("gold", str(gold))
    store.close()
    result = CliRunner().invoke(cli, ["report", "--store", str(tmp_path / "s.db"), "--json", "-"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{"):])
    assert data["aggregate"]["episodes"] == 0


def test_a_store_with_no_gold_names_the_flag_in_the_cli_and_the_field_in_the_library(tmp_path):
    """The library says what is wrong in its own terms; the CLI shows its flag."""
    import pytest

    from ek_otel.cli import cli
    from ek_otel.errors import ConfigError
    from ek_otel.serve.report import load_run
    from ek_otel.serve.store import Store

    path = str(tmp_path / "s.db")
    Store(path).close()
    with pytest.raises(ConfigError) as err:
        load_run(path)
    assert str(err.value) == f"{path}: the store records no gold file: pass one as gold"
    assert err.value.fields == ("gold",)
    result = CliRunner().invoke(cli, ["report", "--store", path])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"ek-otel: error: {path}: the store records no gold file: pass one as --gold")


def test_report_over_several_stores_refuses_other_settings_and_empty_dirs(tmp_path):
    """Several stores make one corpus only when scored alike; the error names the store."""
    from ek_otel.cli import cli
    from ek_otel.serve.store import Store

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    (tmp_path / "stores").mkdir()
    for name, settings in (("a.db", '{"level": "call"}'), ("b.db", '{"level": "call"}'),
                           ("c.db", '{"level": "arg"}')):
        store = Store(str(tmp_path / "stores" / name))
        store.set_meta("gold", str(gold))
        store.set_meta("score_settings", settings)
        store.close()
    a, b, c = (str(tmp_path / "stores" / n) for n in ("a.db", "b.db", "c.db"))
    result = CliRunner().invoke(cli, ["report", "--store", a, "--store", b, "--json", "-"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli, ["report", "--store", str(tmp_path / "stores")])
    assert result.exit_code == 2 and "c.db: scored with other settings than" in result.output
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, ["report", "--store", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "no store in it" in result.output
