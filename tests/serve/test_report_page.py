"""`GET /` of `ek-otel serve`: the live HTML report, read-only, behind the bearer token,
refreshed as runs are scored; with runs sent by the real OTel SDK exporter."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from serve_helpers import GOLD_TASKS, ServerProcess, emit_run, make_provider, wait_for

TOKEN = "s3cret-token"


def _get(url, token=None, method="GET"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def _send(port, runs):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces",
                                headers={"Authorization": f"Bearer {TOKEN}"})
    provider = make_provider(exporter)
    tracer = provider.get_tracer("test")
    for task, city in runs:
        emit_run(tracer, task, city=city)
    provider.shutdown()


def _episodes(page: bytes) -> int:
    data = page.split(b'<script type="application/json" id="ek-data">', 1)[1].split(b"</script>", 1)[0]
    return len(json.loads(data)["episodes"])


def test_the_live_page_is_read_only_behind_the_token_and_follows_the_scores(
        tmp_path, monkeypatch, browser):
    monkeypatch.setenv("EK_OTEL_TEST_TOKEN", TOKEN)
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    store = tmp_path / "s.db"
    server = ServerProcess(["--gold", str(gold), "--store", str(store), "--http", "127.0.0.1:0",
                            "--grpc", "127.0.0.1:0", "--grace", "0.2",
                            "--auth-token-env", "EK_OTEL_TEST_TOKEN",
                            "--trace-url", "https://jaeger.example/trace/{trace_id}"],
                           str(tmp_path / "log"))
    url = f"http://127.0.0.1:{server.http_port}/"
    try:
        status, headers, _ = _get(url)
        assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
        assert _get(url, token="wrong")[0] == 401
        assert _get(url, token=TOKEN, method="POST")[0] == 405
        assert _get(url, token=TOKEN, method="DELETE")[0] == 405

        _send(server.http_port, [(0, None), (1, None), (2, "<script>window.__pwned=1</script>")])
        first = wait_for(lambda: (lambda r: r[0] == 200 and _episodes(r[2]) == 3 and r)(
            _get(url, token=TOKEN)), 60, "3 runs on the page")
        status, headers, body = first
        assert headers["Content-Type"].startswith("text/html")
        assert headers["Cache-Control"] == "no-store"
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert b"ek-otel live report" in body and b'id="auto-refresh"' in body
        data = body.split(b'<script type="application/json" id="ek-data">', 1)[1].split(b"</script>")[0]
        assert json.loads(data)["trace_url"] == "https://jaeger.example/trace/{trace_id}"

        # More runs are scored: the page follows (rendered again at most every few seconds).
        _send(server.http_port, [(3, None), (4, "nowhere")])
        wait_for(lambda: _episodes(_get(url, token=TOKEN)[2]) == 5, 60, "5 runs on the page")

        # In the browser, with the token as a header: the same figures as `ek-otel report`.
        from ek_otel.cli import cli

        report = CliRunner().invoke(cli, ["report", "--store", str(store), "--json", "-",
                                          "--html", str(tmp_path / "report.html")])
        assert report.exit_code == 0, report.output
        expected = json.loads(report.stdout)["aggregate"]
        context = browser.new_context(extra_http_headers={"Authorization": f"Bearer {TOKEN}"})
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("html[data-ready]")
        f1 = page.locator('.kpi[data-metric="f1"] .value').inner_text()
        assert f1 == f"{expected['f1']:.3f}"
        assert page.locator("#tasks tbody tr[data-row]").count() == 5
        assert page.evaluate("window.__pwned") is None
        context.close()
        written = Path(tmp_path / "report.html").read_text(encoding="utf-8")  # report --html
        assert written.count('type="application/json"') == 1
        assert f'<div class="value">{expected["f1"]:.3f}</div>' in written
    finally:
        assert server.terminate() == 0
        server.close()


def test_serve_refuses_a_trace_url_that_is_no_http_template(tmp_path):
    from ek_otel.cli import cli

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    result = CliRunner().invoke(cli, ["serve", "--gold", str(gold), "--store", str(tmp_path / "s.db"),
                                      "--trace-url", "javascript:alert({trace_id})"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "ek-otel: error: --trace-url must be an http:// or https:// URL, got 'javascript:alert({trace_id})'")


def test_the_server_loads_the_page_modules_only_with_the_first_page(tmp_path):
    """numpy and scipy (the page's statistics) cost the receiver process tens of MiB: a
    server nobody asks for its page never loads them."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from aiohttp import web\n"
            "from ek_otel.serve.config import ServeConfig\n"
            "from ek_otel.serve.http_receiver import make_app\n"
            f"make_app(None, ServeConfig(gold='g', store={str(tmp_path / 's.db')!r}), ready=lambda: True)\n"
            "print(sorted(m for m in ('numpy', 'scipy', 'jinja2') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
