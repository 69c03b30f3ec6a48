"""The pytest plugin, run by pytest itself (``pytester``) on small test files whose agent
makes spans with the real OTel SDK: the fixture, the assertions and their failure text,
the markers and options, the trials, the summary line and the report."""

from __future__ import annotations

import json

import pytest
from plugin_run import (ek_otel_cli, outcomes, prepare, read_json, run_inline, run_subprocess,
                        summary_line)

pytest_plugins = ("pytester",)

AGENT = '''
import json
from opentelemetry import trace

def tool(name, **args):
    with trace.get_tracer("app").start_as_current_span(
            f"execute_tool {name}", attributes={"gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name, "gen_ai.tool.call.arguments": json.dumps(args)}):
        pass

def refund_agent(amount, order="A1", task_id=None):
    attrs = {"ek.task.id": task_id} if task_id else {}
    with trace.get_tracer("app").start_as_current_span("refund agent", attributes=attrs):
        tool("lookup_order", order_id=order)
        tool("refund", order_id=order, amount=amount)
'''

REFUND = '[{"lookup_order": {"order_id": ["A1"]}}, {"refund": {"order_id": ["A1"], "amount": [10, 10.0]}}]'


@pytest.fixture
def project(pytester, monkeypatch):
    prepare(pytester, monkeypatch)
    pytester.makepyfile(agent=AGENT)
    return pytester


def test_a_passing_and_a_failing_call_with_the_pages_explanation(project):
    project.makepyfile(test_refund=f'''
from agent import refund_agent

def test_right_amount(ek_trace):
    refund_agent(10.0)      # 10.0 is one of the admissible values
    result = ek_trace.assert_calls({REFUND})
    assert result.score.success and result.score.f1 == 1.0

def test_wrong_amount(ek_trace):
    refund_agent(100)
    ek_trace.assert_calls({REFUND})
''')
    result = run_inline(project)
    assert outcomes(result) == {"passed": 1, "failed": 1}
    text = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*AssertionError: task 'test_refund.py::test_wrong_amount' failed on trace *:",
        "E*fail: 1/2 calls matched; refund.amount: expected one of ?10, 10.0?, got 100",
        "E*match    lookup_order",
        "E*differs  refund",
        "E*argument*got*expected*weight*difference",
        'E*order_id*"A1"*"A1"',
        "E*amount*100*one of 10 | 10.0*1*wrong value",
    ])
    assert "EpisodeScore(" not in text and "ArgDiff(" not in text
    assert summary_line(result) == "ek-otel: 2 tasks: 1 pass, 0 flaky, 1 fail (2 trials)"


def test_optional_argument_and_missing_and_spurious_calls(project):
    project.makepyfile(test_calls=f'''
from agent import tool, refund_agent
from opentelemetry import trace

def test_left_out_is_admissible(ek_trace):
    with ek_trace.span():
        tool("get_weather", city="Paris")
    ek_trace.assert_calls([{{"get_weather": {{"city": ["Paris"], "unit": ["celsius", ""]}}}}])

def test_missing_and_spurious(ek_trace):
    with ek_trace.span():
        tool("delete_account", user="u1")
    ek_trace.assert_calls([{{"get_weather": {{"city": ["Paris"]}}}}])

def test_no_call_expected(ek_trace):
    with ek_trace.span():
        pass
    ek_trace.assert_calls([])
''')
    result = run_inline(project)
    assert outcomes(result) == {"passed": 2, "failed": 1}
    result.stdout.fnmatch_lines([
        "E*fail: 0/1 calls matched; missing: get_weather; spurious: delete_account",
        "E*missing  get_weather",
        'E*city*\u2013*"Paris"*',
        "E*spurious delete_account",
        'E*user*"u1"*\u2013*',
    ])


def test_episodes_and_several_or_no_episode(project):
    project.makepyfile(test_eps=f'''
from agent import refund_agent

def test_two_traces_need_a_choice(ek_trace):
    refund_agent(10, task_id="first")
    refund_agent(10, order="B2", task_id="second")
    assert [e.task_id for e in ek_trace.episodes] == ["first", "second"]
    ek_trace.assert_calls({REFUND}, task_id="first")     # picked by its task id
    ek_trace.assert_calls({REFUND}, episode=1)

def test_two_traces_without_a_choice(ek_trace):
    refund_agent(10)
    refund_agent(10)
    ek_trace.assert_calls({REFUND})

def test_nothing_recorded(ek_trace):
    ek_trace.assert_calls({REFUND})
''')
    result = run_inline(project)
    assert outcomes(result) == {"failed": 3}
    result.stdout.fnmatch_lines([
        "*episode=1*",
        "*AssertionError: task 'test_eps.py::test_two_traces_need_a_choice #2' failed*",
        "*order_id*\"B2\"*\"A1\"*wrong value*",
        "*AssertionError: 2 episodes were recorded during this test (one per trace): trace *"
        "(lookup_order, refund); trace *. Run the agent inside one span*",
        "*AssertionError: no episode was recorded during this test (0 span(s) and 0 log record(s)*",
    ])


def test_score_against_the_gold_file_by_task_id(project):
    project.makefile(".jsonl", gold='{"task_id": "refund-a1", "calls": [{"refund": {"order_id": ["A1"], "amount": [10]}}], "ignore_tools": ["lookup_*"]}\n'
                                    '{"task_id": "refund-b2", "calls": [{"refund": {"order_id": ["B2"], "amount": [5]}}], "ignore_tools": ["lookup_*"]}\n')
    project.makepyfile(test_gold='''
import pytest
from agent import refund_agent

def test_by_id(ek_trace):
    refund_agent(10)
    result = ek_trace.score("refund-a1")
    assert result, result.text
    assert result.score.task_id == "refund-a1" and result.score.settings["level"] == "call"

def test_by_the_episodes_own_task_id(ek_trace):
    refund_agent(5, order="B2", task_id="refund-b2")
    ek_trace.assert_task()

@pytest.mark.ek_task("refund-b2")
def test_by_marker_fails(ek_trace):
    refund_agent(10)
    ek_trace.assert_task()

def test_plain_assert_is_readable(ek_trace):
    refund_agent(11)
    assert ek_trace.score("refund-a1")

def test_unknown_task(ek_trace):
    refund_agent(10)
    ek_trace.score("nope")
''')
    result = run_inline(project, "--ek-gold", "gold.jsonl", "--ek-level", "call")
    assert outcomes(result) == {"passed": 2, "failed": 3}
    result.stdout.fnmatch_lines([
        "*AssertionError: task 'refund-b2' failed on trace *",
        "*assert <ek-otel fail on task 'refund-a1': 0/1 calls matched; refund.amount: expected 10, got 11; ignored: lookup_order>",
        "*UnknownTaskError: *gold.jsonl: task 'nope' is not a task of this gold file",
    ])
    # refund-a1 passed in one test and failed in another: two trials of one task
    assert summary_line(result) == "ek-otel: 2 tasks: 0 pass, 2 flaky, 0 fail (4 trials)"


def test_gold_marker_relative_to_the_test_file(project):
    project.mkdir("sub").joinpath("tasks.jsonl").write_text(
        '{"task_id": "only", "calls": [{"refund": {"order_id": ["A1"], "amount": [10]}}], '
        '"ignore_tools": ["lookup_order"]}\n')
    project.path.joinpath("sub", "agent.py").write_text(AGENT)
    project.path.joinpath("sub", "test_marked.py").write_text('''
import pytest
from agent import refund_agent

pytestmark = pytest.mark.ek_gold("tasks.jsonl")

def test_only_task(ek_trace):
    refund_agent(10)
    assert ek_trace.assert_task().task.task_id == "only"
''')
    result = run_inline(project)
    assert outcomes(result) == {"passed": 1}


def test_errors_are_clear(project):
    project.makepyfile(test_errors='''
import pytest
from agent import refund_agent

def test_no_gold(ek_trace):
    refund_agent(10)
    ek_trace.score("refund-a1")

def test_bad_calls_form(ek_trace):
    refund_agent(10)
    ek_trace.assert_calls({"refund": {}})

@pytest.mark.ek_trials(k=0)
def test_bad_trials():
    pass
''')
    result = run_inline(project)
    result.stdout.fnmatch_lines([
        "*InputError: test_errors.py::test_no_gold: task 'refund-a1' needs a gold file: "
        "--ek-gold FILE or @pytest.mark.ek_gold(FILE)",
        "*GoldFileError: test_errors.py::test_bad_calls_form: assert_calls: calls must be a list*",
        "*test_errors.py::test_bad_trials: ek_trials: k (the number of trials) must be an "
        "integer >= 1, got 0*",
    ])
    missing = run_inline(project, "--ek-gold", "no-such.jsonl")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--ek-gold no-such.jsonl: no such file*"])
    bad_level = run_inline(project, "--ek-level", "word")
    assert bad_level.ret == pytest.ExitCode.USAGE_ERROR


FLAKY = f'''
import pytest
from agent import refund_agent

PLAN = [10, 10, 99, 10, 99]     # the agent gets the amount wrong in trials 3 and 5
N = []

def amount():
    N.append(1)
    return PLAN[(len(N) - 1) % len(PLAN)]

@pytest.mark.ek_trials(k=5, min_success_rate=0.6)
def test_accepted_flaky(ek_trace):
    refund_agent(amount())
    ek_trace.assert_calls({REFUND}, task_id="accepted")

@pytest.mark.ek_trials(k=5)
def test_strict_flaky(ek_trace):
    refund_agent(amount())
    ek_trace.assert_calls({REFUND}, task_id="strict")

@pytest.mark.ek_trials(5, pass_hat_k=0.3, j=2)
def test_pass_hat_2(ek_trace):
    refund_agent(amount())
    ek_trace.assert_calls({REFUND}, task_id="pass-hat-2")

@pytest.mark.ek_trials(5, pass_hat_k=0.5, j=2)
def test_pass_hat_2_half(ek_trace):
    refund_agent(amount())
    ek_trace.assert_calls({REFUND}, task_id="pass-hat-2-half")

@pytest.mark.ek_trials(k=3)
def test_always_fails(ek_trace):
    refund_agent(1)
    ek_trace.assert_calls({REFUND}, task_id="broken")

@pytest.mark.ek_trials(k=3)
def test_always_passes(ek_trace):
    refund_agent(10)
    assert len(ek_trace.episodes) == 1      # each trial has its own capture
    ek_trace.assert_calls({REFUND}, task_id="solid")

@pytest.mark.ek_trials(k=4)
def test_without_the_fixture():
    assert amount() == 10
'''


def test_trials_with_a_scripted_flaky_agent(project):
    project.makepyfile(test_flaky=FLAKY)
    result = run_inline(project, "-v", "--junitxml=junit.xml")
    assert outcomes(result) == {"passed": 1, "flaky": 2, "failed": 4}
    result.stdout.fnmatch_lines([
        "*test_accepted_flaky FLAKY*",
        "*test_strict_flaky FAILED (flaky)*",
        "*test_pass_hat_2 FLAKY*",
        "*test_pass_hat_2_half FAILED (flaky)*",
        "*test_always_fails FAILED*",
        "*test_always_passes PASSED*",
        "*test_without_the_fixture FAILED (flaky)*",
    ])
    result.stdout.fnmatch_lines([
        "ek_trials: flaky, 3 of 5 trials passed; pass^5 = 0.000, needs every trial to pass",
        "trial 3 failed:",
        "  AssertionError (at test_flaky.py:19): task 'strict' failed on trace *",
        "  fail: 1/2 calls matched; refund.amount: expected one of ?10, 10.0?, got 99",
        "*amount*99*one of 10 | 10.0*wrong value",
        "trial 5 failed: AssertionError (at test_flaky.py:19): task 'strict' failed on trace *",
    ])
    # 3 of 5 passed: pass^2 = C(3,2)/C(5,2) = 0.3, accepted at 0.3, not at 0.5
    result.stdout.fnmatch_lines(["ek_trials: flaky, 3 of 5 trials passed; pass^2 = 0.300 (from 5 "
                                 "trials), needs at least 0.5"])
    result.stdout.fnmatch_lines(["ek_trials: fail, 0 of 3 trials passed; pass^3 = 0.000, needs*"])
    assert summary_line(result) == "ek-otel: 7 tasks: 1 pass, 5 flaky, 1 fail (30 trials)"
    import xml.etree.ElementTree as ET

    cases = {case.get("name"): case for case in ET.parse(project.path / "junit.xml").iter("testcase")}
    prop = cases["test_accepted_flaky"].find("properties/property")
    assert (prop.get("name"), prop.get("value")) == ("ek_trials", "flaky: 3 of 5 passed")
    assert cases["test_accepted_flaky"].find("failure") is None
    assert cases["test_strict_flaky"].find("failure") is not None


def test_a_trial_that_fails_before_scoring_fails_its_task(project):
    project.makepyfile(test_crash=f'''
import pytest
from agent import refund_agent
N = []

@pytest.mark.ek_trials(k=4, min_success_rate=0.5)
def test_crashes_sometimes(ek_trace):
    N.append(1)
    if len(N) % 2 == 0:
        raise RuntimeError("the agent crashed")
    refund_agent(10)
    ek_trace.assert_calls({REFUND}, task_id="crashy")
''')
    result = run_inline(project, "-v")
    assert outcomes(result) == {"flaky": 1}
    assert summary_line(result) == "ek-otel: 1 task: 0 pass, 1 flaky, 0 fail (4 trials)"


def test_agent_in_a_thread_and_in_asyncio_tasks(project):
    project.makepyfile(test_concurrency=f'''
import asyncio, contextvars, threading
from agent import refund_agent, tool

def test_thread_with_the_test_context(ek_trace):
    with ek_trace.span("refund task"):
        ctx = contextvars.copy_context()
        worker = threading.Thread(target=ctx.run, args=(refund_agent, 10))
        worker.start(); worker.join()
    (episode,) = ek_trace.episodes
    assert len(episode.trajectory) == 2
    ek_trace.assert_calls({REFUND})

def test_thread_on_its_own(ek_trace):
    worker = threading.Thread(target=refund_agent, args=(10,))
    worker.start(); worker.join()
    ek_trace.assert_calls({REFUND})

def test_asyncio_tasks(ek_trace):
    async def lookup():
        await asyncio.sleep(0.01)
        tool("lookup_order", order_id="A1")
    async def refund():
        await asyncio.sleep(0.02)
        tool("refund", order_id="A1", amount=10)
    async def agent():
        with ek_trace.span("refund task"):
            await asyncio.gather(asyncio.create_task(lookup()), asyncio.create_task(refund()))
    asyncio.run(agent())
    ek_trace.assert_calls({REFUND})
''')
    result = run_inline(project)
    assert outcomes(result) == {"passed": 3}


def test_the_applications_provider_is_kept(project):
    project.makeconftest('''
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

APP_SPANS = InMemorySpanExporter()
APP_PROVIDER = TracerProvider(resource=Resource.create({"service.name": "refund-service"}))
APP_PROVIDER.add_span_processor(SimpleSpanProcessor(APP_SPANS))
trace.set_tracer_provider(APP_PROVIDER)

# a provider the application passes to its instrumentation without making it global
PRIVATE_SPANS = InMemorySpanExporter()
PRIVATE = TracerProvider(resource=Resource.create({"service.name": "private"}))
PRIVATE.add_span_processor(SimpleSpanProcessor(PRIVATE_SPANS))
''')
    project.makepyfile(test_provider=f'''
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
import conftest
from agent import refund_agent

def test_global_provider(ek_trace):
    refund_agent(10)
    assert trace.get_tracer_provider() is conftest.APP_PROVIDER
    assert len(conftest.APP_SPANS.get_finished_spans()) == 3    # the app's exporter too
    assert ek_trace.episode.provenance.service_name == "refund-service"
    ek_trace.assert_calls({REFUND})

def test_private_providers(ek_trace):
    with conftest.PRIVATE.get_tracer("x").start_as_current_span("made before the test"):
        pass
    later = TracerProvider()
    with later.get_tracer("y").start_as_current_span("made during the test"):
        pass
    assert sorted(s.name for s in ek_trace.spans) == ["made before the test", "made during the test"]
    assert len(conftest.PRIVATE_SPANS.get_finished_spans()) == 1
''')
    result = run_subprocess(project)       # a process of its own: the global provider is set once
    assert outcomes(result) == {"passed": 2}, result.stdout.str()


def test_no_provider_set_gets_an_sdk_one_and_log_records(project):
    project.makepyfile(test_logs='''
from opentelemetry import _logs, trace
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.trace import TracerProvider

def test_logs_are_captured(ek_trace):
    assert isinstance(trace.get_tracer_provider(), TracerProvider)
    assert isinstance(_logs.get_logger_provider(), LoggerProvider)
    with ek_trace.span("task"):
        _logs.get_logger("app").emit(_logs.LogRecord(body="hello", event_name="app.event"))
    assert [r.log_record.body for r in ek_trace.logs] == ["hello"]
    assert len(ek_trace.episodes) == 1
''')
    result = run_subprocess(project)
    assert outcomes(result) == {"passed": 1}, result.stdout.str()


def test_a_run_that_does_not_use_it_imports_no_sdk(project):
    project.makepyfile(test_plain='''
import sys

def test_plain():
    assert 1 + 1 == 2

def test_nothing_heavy_was_imported():
    heavy = [m for m in ("opentelemetry.sdk", "opentelemetry.sdk.trace", "ek_otel.scoring",
                         "ek_otel.testing.capture", "ek_otel.core.evaluate", "ek_otel.ingest.otlp")
             if m in sys.modules]
    assert heavy == []
    assert "ek_otel.testing.pytest_plugin" in sys.modules
''')
    result = run_subprocess(project, "-p", "no:faulthandler")
    assert outcomes(result) == {"passed": 2}, result.stdout.str()
    assert "ek-otel:" not in result.stdout.str()


def test_report_dir_read_back_by_ek_otel_compare(project, tmp_path):
    source = f'''
import os
from agent import refund_agent

AMOUNT = int(os.environ["REFUND_AMOUNT"])

def test_refund(ek_trace):
    refund_agent(AMOUNT)
    ek_trace.assert_calls({REFUND}, task_id="refund")

def test_lookup(ek_trace):
    refund_agent(10)
    ek_trace.assert_calls({REFUND}, task_id="lookup")

def test_not_scored(ek_trace):
    refund_agent(10, task_id="never-scored")
'''
    project.makepyfile(test_report=source)
    dirs = {}
    for name, amount in (("base", "10"), ("candidate", "99")):
        project._monkeypatch.setenv("REFUND_AMOUNT", amount)
        dirs[name] = tmp_path / name
        result = run_inline(project, "--ek-report", str(dirs[name]))
        result.stdout.fnmatch_lines([f"ek-otel: report in {dirs[name]}: report.json, report.html, gold.jsonl"])
    base = read_json(dirs["base"] / "report.json")
    assert sorted(base["per_task"]) == ["lookup", "refund"]
    assert base["aggregate"]["episodes"] == 2 and base["aggregate"]["success_rate"] == 1.0
    assert [u["task_id"] for u in base["unmatched"]] == ["never-scored"]
    assert (dirs["base"] / "report.html").read_text().startswith("<!doctype html>")
    assert (dirs["base"] / "gold.jsonl").read_text() == (dirs["candidate"] / "gold.jsonl").read_text()
    out = tmp_path / "comparison.json"
    compared = ek_otel_cli("compare", str(dirs["base"] / "report.json"),
                           str(dirs["candidate"] / "report.json"), "--json", str(out))
    assert compared.returncode == 0, compared.stderr
    comparison = read_json(out)
    changes = {t["task_id"]: t for t in comparison["tasks"]}
    assert changes["refund"]["base"]["success_rate"] == 1.0
    assert changes["refund"]["candidate"]["success_rate"] == 0.0
    assert comparison["shared_tasks"] == 2


def test_pricing_gives_dollars_in_the_summary(project):
    project.makefile(".yaml", pricing="models:\n  gpt-4o-mini:\n    input: 0.15\n    output: 0.60\n")
    project.makepyfile(test_priced='''
from opentelemetry import trace

def test_model_call(ek_trace):
    tracer = trace.get_tracer("app")
    with ek_trace.span("task"):
        with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.response.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 1000000,
                "gen_ai.usage.output_tokens": 1000000}):
            pass
    ek_trace.assert_calls([])
''')
    result = run_inline(project, "--ek-pricing", "pricing.yaml")
    assert outcomes(result) == {"passed": 1}
    assert summary_line(result) == "ek-otel: 1 task: 1 pass, 0 flaky, 0 fail (1 trial); $0.75 for 1 scored episode(s)"


def test_a_report_on_the_gold_file_compares_with_ek_otel_score(project, tmp_path):
    gold = project.makefile(".jsonl", gold=(
        '{"task_id": "refund-a1", "calls": [{"refund": {"order_id": ["A1"], "amount": [10]}}], "ignore_tools": ["lookup_*"]}\n'
        '{"task_id": "refund-b2", "calls": [{"refund": {"order_id": ["B2"], "amount": [5]}}], "ignore_tools": ["lookup_*"]}\n'))
    dumps = tmp_path / "dumps"
    project._monkeypatch.setenv("DUMPS", str(dumps))
    project.makepyfile(test_gold_report='''
import os
from agent import refund_agent

def test_a1(ek_trace):
    refund_agent(10, task_id="refund-a1")
    ek_trace.assert_task("refund-a1")
    ek_trace.write_dump(os.path.join(os.environ["DUMPS"], "a1"))

def test_b2(ek_trace):
    refund_agent(7, order="B2", task_id="refund-b2")
    ek_trace.write_dump(os.path.join(os.environ["DUMPS"], "b2"))
    assert not ek_trace.score()          # the agent refunds 7, the task says 5
''')
    report_dir = tmp_path / "report"
    result = run_inline(project, "--ek-gold", str(gold), "--ek-report", str(report_dir))
    assert outcomes(result) == {"passed": 2}
    assert summary_line(result) == "ek-otel: 2 tasks: 1 pass, 0 flaky, 1 fail (2 trials)"
    from ek_otel.scoring.settings import file_sha256

    mine = read_json(report_dir / "report.json")
    assert mine["provenance"]["gold_sha256"] == file_sha256(str(gold))
    scored = tmp_path / "score.json"
    run = ek_otel_cli("score", str(dumps), "--gold", str(gold), "--json", str(scored))
    assert run.returncode == 0, run.stderr
    theirs = read_json(scored)
    assert theirs["per_task"] == mine["per_task"]
    compared = ek_otel_cli("compare", str(scored), str(report_dir / "report.json"), "--json", "-")
    assert compared.returncode == 0, compared.stderr
    assert json.loads(compared.stdout)["shared_tasks"] == 2


def test_a_report_that_cannot_be_written_is_said_and_fails_the_run(project, tmp_path):
    project.makefile(".yaml", pricing="models: [not, a, table]\n")
    project.makepyfile(test_fine='''
def test_fine():
    pass
''')
    result = run_inline(project, "--ek-pricing", "pricing.yaml", "--ek-report", str(tmp_path / "r"))
    assert outcomes(result) == {"passed": 1}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["ek-otel: error: no report written: *pricing.yaml*"])
    assert not (tmp_path / "r" / "report.json").exists()


def test_an_empty_session_report_says_it_is_empty(project, tmp_path):
    project.makepyfile(test_plain='def test_plain():\n    pass\n')
    result = run_inline(project, "--ek-report", str(tmp_path / "r"))
    assert outcomes(result) == {"passed": 1} and result.ret == 0
    result.stdout.fnmatch_lines(["ek-otel: report in *: report.json, report.html, gold.jsonl "
                                 "(no episode was captured in this session: it is empty)"])
    assert read_json(tmp_path / "r" / "report.json")["aggregate"]["episodes"] == 0


def test_assert_calls_takes_the_match_modes_and_hard_rules(project):
    project.makepyfile(test_modes=f'''
from agent import refund_agent

REFUND_ONLY = [{{"refund": {{"order_id": ["A1"], "amount": [10]}}}}]

def test_superset_allows_the_lookup(ek_trace):
    refund_agent(10)
    result = ek_trace.assert_calls(REFUND_ONLY, match="superset")
    assert result.score.explanation.startswith("superset: 1 of 1 gold calls made; 1 extra call allowed")

def test_exact_does_not(ek_trace):
    refund_agent(10)
    ek_trace.assert_calls(REFUND_ONLY)

def test_forbid_fails_whatever_match_says(ek_trace):
    refund_agent(10)
    ek_trace.assert_calls(REFUND_ONLY, match="superset", args="ignore", forbid=["lookup_*"])
''')
    result = run_inline(project)
    assert outcomes(result) == {"passed": 1, "failed": 2}
    result.stdout.fnmatch_lines(["E*fail: superset: 1 of 1 gold calls made; 1 extra call allowed;*"
                                 "forbidden: lookup_order called*"])
