"""ek-otel's AST checker and decoder agree with the official ones on outputs nobody has seen.

For every entry of every single-turn AST category, model outputs are built from the
possible answer (one allowed value per parameter) and then perturbed by a seeded
generator: values nudged, retyped, re-cased, dropped or added; calls renamed, reordered,
duplicated or dropped. Each output is checked by ``ek_otel.bfcl.ast_checker.check_ast``
and by the official ``ast_checker``: validity, error type and error messages must agree.
The decoder is compared on prompting strings rendered from the same outputs.
"""

from __future__ import annotations

import copy
import random

import pytest

from ek_otel.bfcl.ast_checker import check_ast, standardize_string
from ek_otel.bfcl.categories import SINGLE_TURN, checker_kind, language_of
from ek_otel.bfcl.decode import DecodeError, decode_prompting
from ek_otel.bfcl.official import official_language

AST_CATEGORIES = [c for c in SINGLE_TURN if checker_kind(c) == "ast"]
VARIANTS_PER_ENTRY = 6


# ---------------------------------------------------------------------------
# A seeded generator of model outputs
# ---------------------------------------------------------------------------


def _pick(rng, allowed):
    options = [a for a in allowed if a != ""] or [""]
    return copy.deepcopy(rng.choice(options))


def _nudge_scalar(rng, value):
    choice = rng.randrange(9)
    if isinstance(value, bool):
        return [not value, int(value), str(value).lower(), None][choice % 4]
    if isinstance(value, int):
        return [value + 1, float(value), str(value), True, -value, value][choice % 6]
    if isinstance(value, float):
        return [value + 0.5, int(value), str(value), float(int(value)), value][choice % 5]
    if isinstance(value, str):
        return [value.upper(), value + ".", f" {value} ", value.replace(" ", "_"),
                value[:-1], 7, value + "x", value.replace("'", '"'), value][choice]
    return value


def _nudge(rng, value):
    if isinstance(value, list):
        choice = rng.randrange(7)
        if choice == 0 and value:
            return value[:-1]
        if choice == 1:
            return list(reversed(value))
        if choice == 2:
            return tuple(value)
        if choice == 3:
            return []
        if choice == 4 and value:
            i = rng.randrange(len(value))
            return value[:i] + [_nudge(rng, value[i])] + value[i + 1:]
        if choice == 5:
            return [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value
    if isinstance(value, dict):
        choice = rng.randrange(4)
        out = dict(value)
        if choice == 0 and out:
            out.pop(rng.choice(list(out)))
        elif choice == 1:
            out["extra_key"] = "x"
        elif choice == 2 and out:
            key = rng.choice(list(out))
            out[key] = _nudge(rng, out[key])
        return out
    return _nudge_scalar(rng, value)


def _concrete(rng, allowed_by_param):
    """One value per parameter from the allowed lists (dict answers are resolved inside)."""
    args = {}
    for param, allowed in allowed_by_param.items():
        value = _pick(rng, allowed)
        if value == "" and rng.random() < 0.8:
            continue
        if isinstance(value, dict):
            value = {k: _pick(rng, v) for k, v in value.items() if isinstance(v, list)}
            value = {k: v for k, v in value.items() if v != ""}
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            value = [{k: _pick(rng, v) for k, v in d.items() if isinstance(v, list)} for d in value]
        args[param] = value
    return args


def _java_js_text(rng, value):
    """Source text for a Java/JavaScript value (BFCL answers hold converted values)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return rng.choice([str(value), f"{value}L", f"{value}f", f"{value}n"])
    return str(value)


def model_outputs(rng, entry):
    """The perfect output, then perturbed variants."""
    answers = entry.ground_truth
    docs = {d["name"]: d for d in entry.functions}
    java_js = language_of(entry.category) != "python"
    perfect = []
    for answer in answers:
        name, allowed = next(iter(answer.items()))
        args = _concrete(rng, allowed)
        if java_js:
            args = {k: _java_js_text(rng, v) for k, v in args.items()}
        perfect.append({name: args})
    outputs = [perfect]
    for _ in range(VARIANTS_PER_ENTRY):
        calls = copy.deepcopy(perfect)
        for _ in range(rng.randrange(1, 3)):
            kind = rng.randrange(10)
            if not calls:
                break
            index = rng.randrange(len(calls))
            name, args = next(iter(calls[index].items()))
            props = list(docs.get(name, {}).get("parameters", {}).get("properties", {}))
            if kind <= 3 and args:
                key = rng.choice(list(args))
                args[key] = _nudge(rng, args[key])
                if java_js and rng.random() < 0.7:
                    args[key] = _java_js_text(rng, args[key]) if not isinstance(args[key], str) else args[key]
            elif kind == 4 and args:
                args.pop(rng.choice(list(args)))
            elif kind == 5:
                extra = [p for p in props if p not in args]
                args[rng.choice(extra) if extra else "unexpected_arg"] = "x"
            elif kind == 6:
                calls[index] = {name.replace(".", "_") + rng.choice(["", "_v2"]): args}
            elif kind == 7:
                rng.shuffle(calls)
            elif kind == 8:
                calls.append(copy.deepcopy(calls[index]))
            else:
                calls.pop(index)
        outputs.append(calls)
    return outputs


def _official(checker, entry, calls):
    try:
        result = checker(entry.functions, calls, entry.ground_truth,
                         official_language(entry.category), entry.category, "model")
    except Exception as exc:  # noqa: BLE001 - the official code crashes on some inputs
        return ("crash", type(exc).__name__)
    return (result["valid"], result.get("error_type") if not result["valid"] else None,
            list(result["error"]) if not result["valid"] else [])


def _mine(entry, calls):
    try:
        failure = check_ast(entry.functions, calls, entry.ground_truth, entry.category)
    except Exception as exc:  # noqa: BLE001 - compared with the official crash
        return ("crash", type(exc).__name__)
    if failure is None:
        return (True, None, [])
    return (False, failure.error_type, list(failure.errors))


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_checker_agrees_with_official_on_perturbed_outputs(bfcl_data, official_checker, category):
    rng = random.Random(f"ek-otel-{category}")
    disagreements = []
    checked = 0
    kinds = set()
    for entry in bfcl_data.entries(category):
        for calls in model_outputs(rng, entry):
            official = _official(official_checker, entry, copy.deepcopy(calls))
            if official[0] == "crash":
                continue  # no official verdict to agree with
            mine = _mine(entry, copy.deepcopy(calls))
            checked += 1
            kinds.add(official[1])
            if mine != official:
                disagreements.append((entry.id, calls, official, mine))
    assert checked > 0
    assert len(kinds) > 2, "the generator must exercise several error types"
    assert disagreements == []


def _render(value):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render(k)}: {_render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_render(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _prompting_text(rng, calls):
    parts = []
    for call in calls:
        name, args = next(iter(call.items()))
        rendered = [f"{k}={_render(v)}" for k, v in args.items()]
        if rng.random() < 0.2:
            rendered.insert(0, "1")  # a positional argument (dropped by the decoder)
        if rng.random() < 0.1 and args:
            rendered[-1] = rendered[-1].split("=")[0] + "=some_name"  # a bare name
        if rng.random() < 0.1 and args:
            rendered[-1] = rendered[-1].split("=")[0] + "=2**3+1"  # arithmetic
        if rng.random() < 0.05:
            rendered.append("x=(")  # broken syntax
        parts.append(f"{name}({', '.join(rendered)})")
    text = ", ".join(parts)
    wrap = rng.randrange(4)
    return ["[" + text + "]", text, "```\n[" + text + "]\n```", " " + text + " "][wrap]


@pytest.mark.parametrize("category", [c for c in AST_CATEGORIES if language_of(c) == "python"])
def test_python_decoder_agrees_with_official(bfcl_data, official_checker, category):
    from bfcl_eval.constants.enums import ReturnFormat

    try:
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    except ImportError as exc:
        pytest.skip(f"the official decoder needs {exc.name} (tree_sitter, tenacity, ...)")

    rng = random.Random(f"ek-otel-decode-{category}")
    disagreements = []
    for entry in bfcl_data.entries(category)[:200]:
        for calls in model_outputs(rng, entry)[:3]:
            text = _prompting_text(rng, calls)
            try:
                official = ("ok", default_decode_ast_prompting(text, ReturnFormat.PYTHON))
            except Exception:  # noqa: BLE001 - any failure is "decoder_failed"
                official = ("failed", None)
            try:
                mine = ("ok", decode_prompting(text, "python"))
            except DecodeError:
                mine = ("failed", None)
            if mine != official:
                disagreements.append((text, official, mine))
    assert disagreements == []


def test_standardize_string_matches_the_official_regex(official_checker):
    from bfcl_eval.eval_checker.ast_eval.ast_checker import standardize_string as official

    rng = random.Random(3)
    alphabet = "aZ ,./-_*^'\"!?:;()ßẞΣσς İi0-9é\u00a0\t"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        assert standardize_string(text) == official(text), text
