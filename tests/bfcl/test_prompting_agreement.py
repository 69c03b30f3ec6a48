"""Prompting-style results (and odd function-calling ones) get the official verdicts.

The bfcl-real submission is function-calling only, so these inputs are generated: the
possible answers are rendered as call text in Python, Java or JavaScript syntax (spacing,
quotes, nested lists and dicts, ``10L``/``1.5f``/``10n``, ``new ArrayList<>(...)``,
``HashMap`` bodies, template strings, positional arguments, fences, plain text...), then
perturbed by a seeded generator. Each text goes through ek-otel's
:func:`~ek_otel.bfcl.single_turn.check_single_turn` and through the official runner's own
entry functions (``_evaluate_single_ast_entry`` / ``_evaluate_single_relevance_entry``)
with a prompting handler that decodes as every default prompting handler does
(``default_decode_ast_prompting``, tree-sitter for Java and JavaScript).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from ek_otel.bfcl import tree_sitter_calls
from ek_otel.bfcl.categories import SINGLE_TURN, is_relevance, language_of
from ek_otel.bfcl.decode import DecodeError, decode_prompting
from ek_otel.bfcl.single_turn import check_single_turn

ENTRIES_PER_CATEGORY = 120
needs_tree_sitter = pytest.mark.skipif(
    not (tree_sitter_calls.available("java") and tree_sitter_calls.available("javascript")),
    reason="tree-sitter is not installed (pip install tree_sitter==0.21.3 "
           "tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4)")


@pytest.fixture(scope="module")
def official():
    """The official runner and decoders, with prompting and function-calling handlers."""
    from ek_otel.bfcl.official import _Config, official_eval_runner

    runner = official_eval_runner()
    if runner is None:
        pytest.skip("the official eval runner is not importable: "
                    "`pip install --no-deps bfcl-eval==2026.3.23` and its light dependencies")
    from bfcl_eval.constants import model_config
    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting

    class Prompting:
        is_fc_model = False

        def decode_ast(self, result, language, has_tool_call_tag):
            return default_decode_ast_prompting(result, language, has_tool_call_tag)

    class FunctionCalling:
        is_fc_model = True

        def decode_ast(self, result, language, has_tool_call_tag):
            decoded = []
            for invoked in result:
                name = list(invoked.keys())[0]
                decoded.append({name: json.loads(invoked[name])})
            return decoded

    dotted = _Config("qa/dotted-FC")
    dotted.underscore_to_dot = True
    model_config.MODEL_CONFIG_MAPPING["qa/dotted-FC"] = dotted  # found as "qa_dotted-FC"
    formats = {"java": (Language.JAVA, ReturnFormat.JAVA),
               "javascript": (Language.JAVASCRIPT, ReturnFormat.JAVASCRIPT),
               "python": (Language.PYTHON, ReturnFormat.PYTHON)}

    def verdict(entry, result, style="prompting", underscore_to_dot=False):
        handler = Prompting() if style == "prompting" else FunctionCalling()
        model = "qa_dotted-FC" if underscore_to_dot else "qa-model"
        prompt = copy.deepcopy(entry.question)
        if is_relevance(entry.category):
            line = runner._evaluate_single_relevance_entry(
                handler, entry.id, copy.deepcopy(result), prompt, model, entry.category)
        else:
            language, return_format = formats[language_of(entry.category)]
            line = runner._evaluate_single_ast_entry(
                handler, entry.id, copy.deepcopy(result), copy.deepcopy(entry.ground_truth),
                prompt, model, entry.category, language, return_format)
        return line["valid"], line.get("error_type"), line.get("error")

    def decode(text, language):
        try:
            return ("ok", default_decode_ast_prompting(text, formats[language][1]))
        except Exception:  # noqa: BLE001 - any failure is ast_decoder:decoder_failed
            return ("failed",)

    return verdict, decode


def mine(entry, result, style="prompting", underscore_to_dot=False):
    verdict = check_single_turn(entry, copy.deepcopy(result), style=style,
                                underscore_to_dot=underscore_to_dot)
    return verdict.valid, verdict.error_type, (list(verdict.errors) if not verdict.valid else None)


# ---------------------------------------------------------------------------
# Java and JavaScript decoding, case by case
# ---------------------------------------------------------------------------

JAVA_CASES = [
    "f(a=1)", "f(a=1, b=2)", "[f(a=1), g(b=2)]", "f(a=1);", "f(a=1); g(b=2);", "f(a=b,c=d)",
    'A.b.c(x="s", y=2)', 'f(a="x, y", b=1)', 'f(a="x\\"y", b=1)', "f(a='c', b=1)",
    "f(a=10L, b=1.5f, c=-3, d=1e-3)", "f(a=new int[]{1, 2}, b=1)", "f(a=new int[] {1, 2}, b=1)",
    'f(a=new String[]{"a", "b"}, b=1)', 'f(a=new ArrayList<>(Arrays.asList("a", "b")), b=1)',
    'f(a=new HashMap<String, Object>() {{ put("k", 1); }}, b=1)', "f(a=new HashMap<>(), b=1)",
    "f(x, a=1, b=2)", "f(a=1, a=2)", "f(a=true, b=null)", "f(a=obj.method(1, 2), b=1)",
    "f(a=String.class, b=1)", "f(a=(x) -> x + 1, b=1)", "", "hello world", "```\nf(a=1, b=2)\n```",
    "```java\nf(a=1, b=2)\n```", "f(a=1, b=2).g(c=3)", 'f(a="a" + "b", b=1)', "f(a=b ? 1 : 2, c=1)",
    "int x = 1;", "[]", 'f(a="caf\u00e9", b=new int[]{1})', "f(a=new int[][]{{1},{2}}, b=1)",
    "f(a=1, b=2)\ng(c=3, d=4)",
]
JS_CASES = [
    "f(a=1)", "f(a=1), g(b=2)", "f(a=1); g(b=2);", "f(a='x')", "f(a=`x`)", "f(a=[1, 2])",
    "f(a={k: 1, 'b': 'x'})", "f(a=10n)", "f(a=null, b=undefined)", "f(x, a=1)", "f(true, a=1)",
    "f(false, a=1)", "f(1, a=1)", "f(a=1, a=2)", "f(a=() => 1)", "f(a=function() { return 1; })",
    "f(a=new Date())", 'f(a="x, y")', "f(a='it\\'s')", "A.b(c=1)", "f()", "", "hello world",
    "```js\nf(a=1)\n```", "f(a=1", "x = f(a=1)", "await f(a=1)", "f(a=1).then(b=2)",
    "f(a=1)\ng(b=2)", "[f(a=1)]", "f(a={k: [1, {j: 2}]})", "f(a=...x)", 'f(a="caf\u00e9")',
]


@needs_tree_sitter
@pytest.mark.parametrize("language, text", [("java", t) for t in JAVA_CASES]
                         + [("javascript", t) for t in JS_CASES])
def test_java_javascript_decoding_matches_the_official_tree_sitter_decoder(official, language,
                                                                           text):
    _, decode = official
    try:
        got = ("ok", decode_prompting(text, language))
    except DecodeError:
        got = ("failed",)
    assert got == decode(text, language)


@needs_tree_sitter
@pytest.mark.parametrize("language, text, expected", [
    # tree-sitter-java wraps a lone one-argument call in an ERROR node, not two arguments
    ("java", "[f(a=1)]", DecodeError),
    ("java", "[f(a=1, b=2)]", [{"f": {"a": "1", "b": "2"}}]),
    ("java", "[f(a=new int[] {1, 2}, b=1)]", [{"f": {"a": "new int[]{1,2}", "b": "1"}}]),
    ("java", '[f(a=new HashMap<String, Object>() {{ put("k", 1); }}, b=1)]',
     [{"f": {"a": "new HashMap<String,Object>()", "b": "1"}}]),
    ("java", "[f(x, a=1, b=2)]", [{"f": {None: "x", "a": "1", "b": "2"}}]),
    ("java", "int x = 1;", {}),
    ("javascript", "f(a=1); g(b=2);", [{"f": {"a": "1"}}]),  # only the first call
    ("javascript", "f(a=1), g(b=2)", None),  # a sequence expression: no call found
    ("javascript", "f(true, a=1)", [{"f": {None: "true", "a": "1"}}]),
])
def test_official_java_javascript_quirks_are_kept(language, text, expected):
    if expected is DecodeError:
        with pytest.raises(DecodeError):
            decode_prompting(text, language)
    else:
        assert decode_prompting(text, language) == expected


# ---------------------------------------------------------------------------
# Generated prompting output, every single-turn category, full verdicts
# ---------------------------------------------------------------------------


def _pick(rng, allowed):
    options = [a for a in allowed if a != ""] or [""]
    return copy.deepcopy(rng.choice(options))


def _concrete(rng, allowed_by_param):
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


def _quoted(rng, text, quotes):
    quote = rng.choice(quotes)
    return quote + text.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _identifier_like(text):
    return text.replace(".", "").replace("_", "").isalnum() and not text[:1].isdigit()


def _python(rng, value):
    if isinstance(value, str):
        return _quoted(rng, value, "'\"")
    if isinstance(value, float):
        return rng.choice([repr(value), f"{value:e}"])
    if isinstance(value, int) and not isinstance(value, bool):
        return rng.choice([str(value), f"({value})"])
    if isinstance(value, dict):
        sep = rng.choice([", ", ","])
        return "{" + sep.join(f"{_python(rng, k)}: {_python(rng, v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = rng.choice([", ", ","]).join(_python(rng, v) for v in value)
        if rng.random() < 0.15:
            return "(" + inner + ("," if len(value) == 1 else "") + ")"
        return "[" + inner + "]"
    return repr(value)


def _java(rng, value, declared, items):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if declared == "any" and _identifier_like(value) and rng.random() < 0.6:
            return value
        return _quoted(rng, value, '"')
    if isinstance(value, int):
        return rng.choice([f"{value}L", f"{value}l", str(value)]) if declared == "long" else str(value)
    if isinstance(value, float):
        return rng.choice([f"{value}f", str(value)]) if declared == "float" else str(value)
    if isinstance(value, list):
        item_type = items or "String"
        elements = [_java(rng, v, item_type, None) for v in value]
        sep = rng.choice([", ", ","])
        if declared == "ArrayList":
            return rng.choice([f"new ArrayList<>(Arrays.asList({sep.join(elements)}))",
                               "new ArrayList<>() {{ " + " ".join(f"add({e});" for e in elements) + " }}"])
        java_type = {"String": "String", "integer": "int", "long": "long", "float": "float",
                     "double": "double", "boolean": "boolean"}.get(item_type, "Object")
        return rng.choice([f"new {java_type}[]{{{sep.join(elements)}}}",
                           f"new {java_type}[] {{ {sep.join(elements)} }}"])
    if isinstance(value, dict):
        body = " ".join(f'put({_quoted(rng, str(k), chr(34))}, {_java(rng, v, "any", None)});'
                        for k, v in value.items())
        return rng.choice([f"new HashMap<String, Object>() {{{{ {body} }}}}", "new HashMap<>()"])
    return str(value)


def _javascript(rng, value, declared, items):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        if declared == "any" and _identifier_like(value) and rng.random() < 0.6:
            return value
        return _quoted(rng, value, "'\"`")
    if isinstance(value, int):
        return rng.choice([str(value), f"{value}n"]) if declared == "Bigint" else str(value)
    if isinstance(value, list):
        inner = rng.choice([", ", ","]).join(_javascript(rng, v, items or "String", None)
                                             for v in value)
        return rng.choice([f"[{inner}]", f"new Array({inner})"])
    if isinstance(value, dict):
        return "{" + ", ".join(f"{rng.choice([k, repr(k)])}: {_javascript(rng, v, 'any', None)}"
                               for k, v in value.items()) + "}"
    return str(value)


def _nudge(rng, value):
    choice = rng.randrange(8)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return [value + 1, -value, float(value), str(value), value][choice % 5]
    if isinstance(value, float):
        return [value + 0.5, int(value), -value, value][choice % 4]
    if isinstance(value, str):
        return [value.upper(), value + ", x", value + "[1]", "it's", 'say "hi"', value[:-1],
                value, ""][choice]
    if isinstance(value, list):
        return [value[:-1], list(reversed(value)), [], value + value[:1], value][choice % 5]
    if isinstance(value, dict):
        out = dict(value)
        if out and choice % 2:
            out.pop(next(iter(out)))
        else:
            out["extra"] = 1
        return out
    return value


def _render_call(rng, name, args, docs, language):
    props = docs.get(name, {}).get("parameters", {}).get("properties", {})
    parts = []
    for key, value in args.items():
        declared = props.get(key, {}).get("type", "any")
        items = (props.get(key, {}).get("items") or {}).get("type")
        if language == "python":
            text = _python(rng, value)
        elif language == "java":
            text = _java(rng, value, declared, items)
        else:
            text = _javascript(rng, value, declared, items)
        parts.append(f"{key}{rng.choice(['=', '=', ' = '])}{text}")
    if rng.random() < 0.05:
        parts.insert(0, rng.choice(["x", "1", "true"]))  # a positional argument
    return f"{name}(" + rng.choice([", ", ","]).join(parts) + ")"


def prompting_outputs(rng, entry):
    """A perfect answer and perturbed ones, as text; then empty and chatty outputs."""
    language = language_of(entry.category)
    docs = {d["name"]: d for d in entry.functions}
    truth = entry.ground_truth or [{docs[n]["name"]: {}} for n in list(docs)[:1]]
    perfect = [{name: _concrete(rng, allowed)} for answer in truth for name, allowed in answer.items()]
    variants = [perfect]
    for _ in range(5):
        calls = copy.deepcopy(perfect)
        kind = rng.randrange(7)
        if calls:
            index = rng.randrange(len(calls))
            name, args = next(iter(calls[index].items()))
            if kind <= 2 and args:
                key = rng.choice(list(args))
                args[key] = _nudge(rng, args[key])
            elif kind == 3 and args:
                args.pop(rng.choice(list(args)))
            elif kind == 4:
                rng.shuffle(calls)
            elif kind == 5:
                calls.append(copy.deepcopy(calls[index]))
            else:
                calls.pop(index)
        variants.append(calls)
    texts = []
    for calls in variants:
        separators = [", ", ",", ",\n"] + (["; "] if language != "python" else [])
        body = rng.choice(separators).join(_render_call(rng, name, args, docs, language)
                                           for call in calls for name, args in call.items())
        if language != "python" and rng.random() < 0.3:
            body += ";"
        texts.append(rng.choice([f"[{body}]", body, f"```\n[{body}]\n```", f" {body} ",
                                 f"```{language}\n{body}\n```", f"[{body}]\n"]))
    return texts + ["", "[]", "I cannot help with that.", "```\n```"]


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_prompting_results_get_the_official_verdicts(bfcl_data, official, category):
    verdict, _ = official
    rng = random.Random(f"ek-otel-prompting-{category}")
    disagreements, kinds = [], set()
    for entry in bfcl_data.entries(category)[:ENTRIES_PER_CATEGORY]:
        for text in prompting_outputs(rng, entry):
            expected = verdict(entry, text)
            kinds.add(expected[:2])
            got = mine(entry, text)
            if got != expected:
                disagreements.append((entry.id, text, expected, got))
    assert len(kinds) >= 2, "the generator must give both passes and failures"
    assert disagreements == []


# ---------------------------------------------------------------------------
# Function-calling results with odd JSON, and underscore_to_dot
# ---------------------------------------------------------------------------

ODD_FC_RESULTS = [
    [], [{}], [{"F": "{}"}], [{"F": "[]"}], [{"F": "1"}], [{"F": "null"}], [{"F": '"x"'}],
    [{"F": {"a": 1}}], [{"F": "{}", "G": "{}"}], [{"F": '{"a": "{\\"b\\": 1}"}'}], "text",
    "[F(a=1)]", "", None, 5, {"F": "{}"}, ["F"], [["F"]], [{"F": "{bad"}], [{"F": ""}],
    [{"F": '{"a": NaN}'}], [{"F": '{"a": 1, "a": 2}'}], [{"F": '{"a": 1e400}'}],
    [{"F": '{"a": 12345678901234567890}'}], [{"F": "{}"}, {}], [{"F": "{}"}, "x"], [None],
]


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "irrelevance",
                                      "live_relevance", "live_irrelevance", "simple_java",
                                      "simple_javascript", "live_parallel_multiple"])
def test_odd_function_calling_results_get_the_official_verdicts(bfcl_data, official, category):
    verdict, _ = official
    disagreements = []
    for entry in bfcl_data.entries(category)[:3]:
        name = json.dumps(entry.functions[0]["name"])
        for result in ODD_FC_RESULTS:
            result = json.loads(json.dumps(result).replace('"F"', name))
            expected = verdict(entry, result, style="fc")
            if mine(entry, result, style="fc") != expected:
                disagreements.append((entry.id, result, expected))
    assert disagreements == []


@pytest.mark.parametrize("category", ["simple_java", "multiple", "live_simple", "live_multiple",
                                      "live_parallel", "parallel_multiple"])
def test_underscore_to_dot_matches_a_registered_model(bfcl_data, official, category):
    verdict, _ = official
    rng = random.Random(f"ek-otel-u2d-{category}")
    entries = [e for e in bfcl_data.entries(category)
               if any("." in d["name"] for d in e.functions)][:40]
    assert entries, "the category must have dotted function names"
    disagreements = []
    for entry in entries:
        calls = [(name, _concrete(rng, allowed)) for answer in entry.ground_truth
                 for name, allowed in answer.items()]
        for rename in (lambda n: n.replace(".", "_"), lambda n: n):
            result = [{rename(name): json.dumps(args)} for name, args in calls]
            expected = verdict(entry, result, style="fc", underscore_to_dot=True)
            if mine(entry, result, style="fc", underscore_to_dot=True) != expected:
                disagreements.append((entry.id, result, expected))
    assert disagreements == []


# ---------------------------------------------------------------------------
# Python values the official decoder computes with eval
# ---------------------------------------------------------------------------

ARITHMETIC = [
    "60*60*24", "2**-1", "100*1.08", "'a'+'b'", "[1]*3", "round(3.14159, 2)*100", "len('abc')+1",
    "max(1, 2)-1", "[1, 2][0]+1", "{'a': 1} | {'b': 2}", "{1} | {2}", "(1 < 2) + 1",
    "(1 if True else 2) + 0", "abs(-5)+0", "int('5')+1", "float('1.5')*2", "str(5)+'x'",
    "sum([1, 2])/2", "sorted([3, 1])+[]", "divmod(7, 2)+()", "pow(2, 10)+0", "bool(0)+1",
    "tuple([1])+(2,)", "list('ab')+[]", "1/0", "'abc'[5]+'x'", "x+1", "len+1", "None + 1",
    "-2**2", "not 1 + 0", "(not 1) + 0", "[1,2][::-1]+[]", "'abc'[1:]+''", "(1 and 2) + 0",
    "(0 or 3) + 0", "(1 in [1]) + 0", "max([])+1", "len(5)+1", "int('1'*5000)+0", "b'x'+b'y'",
    "1e-3*1", "1_000+0", "(1,2)*2", "sorted([2,1], reverse=True)+[]", "(1 < 2 < 3) + 0",
    "round(x=1)+0", "9**9**9", "'x'*10**9",
]


@pytest.mark.parametrize("expression", ARITHMETIC)
def test_evaluated_values_match_the_official_eval(official, expression):
    _, decode = official
    text = f"[f(a={expression})]"
    if expression in ("9**9**9", "'x'*10**9"):
        with pytest.raises(DecodeError):  # the official would hang or exhaust memory
            decode_prompting(text)
        return
    try:
        got = ("ok", decode_prompting(text))
    except DecodeError:
        got = ("failed",)
    assert got == decode(text, "python")
