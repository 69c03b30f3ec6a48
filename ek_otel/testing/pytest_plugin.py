"""The pytest plugin of ek-otel (entry point ``pytest11: ek_otel``): test an agent from the
spans it emits, with ek-otel's matcher. See docs/pytest.md.

- the ``ek_trace`` fixture (:class:`~ek_otel.testing.agent_trace.AgentTrace`): the episodes
  recorded during the test, ``assert_calls(expected, ...)``, ``score(task)``,
  ``assert_task(task)``;
- markers: ``ek_trials(k, min_success_rate=, pass_hat_k=, j=)`` (repeated trials,
  :mod:`ek_otel.testing.trials`), ``ek_gold(FILE)`` (the gold file of a test or module),
  ``ek_task(ID)`` (the task ``score()`` scores);
- options: ``--ek-gold FILE``, ``--ek-report DIR`` (ek-otel's JSON report and HTML page over
  every episode captured), ``--ek-pricing FILE``, ``--ek-level``, ``--ek-strategy``,
  ``--ek-task-id-key``;
- one line in the terminal summary: the tasks' verdicts (pass / flaky / fail), and dollars
  with ``--ek-pricing``.

This module imports nothing but pytest and the standard library: the OTel SDK and ek-otel's
scoring are imported when a test asks for the fixture or carries ``ek_trials``, so a run that
uses neither pays nothing (``bench/pytest_startup.py`` measures it).

Example:
    >>> _options_problem(_Options(level="word"))
    "--ek-level must be 'call' or 'arg', got 'word'"
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Optional

import pytest

__all__ = ["ek_trace"]

_SESSION = pytest.StashKey()
_CALL_PASSED = pytest.StashKey()
_TRIALS = pytest.StashKey()
_REPORT_ERROR = pytest.StashKey()


class _Options(NamedTuple):
    gold: Optional[str] = None
    pricing: Optional[str] = None
    report_dir: Optional[str] = None
    level: str = "call"
    strategy: str = "optimal"
    task_id_keys: tuple = ()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("ek-otel", "ek-otel: test agents from their OpenTelemetry traces")
    group.addoption("--ek-gold", metavar="FILE", default=None,
                    help="Gold task file whose task ids ek_trace.score('ID') and the report use.")
    group.addoption("--ek-report", metavar="DIR", default=None,
                    help="Write ek-otel's JSON report (report.json), HTML page (report.html) and "
                         "the session's tasks (gold.jsonl) over every episode captured; two such "
                         "reports compare with `ek-otel compare`.")
    group.addoption("--ek-pricing", metavar="FILE", default=None,
                    help="Pricing file: dollars per episode, and in the summary line.")
    group.addoption("--ek-level", default="call", metavar="call|arg",
                    help="What the F1 counts: whole calls or arguments (default: call).")
    group.addoption("--ek-strategy", default="optimal", metavar="optimal|best_first",
                    help="How calls are paired with gold calls (default: optimal).")
    group.addoption("--ek-task-id-key", action="append", default=[], metavar="KEY",
                    help="Span attribute that holds the task id (repeatable; before ek.task.id).")


def _options(config: Any) -> _Options:
    return _Options(config.getoption("--ek-gold"), config.getoption("--ek-pricing"),
                    config.getoption("--ek-report"), config.getoption("--ek-level"),
                    config.getoption("--ek-strategy"), tuple(config.getoption("--ek-task-id-key")))


def _options_problem(options: _Options) -> Optional[str]:
    if options.level not in ("call", "arg"):
        return f"--ek-level must be 'call' or 'arg', got {options.level!r}"
    if options.strategy not in ("optimal", "best_first"):
        return f"--ek-strategy must be 'optimal' or 'best_first', got {options.strategy!r}"
    for flag, path in (("--ek-gold", options.gold), ("--ek-pricing", options.pricing)):
        if path is not None and not os.path.isfile(path):
            return f"{flag} {path}: no such file"
    if options.report_dir is not None and os.path.exists(options.report_dir) \
            and not os.path.isdir(options.report_dir):
        return f"--ek-report {options.report_dir}: not a directory"
    return None


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "ek_trials(k, *, min_success_rate=None, pass_hat_k=None, j=None): run the test "
        "body k times; it passes when every trial does (pass^k), when a share min_success_rate "
        "of them does, or when pass^j estimated from the k trials is at least pass_hat_k. "
        "Reported as pass, flaky or fail.")
    config.addinivalue_line(
        "markers", "ek_gold(path): the gold file of ek_trace.score('TASK-ID') (relative to the "
        "test file), instead of --ek-gold.")
    config.addinivalue_line(
        "markers", "ek_task(task_id): the task ek_trace.score() scores when given none.")
    problem = _options_problem(_options(config))
    if problem:
        raise pytest.UsageError(problem)


def pytest_unconfigure(config: Any) -> None:
    if config.stash.get(_SESSION, None) is not None:
        from .capture import uninstall

        uninstall()


def _session(config: Any) -> Any:
    """The session's :class:`~ek_otel.testing.session.Session`, made at first use."""
    session = config.stash.get(_SESSION, None)
    if session is None:
        from ..scoring.settings import task_id_key_list
        from .session import Session, SessionOptions

        o = _options(config)
        session = Session(SessionOptions(o.gold, o.pricing, o.report_dir, o.level, o.strategy,
                                         task_id_key_list(o.task_id_keys)))
        config.stash[_SESSION] = session
    return session


def _marker_value(node: Any, name: str) -> Any:
    marker = node.get_closest_marker(name)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.kwargs or not isinstance(marker.args[0], (str, os.PathLike)):
        raise pytest.UsageError(f"{node.nodeid}: @pytest.mark.{name} takes one string argument")
    return os.fspath(marker.args[0])


@pytest.fixture
def ek_trace(request: Any) -> Any:
    """The spans, log records and episodes recorded during this test, with ek-otel's
    assertions (:class:`ek_otel.testing.agent_trace.AgentTrace`)."""
    from .agent_trace import AgentTrace, gold_of_marker

    gold = _marker_value(request.node, "ek_gold")
    if gold is not None:
        gold = gold_of_marker(gold, str(request.node.path))
    trace = AgentTrace(_session(request.config), nodeid=request.node.nodeid, gold=gold,
                       task_id=_marker_value(request.node, "ek_task"))
    yield trace
    trace.close(body_passed=request.node.stash.get(_CALL_PASSED, True))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: Any) -> Optional[bool]:
    marker = pyfuncitem.get_closest_marker("ek_trials")
    if marker is None:
        return None
    from .trials import rule_of_marker, run_trials

    try:
        rule = rule_of_marker(marker.args, marker.kwargs, where=f"{pyfuncitem.nodeid}: ek_trials")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    outcome = run_trials(pyfuncitem, rule, failed_exceptions=(Exception, pytest.fail.Exception),
                         session=_session(pyfuncitem.config),
                         trace=pyfuncitem.funcargs.get("ek_trace"))
    pyfuncitem.stash[_TRIALS] = outcome
    if not outcome.accepted:
        pytest.fail(outcome.message(), pytrace=False)
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed
        outcome = item.stash.get(_TRIALS, None)
        if outcome is not None:
            report.ek_verdict = outcome.verdict
            prop = ("ek_trials", f"{outcome.verdict}: {outcome.passed} of {outcome.rule.k} passed")
            item.user_properties.append(prop)  # JUnit XML: a property of the test case
            report.user_properties.append(prop)
    return report


def pytest_report_teststatus(report: Any, config: Any) -> Any:
    if report.when != "call" or getattr(report, "ek_verdict", None) != "flaky":
        return None
    if report.passed:
        return "flaky", "f", ("FLAKY", {"yellow": True})
    return "failed", "F", ("FAILED (flaky)", {"red": True})


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    config = session.config
    if config.getoption("--ek-report", None) is None:
        return
    from ..errors import EkOtelError

    try:
        _session(config).write_report()
    except EkOtelError as exc:  # a pricing or gold file that cannot be used, a directory
        config.stash[_REPORT_ERROR] = str(exc)
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: Any, config: Any) -> None:
    error = config.stash.get(_REPORT_ERROR, None)
    if error:
        terminalreporter.write_line(f"ek-otel: error: no report written: {error}", red=True)
    session = config.stash.get(_SESSION, None)
    if session is None:
        return
    line = session.summary_line()
    if line is not None:
        terminalreporter.write_line(line)
    if session.report_written:
        what = "" if session.captured else " (no episode was captured in this session: it is empty)"
        terminalreporter.write_line(f"ek-otel: report in {session.report_written}: report.json, "
                                    f"report.html, gold.jsonl{what}")
