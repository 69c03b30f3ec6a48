"""JUnit XML of a run (``ek-otel score --junit``) and of a comparison (``ek-otel compare
--junit``): the gates where CI systems show test results (written with junitparser).

**A run**: one test case per task (class ``ek-otel.<slice>``; one suite per run when the
report holds runs that must not be pooled). A ``pass`` task passes; a
``flaky`` one fails with ``type="flaky"`` and a ``fail`` one with ``type="fail"``; the
failure message gives the verdict, the trials and the first explanation of a failed trial,
and its text every distinct explanation kept. The suite's properties carry the headline.

**A comparison**: one test case per shared task, failing (``type="regressed"``) when its
success rate dropped, with both verdicts; a tasks only in one run is skipped, named; and a
test case ``paired test`` that fails when the candidate is significantly worse and is
skipped, with the reason, when there are too few tasks for any result to be significant.

Example:
    >>> from ek_otel.report.model import report_from_dict
    >>> r = report_from_dict({"aggregate": {}, "per_task": {"t": {"episodes": 2, "successes": 1}}}, "r")
    >>> xml = run_junit(r, {"t": ["wrong city"]})
    >>> case = next(iter(next(iter(xml))))
    >>> case.name, case.result[0].type, case.result[0].message
    ('t', 'flaky', 'flaky: 1 of 2 trials succeeded; wrong city')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import junitparser

from ..errors import InputError
from .compare import Comparison
from .model import RunReport

__all__ = ["run_junit", "comparison_junit", "write_junit", "xml_text"]

_MESSAGE_CHARS = 500
# Characters XML 1.0 cannot hold (C0 controls but tab/newline/CR, surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: Any, limit: int = 0) -> str:
    """Text an XML file can hold: characters XML 1.0 forbids become U+FFFD; cut at ``limit``.

    Example:
        >>> xml_text("a\\x00b" + "c" * 10, limit=5)
        'a\\ufffdbc…'
    """
    text = _NOT_XML.sub("\ufffd", str(value))
    if limit and len(text) > limit:
        text = text[:limit - 1] + "…"
    return text


def _trials(successes: int, trials: int) -> str:
    return f"{successes} of {trials} trial{'s' if trials != 1 else ''} succeeded"


def _failure(message: str, kind: str, texts: Sequence[str]) -> junitparser.Failure:
    failure = junitparser.Failure(xml_text(message, _MESSAGE_CHARS), kind)
    if texts:
        failure.text = xml_text("\n".join(texts))
    return failure


def _case(name: str, classname: str) -> junitparser.TestCase:
    return junitparser.TestCase(xml_text(name), xml_text(classname))


def _run_suite(name: str, tasks: Sequence[Any], head: Mapping[str, Any], gold_sha256: str,
               explanations: Mapping[str, Sequence[str]]) -> junitparser.TestSuite:
    suite = junitparser.TestSuite(xml_text(name))
    suite.add_property("headline", xml_text(head["text"]))
    if gold_sha256:
        suite.add_property("gold_sha256", gold_sha256)
    for task in tasks:
        counts = task.counts
        case = _case(task.task_id, f"ek-otel.{task.slice}" if task.slice else "ek-otel")
        verdict = counts.verdict or "fail"
        texts = list(explanations.get(task.task_id, ()))
        message = f"{verdict}: {_trials(counts.successes, counts.episodes)}"
        if verdict == "pass":
            case.system_out = xml_text(message)
        else:
            case.result = [_failure(message + (f"; {texts[0]}" if texts else ""), verdict, texts)]
        suite.add_testcase(case)
    return suite


def _headline(data: Any, tasks: Sequence[Any]) -> Mapping[str, Any]:
    from ..core.verdicts import headline_of

    if isinstance(data, Mapping) and data.get("text"):
        return data
    return headline_of((t.counts.episodes, t.counts.successes) for t in tasks).to_dict()


def run_junit(report: RunReport, explanations: Mapping[str, Sequence[str]], *,
              command: str = "score",
              group_explanations: Sequence[Mapping[str, Sequence[str]]] = ()) -> junitparser.JUnitXml:
    """The JUnit XML of a JSON report; ``explanations``: task id -> explanations of failed
    trials (:func:`~ek_otel.report.model.failing_explanations`); ``command`` names the suite.

    A report of runs that must not be pooled (provenance groups) gets one suite per run
    (``group_explanations[i]``: the explanations of group ``i``), never one pooled suite.
    """
    xml = junitparser.JUnitXml("ek-otel")
    if report.groups:
        for i, group in enumerate(report.groups):
            data = report.data["groups"][i] if isinstance(report.data.get("groups"), list) else {}
            xml.add_testsuite(_run_suite(
                f"ek-otel {command}: {group.label}", group.tasks,
                _headline(data.get("headline") if isinstance(data, Mapping) else None, group.tasks),
                report.gold_sha256,
                group_explanations[i] if i < len(group_explanations) else {}))
        return xml
    xml.add_testsuite(_run_suite(f"ek-otel {command}", report.tasks,
                                 _headline(report.data.get("headline"), report.tasks),
                                 report.gold_sha256, explanations))
    return xml


def comparison_junit(comparison: Comparison,
                     explanations: Mapping[str, Sequence[str]]) -> junitparser.JUnitXml:
    """The JUnit XML of a comparison; ``explanations``: the candidate's, per task.

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> from ek_otel.report.stats import TaskCounts
        >>> xml = comparison_junit(compare_tasks({"a": TaskCounts(2, 2)}, {"a": TaskCounts(2, 0)}), {})
        >>> [(c.name, c.result[0].type if c.result else None) for c in next(iter(xml))]
        [('a', 'regressed'), ('paired test', None)]
    """
    suite = junitparser.TestSuite("ek-otel compare")
    suite.add_property("base", xml_text(comparison.base_label))
    suite.add_property("candidate", xml_text(comparison.candidate_label))
    for change in comparison.changes:
        case = _case(change.task_id, f"ek-otel.{change.slice}" if change.slice else "ek-otel")
        base, cand = change.base, change.candidate
        message = (f"{change.status}: success {base.rate:.3f} -> {cand.rate:.3f} "
                   f"({base.verdict} -> {cand.verdict})")
        texts = list(explanations.get(change.task_id, ()))
        if change.status == "regressed":
            case.result = [_failure(message + (f"; {texts[0]}" if texts else ""), "regressed",
                                    texts)]
        else:
            case.system_out = xml_text(message)
        suite.add_testcase(case)
    for label, tasks in (("base", comparison.only_in_base),
                         ("candidate", comparison.only_in_candidate)):
        for task_id in tasks:
            case = _case(task_id, "ek-otel")
            case.result = [junitparser.Skipped(f"only in the {label}")]
            suite.add_testcase(case)
    test = comparison.test
    case = _case("paired test", "ek-otel.significance")
    if test.result == "significantly worse":
        case.result = [_failure(test.text, "significantly worse", ())]
    elif test.result == "too few tasks":
        case.result = [junitparser.Skipped(xml_text(test.text))]
    else:
        case.system_out = xml_text(test.text)
    suite.add_testcase(case)
    xml = junitparser.JUnitXml("ek-otel")
    xml.add_testsuite(suite)
    return xml


def write_junit(xml: junitparser.JUnitXml, path: str) -> str:
    """Write the XML file and return the line that names it (for stderr).

    Raises:
        InputError: the file cannot be written (names it).

    Example:
        >>> import os, tempfile
        >>> from ek_otel.report.compare import compare_tasks
        >>> p = os.path.join(tempfile.mkdtemp(), "c.xml")
        >>> write_junit(comparison_junit(compare_tasks({}, {}), {}), p).endswith("0 failures)")
        True
    """
    xml.update_statistics()
    try:
        xml.write(path, pretty=True)
    except OSError as exc:
        raise InputError(f"cannot write the JUnit file: {exc.strerror or exc}", path=path) from None
    cases = sum(suite.tests for suite in xml)
    failures = sum(suite.failures for suite in xml)
    return (f"wrote {path} (JUnit XML: {cases} test case{'s' if cases != 1 else ''}, "
            f"{failures} failure{'s' if failures != 1 else ''})")
