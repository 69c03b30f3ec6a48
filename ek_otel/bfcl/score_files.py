"""Score files in the official layout: ``<dir>/<model>/<group>/BFCL_v4_<category>_score.json``.

Each file is JSON Lines: the header ``{"accuracy", "correct_count", "total_count"}``, then
one line per failed entry: ``id, model_name, test_category, valid`` followed by the
verdict's ``detail`` (the official fields, in the official order). A verdict without
``detail`` gets ``error`` and ``error_type``. Values that JSON cannot hold are written as
their ``str()``, as the official ``make_json_serializable`` does.

Example:
    >>> import tempfile, os
    >>> from ek_otel.bfcl.runner import CategoryScore
    >>> from ek_otel.bfcl.verdict import Verdict
    >>> out = tempfile.mkdtemp()
    >>> bad = Verdict("parallel_1", "parallel", False, "x:y", ("msg",))
    >>> path = write_score_file(out, CategoryScore("m", "parallel", 1, 2), [bad])
    >>> os.path.relpath(path, out)
    'm/non_live/BFCL_v4_parallel_score.json'
    >>> print(open(path).read().strip())
    {"accuracy": 0.5, "correct_count": 1, "total_count": 2}
    {"id": "parallel_1", "model_name": "m", "test_category": "parallel", "valid": false, "error": ["msg"], "error_type": "x:y"}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from ..core.text import utf8_bytes
from .categories import VERSION_PREFIX, score_subdir
from .verdict import Verdict

__all__ = ["score_line", "line_text", "write_score_file", "write_score_dir", "json_safe"]


def json_safe(value: Any) -> Any:
    """Make ``value`` JSON-serializable the official way (unserializable leaves -> ``str``).

    Example:
        >>> json_safe({"a": (1, 2), "b": [{1, 2}]})
        {'a': (1, 2), 'b': ['{1, 2}']}
    """
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    try:
        json.dumps(value, ensure_ascii=False)
        return value
    except (TypeError, ValueError):
        return str(value)


def score_line(verdict: Verdict, model: str) -> dict:
    """The official score-file line of a failed verdict.

    Example:
        >>> score_line(Verdict("a_1", "a", False, "t", ("m",)), "mod")["error_type"]
        't'
    """
    line = {"id": verdict.id, "model_name": model, "test_category": verdict.category,
            "valid": verdict.valid}
    if verdict.detail:
        line.update(verdict.detail)
    else:
        line["error"] = list(verdict.errors)
        line["error_type"] = verdict.error_type
    return line


#: ``json.dumps(value, ensure_ascii=False, default=str)``, the official line format, without
#: building an encoder per line. Without the circular-reference bookkeeping: the same text
#: for every acyclic value (and decoded JSON and Python literals are acyclic).
_encode = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False).encode


def line_text(verdict: Verdict, model: str) -> bytes:
    r"""The score-file line of a failed verdict, UTF-8: the official ``json.dumps(line,
    ensure_ascii=False)``.

    The prompt (the question, function docs included) is most of a line's text and of the
    time to write it. When the verdict keeps the data line it was read from
    (``prompt_line``: vetted data, whose lines ``json.dumps`` wrote with its default
    ``ensure_ascii=True``) and that line holds no ``\u`` escape, the line is already the
    text ``ensure_ascii=False`` gives, and is written as it is.

    Example:
        >>> v = Verdict("a_1", "a", False, "t", ("m",), {"error": ["m"], "prompt": {"q": "é"}})
        >>> line_text(v, "mod").decode()
        '{"id": "a_1", "model_name": "mod", "test_category": "a", "valid": false, "error": ["m"], "prompt": {"q": "é"}}'
        >>> from dataclasses import replace
        >>> line_text(replace(v, prompt_line=br'{"q": "\u00e9"}'), "mod") == line_text(v, "mod")
        True
        >>> v = replace(v, detail={"error": ["m"], "prompt": {"q": 1}})
        >>> line_text(replace(v, prompt_line=b'{"q": 1}'), "mod") == line_text(v, "mod")
        True
    """
    return b"".join(_line_parts(verdict, model))


def _line_parts(verdict: Verdict, model: str) -> list:
    """:func:`line_text` in pieces, joined once with the whole file."""
    line = score_line(verdict, model)
    prompt = verdict.prompt_line
    if prompt is not None:
        prompt = bytes(prompt)  # a memoryview of a data file: this line's bytes
    if prompt is None or b"\\u" in prompt or "prompt" not in line:
        # default=str is make_json_serializable's leaf rule, without a full walk
        return [utf8_bytes(_encode(line))]
    head: dict = {}
    tail: dict = {}
    part = head
    for key, value in line.items():
        if key == "prompt":
            part = tail
        else:
            part[key] = value
    parts = [utf8_bytes(_encode(head)[:-1]), b', "prompt": ', prompt]
    parts.append(b", " + utf8_bytes(_encode(tail)[1:]) if tail else b"}")
    return parts


def write_score_file(score_dir: str, score: Any, verdicts: Iterable[Verdict]) -> str:
    """Write one category's score file; returns its path.

    ``score`` is a :class:`~ek_otel.bfcl.runner.CategoryScore` (model, category, header).
    """
    directory = os.path.join(score_dir, score.model, score_subdir(score.category))
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{VERSION_PREFIX}_{score.category}_score.json")
    model = score.model
    parts = [utf8_bytes(json.dumps(score.header(), ensure_ascii=False)), b"\n"]
    for verdict in verdicts:
        if not verdict.valid:
            parts.extend(_line_parts(verdict, model))
            parts.append(b"\n")
    with open(path, "wb") as handle:
        handle.write(b"".join(parts))
    return path


def write_score_dir(score_dir: str, run: Any) -> list:
    """Write the score files of a whole :class:`~ek_otel.bfcl.runner.BfclRun`.

    Example:
        >>> from ek_otel.bfcl.runner import BfclRun
        >>> write_score_dir("/tmp", BfclRun())
        []
    """
    return [write_score_file(score_dir, score, run.verdicts[(score.model, score.category)])
            for score in run.scores]
