"""Multi-turn BFCL entries: the official state checker, and the lighter AST mode.

Note to the runner (bfcl-single): call
``check_multi_turn_entry(entry_id, category, model_result, question_entry,
possible_answer_entry, *, mode=None, style=None, model_name=DEFAULT_MODEL_NAME)``
with ``model_result`` the raw ``result`` field of the result line and the two parsed data
entries (``BfclEntry.question`` / ``BfclEntry.answer``).

- ``mode``: ``"state"`` (official, needs ``bfcl_eval``), ``"ast"``, or None for
  :func:`default_mode`.
- ``style``: ``"fc"``/``"prompting"`` (the model handler's kind), or None to read it from
  the entry (:func:`entry_style`). Best: ``result_file_style([line["result"] for line in
  file])`` once per file, passed to every entry.
- For a failure, ``Verdict.detail`` is the official score line from ``error`` on, in the
  official order and JSON-safe: ``error`` (``error_message``, ``error_type``,
  ``details``...), ``prompt`` (the question entry without its function docs),
  ``model_result_raw``, ``model_result_decoded``, ``possible_answer`` (``model_result``
  instead of the raw and decoded results for ``inference_error`` and
  ``force_terminated``). Only ``inference_log`` is left for the runner to append (the
  official writes ``record.get("inference_log", "")`` on every failed line).

**Decoding** (``_evaluate_single_multi_turn_entry``): every step goes through the
handler's ``decode_execute`` — ``convert_to_function_call`` for function-calling models
(``[{name: "<json>"}]`` → ``name(k=repr(v),...)``), ``default_decode_execute_prompting``
for prompting models. A step that fails to decode, or decodes to nothing, is dropped
(text messages of FC models, for instance). The glyphh-ada-1.1 submission in bfcl-real is
function-calling: every step is a list of ``{name: "<json args>"}``.

**State mode** (``multi_turn_checker``):

- a result that is not a list → ``multi_turn:inference_error``; a different number of
  turns than the answer → ``multi_turn:force_terminated``;
- turn by turn, the model's decoded calls run on its simulated instances and the answer's
  calls on separate ones (:mod:`ek_otel.bfcl.simulator`); then, for a turn whose answer is
  not empty and in this order: no decoded step → ``multi_turn:empty_turn_model_response``;
  a public attribute of an instance differing from the answer's →
  ``multi_turn:instance_state_mismatch``; this turn's answer results not all found, as a
  multiset, among the model's results of all turns so far →
  ``multi_turn:execution_response_mismatch``. Turns with an empty answer are never checked
  (their calls still run). The first failure decides.
- ``missed_function`` (miss_func) and the held-out parameters (miss_param) only shape the
  prompts at inference: every method of the involved classes runs in every turn, and
  the turn whose answer is empty (the function or parameter is missing) is not checked
  (``multi_turn_irrelevance_checker`` exists but the official runner never calls it).

**Leaks.** The official run shares state between checks in three ways; ek-otel checks
each entry as a fresh official process would (:mod:`ek_otel.bfcl.simulator`):

1. instances are cached in module globals keyed by model and entry id, so checking the
   same entry twice in one process starts from the first check's final state (re-running
   the official checker on bfcl-real in the same process changes 2 to 6 verdicts per
   category);
2. ``TwitterAPI.post_tweet(tags=[], mentions=[])`` has mutable default lists that
   ``mention`` extends, so every later tweet of the process carries earlier mentions
   (bfcl-real's official multi_turn_base details show ``"VehicleGuru"``, mentioned by the
   model in multi_turn_miss_param_53, in tweets of later entries). What the official
   reports thus depends on which entries ran before in the process (its category order
   follows the file system's ``rglob`` order);
3. TravelAPI's long-context credit cards and bookings are module-level dicts referenced,
   not copied, by every instance.

None of this changes a bfcl-real verdict: every verdict and error type of the 800
multi-turn entries is reproduced, and with fresh state per entry the official checker and
ek-otel agree on every error dict (details and execution results included) and on all
10,377 call results.

**AST mode** (not official; the BFCL playbook's lighter mode, no simulator): each turn's
decoded calls are compared in order with the answer's call strings, both parsed with
:mod:`ast` (positional answer arguments bound to parameter names from the function docs).
``detail`` gets ``turn_exact`` (one bool per turn; a turn with an empty answer is exact
when the model made no call), ``episode_success`` and ``tool_recall`` (the share of answer
calls whose function the model called in the same turn, as a multiset). Valid = every turn
exact; the error type is ``multi_turn:empty_turn_model_response`` or
``multi_turn_ast:turn_mismatch``.

Example:
    >>> answer = {"id": "multi_turn_base_9", "ground_truth": [["cd(folder='a')"], []]}
    >>> question = {"id": "multi_turn_base_9", "involved_classes": ["GorillaFileSystem"],
    ...             "initial_config": {}}
    >>> result = [[[{"cd": '{"folder": "a"}'}]], [["I cannot do that."]]]
    >>> v = check_multi_turn_entry("multi_turn_base_9", "multi_turn_base", result, question,
    ...                            answer, mode="ast")
    >>> v.valid, v.detail["turn_exact"], v.detail["tool_recall"]
    (True, [True, True], 1.0)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from .decode import DecodeError, decode_execute, parse_call
from .score_files import json_safe
from .simulator import (
    DEFAULT_MODEL_NAME,
    SimulatedPair,
    instance_differences,
    simulator_available,
)
from .verdict import Verdict

__all__ = [
    "MODES",
    "default_mode",
    "entry_style",
    "result_file_style",
    "decode_multi_turn_result",
    "check_multi_turn_entry",
    "check_state",
    "check_ast",
    "unordered_missing",
]

MODES = ("state", "ast")

_INFERENCE_ERROR = "Error during inference phase. Model did not output a list of model responses."


def default_mode() -> str:
    """``"state"`` when ``bfcl_eval``'s simulated APIs import, else ``"ast"``.

    Example:
        >>> default_mode() in MODES
        True
    """
    return "state" if simulator_available() else "ast"


def entry_style(model_result: Any) -> str:
    """The handler kind a multi-turn/agentic result was written by.

    ``"fc"`` when any step is a list or dict of calls, else ``"prompting"`` (all steps are
    strings). Only an FC entry made of text alone is misread (as prompting, where a text
    that parses as calls would count as calls): prefer :func:`result_file_style`.

    Example:
        >>> entry_style([[[{"ls": "{}"}], ["done"]]]), entry_style([["[ls()]", "done"]])
        ('fc', 'prompting')
    """
    for turn in model_result if isinstance(model_result, list) else ():
        for step in turn if isinstance(turn, list) else ():
            if isinstance(step, (list, dict)):
                return "fc"
    return "prompting"


def result_file_style(results: Iterable[Any]) -> str:
    """The handler kind of a whole result file: ``"fc"`` if any entry has a call list.

    Deciding per file (rather than per entry) keeps an FC model's all-text entry FC.

    Example:
        >>> result_file_style([[[["All done."]]], [[[{"ls": "{}"}]]]])
        'fc'
    """
    return "fc" if any(entry_style(result) == "fc" for result in results) else "prompting"


def _is_empty_execute_response(decoded: list) -> bool:
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


def decode_multi_turn_result(model_result: list, style: str) -> list:
    """Turns → decoded steps → call strings, dropping steps that fail or decode to nothing.

    Example:
        >>> decode_multi_turn_result([[[{"ls": "{}"}], "Listing done."], [[]]], "fc")
        [[['ls()']], []]
    """
    decoded_turns = []
    for turn in model_result:
        steps = []
        try:
            items = list(turn)
        except TypeError:
            items = []
        for step in items:
            try:
                calls = decode_execute(step, style)
            except Exception:  # the official drops a step on any decoding error
                continue
            if _is_empty_execute_response(calls):
                continue
            steps.append(calls)
        decoded_turns.append(steps)
    return decoded_turns


def unordered_missing(expected: Iterable[Any], found: Iterable[Any]) -> list:
    """The items of ``expected`` not in ``found``, as multisets (``_is_subsequence_unordered``).

    Example:
        >>> unordered_missing(["a", "a", "b"], ["b", "a", "c"])
        ['a']
    """
    pool, missing = list(found), []
    for item in expected:
        (pool.remove if item in pool else missing.append)(item)
    return missing


def _failure(entry_id: str, category: str, error_type: str, message: Any,
             fields: Mapping[str, Any], *, error_extra: Optional[Mapping[str, Any]] = None
             ) -> Verdict:
    """A failed verdict whose ``detail`` is the official score line after ``valid``."""
    error = {"error_message": message, "error_type": error_type, **(error_extra or {})}
    messages = tuple(message) if isinstance(message, list) else (message,)
    return Verdict(id=entry_id, category=category, valid=False, error_type=error_type,
                   errors=messages, detail=json_safe({"error": error, **fields}))


def _prompt(question_entry: Mapping[str, Any]) -> dict:
    """The question entry as the score file prints it (without its function docs)."""
    return {k: v for k, v in question_entry.items() if k != "function"}


def check_multi_turn_entry(entry_id: str, category: str, model_result: Any,
                           question_entry: Mapping[str, Any],
                           possible_answer_entry: Mapping[str, Any], *,
                           mode: Optional[str] = None, style: Optional[str] = None,
                           model_name: str = DEFAULT_MODEL_NAME) -> Verdict:
    """Check one multi-turn entry, as ``_evaluate_single_multi_turn_entry`` does.

    ``mode`` is ``"state"`` (official) or ``"ast"``; None picks :func:`default_mode`.
    ``style`` is the handler kind (``"fc"``/``"prompting"``), None to infer it.

    Example:
        >>> answer = {"ground_truth": [["ls()"], ["pwd()"]]}
        >>> check_multi_turn_entry("multi_turn_base_1", "multi_turn_base", [[["ls()"]]],
        ...                        {"involved_classes": []}, answer, mode="ast").error_type
        'multi_turn:force_terminated'
        >>> check_multi_turn_entry("multi_turn_base_1", "multi_turn_base", "oops",
        ...                        {}, answer, mode="ast").error_type
        'multi_turn:inference_error'
    """
    if mode is None:
        mode = default_mode()
    if mode not in MODES:
        raise ValueError(f"unknown multi-turn mode {mode!r} (expected one of {MODES})")
    ground_truth = list(possible_answer_entry["ground_truth"])
    prompt = _prompt(question_entry)
    early = {"prompt": prompt, "model_result": model_result, "possible_answer": ground_truth}
    if type(model_result) is not list:
        return _failure(entry_id, category, "multi_turn:inference_error", [_INFERENCE_ERROR],
                        early)
    if len(model_result) != len(ground_truth):
        message = (
            "Model was force-terminated during inference phase. The length of the model "
            f"result turns ({len(model_result)}) does not match the length of the ground "
            f"truth turns ({len(ground_truth)})."
        )
        return _failure(entry_id, category, "multi_turn:force_terminated", [message], early)
    decoded = decode_multi_turn_result(model_result, style or entry_style(model_result))
    fields = {"prompt": prompt, "model_result_raw": model_result,
              "model_result_decoded": decoded, "possible_answer": ground_truth}
    if mode == "state":
        return check_state(entry_id, category, decoded, ground_truth, question_entry,
                           model_name=model_name, fields=fields)
    return check_ast(entry_id, category, decoded, ground_truth, question_entry, fields=fields)


def check_state(entry_id: str, category: str, decoded: list, ground_truth: list,
                question_entry: Mapping[str, Any], *, model_name: str = DEFAULT_MODEL_NAME,
                fields: Optional[Mapping[str, Any]] = None) -> Verdict:
    """The official ``multi_turn_checker`` on decoded turns (needs ``bfcl_eval``).

    Raises :class:`~ek_otel.bfcl.simulator.SimulatorUnavailable` when the simulated APIs
    cannot be imported.

    Example:
        >>> q = {"involved_classes": [], "initial_config": {}}  # no simulated class needed
        >>> check_state("multi_turn_base_5", "multi_turn_base", [[["ls()"]]], [["ls()"]],
        ...             q).valid  # both sides get the same NameError string
        True
        >>> check_state("multi_turn_base_5", "multi_turn_base", [[["ls()"]]], [["pwd()"]],
        ...             q).error_type
        'multi_turn:execution_response_mismatch'
        >>> check_state("multi_turn_base_5", "multi_turn_base", [[["ls()"]], []],
        ...             [["ls()"], ["pwd()"]], q).errors
        ('Model response list is empty for turn 1',)

    """
    fields = dict(fields or {})
    pair = SimulatedPair.create(question_entry.get("involved_classes", []),
                                question_entry.get("initial_config", {}) or {},
                                entry_id=entry_id, model_name=model_name)
    execution_log = []
    all_model_results: list = []
    for turn_index, turn_answer in enumerate(ground_truth):
        turn_steps = decoded[turn_index]
        per_step = [pair.model.execute(calls) for calls in turn_steps]
        truth_results = pair.ground_truth.execute(turn_answer)
        for results in per_step:
            all_model_results.extend(results)
        execution_log.append({"model": per_step, "ground_truth": truth_results})
        if not turn_answer:
            continue
        if not turn_steps or _is_empty_execute_response(turn_steps):
            return _failure(entry_id, category, "multi_turn:empty_turn_model_response",
                            f"Model response list is empty for turn {turn_index}", fields,
                            error_extra={"details": {"execution_result": execution_log}})
        for class_name, truth_instance in pair.ground_truth.instances.items():
            differences = instance_differences(pair.model.instances[class_name],
                                               truth_instance)
            if differences:
                return _failure(
                    entry_id, category, "multi_turn:instance_state_mismatch",
                    f"Model instance for {class_name} does not match the state with ground "
                    "truth instance.",
                    fields,
                    error_extra={"details": {
                        "differences": differences,
                        "model_instance_state": _public_state(pair.model.instances[class_name]),
                        "ground_truth_instance_state": _public_state(truth_instance),
                    }, "execution_result": execution_log},
                )
        missing = unordered_missing(truth_results, all_model_results)
        if missing:
            return _failure(
                entry_id, category, "multi_turn:execution_response_mismatch",
                "Model response execution results so far does not contain all the ground "
                f"truth response execution results for turn {turn_index}.",
                fields,
                error_extra={"details": {
                    "missing_items": missing,
                    "model_response (including all previous turns)": list(all_model_results),
                    "ground_truth_response (only the current turn)": truth_results,
                }},
            )
    return Verdict(id=entry_id, category=category, valid=True)


def _public_state(instance: Any) -> dict:
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


# ---------------------------------------------------------------------------
# AST mode
# ---------------------------------------------------------------------------


def _parameter_order(question_entry: Mapping[str, Any]) -> dict:
    """Function name → its parameter names in doc order (held-out miss_func docs included)."""
    docs = list(question_entry.get("function", []) or [])
    for held_out in (question_entry.get("missed_function") or {}).values():
        docs.extend(d for d in held_out if isinstance(d, dict))
    order = {}
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        properties = (doc.get("parameters") or {}).get("properties") or {}
        order.setdefault(str(doc.get("name", "")).split(".")[-1], list(properties))
    return order


def _normalized_call(text: str, parameter_order: Mapping[str, list]) -> tuple:
    """``(name, sorted kwargs)`` of a call string; positional args bound by doc order."""
    try:
        name, kwargs, positional = parse_call(text)
    except DecodeError:
        return (text, ())
    names = parameter_order.get(name.split(".")[-1], [])
    bound = dict(kwargs)
    for index, value in enumerate(positional):
        key = names[index] if index < len(names) else f"#{index}"
        bound.setdefault(key, value)
    return (name, tuple(sorted((k, repr(v)) for k, v in bound.items())))


def check_ast(entry_id: str, category: str, decoded: list, ground_truth: list,
              question_entry: Mapping[str, Any], *,
              fields: Optional[Mapping[str, Any]] = None) -> Verdict:
    """AST mode: each turn's calls compared in order with the answer's (not official).

    Example:
        >>> q = {"function": [{"name": "sort", "parameters": {"properties": {"file_name": {}}}}]}
        >>> v = check_ast("multi_turn_base_2", "multi_turn_base",
        ...               [[["sort(file_name='a.txt')"]], [["ls()"]]],
        ...               [["sort('a.txt')"], ["pwd()"]], q)
        >>> v.valid, v.error_type, v.detail["turn_exact"], v.detail["tool_recall"]
        (False, 'multi_turn_ast:turn_mismatch', [True, False], 0.5)
    """
    fields = dict(fields or {})
    order = _parameter_order(question_entry)
    turn_exact = []
    expected_total = 0
    recalled = 0
    first_error: Optional[tuple] = None
    for turn_index, turn_answer in enumerate(ground_truth):
        steps = decoded[turn_index]
        model_calls = [_normalized_call(c, order) for calls in steps for c in calls]
        answer_calls = [_normalized_call(c, order) for c in turn_answer]
        exact = model_calls == answer_calls
        turn_exact.append(exact)
        expected_total += len(answer_calls)
        recalled += len(answer_calls) - len(
            unordered_missing([c[0] for c in answer_calls], [c[0] for c in model_calls]))
        if first_error is None and not exact:
            if turn_answer and not steps:
                first_error = ("multi_turn:empty_turn_model_response",
                               f"Model response list is empty for turn {turn_index}")
            else:
                first_error = ("multi_turn_ast:turn_mismatch",
                               f"Model calls differ from the ground truth at turn {turn_index}.")
    tool_recall = recalled / expected_total if expected_total else 1.0
    scores = {"turn_exact": turn_exact, "episode_success": first_error is None,
              "tool_recall": tool_recall}
    if first_error is not None:
        return _failure(entry_id, category, first_error[0], first_error[1],
                        {**fields, **scores})
    return Verdict(id=entry_id, category=category, valid=True, detail=scores)
