"""Every finding of the fuzz campaign of issue 23, each input built from its description
(:mod:`tests.fuzz.reproducers`), gives its documented outcome, with no traceback."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys

import pytest

from ek_otel.errors import GoldFileError, PricingError
from ek_otel.ingest.bad_input import BadInputReport
from tests.fuzz import reproducers as r
from tests.fuzz import targets

ROOT = str(r.ROOT)
GOLD = str(r.EXAMPLES / "tasks.jsonl")


def ek_otel(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "ek_otel", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def no_traceback(done):
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (0, 2), (done.returncode, done.stderr[-3000:])


# ---------------------------------------------------------------------------
# 1. corrupt gzip / zstd dumps: reported and skipped (all four read paths)
# ---------------------------------------------------------------------------

DUMPS = {"bad-block.pb.gz": r.corrupt_gzip_pb, "late.jsonl.gz": r.late_corrupt_gzip_jsonl,
         "middle.jsonl.zst": r.corrupt_zstd_jsonl, "frames.bin": r.corrupt_gzip_frames,
         "cut.pb.gz": r.cut_gzip_pb}


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_a_corrupt_compressed_dump_is_reported_and_skipped(name, tmp_path):
    from ek_otel.ingest.dumps import read_dump

    path = tmp_path / name
    path.write_bytes(DUMPS[name]())
    report = BadInputReport()
    records = list(read_dump([str(path)], report=report))
    assert report.counts.get("unreadable file") == 1, report.counts
    assert str(report.cases[-1].origin).startswith(str(path))
    if name == "late.jsonl.gz":  # the good lines before the corruption are kept
        assert records
    if name == "frames.bin":  # the good frame before the bad one is kept
        assert records and report.cases[-1].origin.line == 2


def test_corrupt_dumps_through_the_commands(tmp_path):
    paths = []
    for name, make in DUMPS.items():
        (tmp_path / name).write_bytes(make())
        paths.append(str(tmp_path / name))
    for command in (["score", *paths, "--gold", GOLD], ["episodes", *paths], ["doctor", *paths]):
        done = ek_otel(*command)
        no_traceback(done)
        assert "unreadable file" in done.stdout + done.stderr


# ---------------------------------------------------------------------------
# 2/3. deep JSON and lone surrogates in attribute strings, every key and span kind
# ---------------------------------------------------------------------------

def _bases() -> list:
    """The example trace and one trace of each instrumentation family of the corpus."""
    bases = [json.loads(b"".join(r.example_lines()[:4]).split(b"\n")[0])]
    for scenario in ("langgraph-agent-openinference-0.1.80", "anthropic-traceloop-0.44.3",
                     "logfire-6.0.0b8-agents", "mastra-1.71.0-generate", "vercel-ai-7-otel"):
        lines = (r.CORPUS / scenario / "traces.jsonl").read_bytes().splitlines()
        bases.extend(json.loads(line) for line in lines[:3] if line.strip())
    return bases


def _every_path(poison: str):
    """(key, base) -> the outcome of one poisoned trace through episodes, scoring and the
    JSON writers, in process."""
    from ek_otel.scoring.report_json import indented_json_chunks
    from ek_otel.ingest.episode_dict import episode_to_dict, episode_to_json
    from ek_otel.ingest.episodes import build_episodes
    from ek_otel.ingest.otlp import decode
    from ek_otel.scoring.link import Unmatched, score_and_envelope

    tasks, settings = targets._scoring()
    reports = BadInputReport(keep=0)
    count = 0
    for base in _bases():
        for key in r.attribute_keys():
            request = r.poisoned_request(base, key, poison)
            records = list(decode(json.dumps(request).encode(), "json", report=reports, strict=False))
            groups = {}
            for record in records:
                groups.setdefault(record.trace_id, []).append(record)
            from types import SimpleNamespace

            for episode in build_episodes([SimpleNamespace(spans=g, logs=[]) for g in groups.values()],
                                          report=reports):
                b"".join(indented_json_chunks(episode_to_dict(episode))).decode("utf-8")
                episode_to_json(episode).encode("utf-8")
                for task in list(tasks.values())[:2]:  # linked to a task: arg diffs described
                    episode = type(episode)(**{**episode.__dict__, "task_id": task.task_id})
                    outcome = score_and_envelope(episode, tasks, settings, revision=0)
                    if not isinstance(outcome, Unmatched):
                        outcome.to_json().encode("utf-8")
                        json.dumps(outcome.to_dict(), ensure_ascii=False).encode("utf-8")
                count += 1
    return count, reports


@pytest.mark.parametrize("poison", ["deep-2000", "deep-1000", "deep-object-1000", "surrogate"])
def test_hostile_json_in_any_attribute_of_any_span_kind_is_repaired_and_reported(poison):
    count, reports = _every_path(r.POISONS[poison])
    assert count > 53 * 6  # every key the readers know, on every span kind of five instrumentations
    reason = "invalid UTF-8" if poison == "surrogate" else "nesting too deep"
    assert reports.counts.get(reason, 0) > 0, reports.counts


@pytest.mark.parametrize("poison", sorted(r.POISONS))
def test_the_commands_write_every_report_of_a_poisoned_dump(poison, tmp_path):
    dump = tmp_path / "dump.jsonl"
    dump.write_bytes(r.poisoned_example_dump(r.POISONS[poison]))
    out = tmp_path / "out"
    done = ek_otel("score", str(dump), "--gold", GOLD, "--json", str(out) + ".json",
                   "--html", str(out) + ".html", "--emit-file", str(out) + ".emit.jsonl")
    no_traceback(done)
    assert done.returncode == 0
    said = " ".join((done.stdout + done.stderr).split())
    assert "nesting too deep" in said or "invalid UTF-8" in said
    for suffix in (".json", ".html", ".emit.jsonl"):
        (tmp_path / ("out" + suffix)).read_bytes().decode("utf-8")  # strict UTF-8
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert report["bad_input"]["total"] > 0
    emitted = (tmp_path / "out.emit.jsonl").read_text(encoding="utf-8")
    assert "ek.arg_diffs" in emitted or "arg_diffs" in emitted
    assert "Failed to encode" not in done.stderr and "Exception" not in done.stderr
    done = ek_otel("episodes", str(dump))
    no_traceback(done)
    assert done.returncode == 0
    done = ek_otel("doctor", str(dump))
    no_traceback(done)


def test_a_lone_surrogate_escape_in_the_otlp_json_itself_is_repaired(tmp_path):
    dump = tmp_path / "dump.jsonl"
    dump.write_bytes(r.surrogate_body_dump())
    from ek_otel.pipeline import read_episodes

    report = BadInputReport()
    episodes = list(read_episodes([str(dump)], report=report))
    assert episodes and report.counts.get("invalid UTF-8") == 1


def test_serve_scores_a_poisoned_trace(tmp_path):
    """Once stored as "scoring failed: RecursionError" and never scored."""
    from ek_otel.ingest.otlp_json import traces_json_to_pb
    from ek_otel.serve.worker import TraceScorer

    scorer = TraceScorer(GOLD)
    for poison in r.POISONS.values():
        lines = r.poisoned_example_dump(poison).splitlines()[:4]
        payloads = []
        for line in lines:
            request, _ = traces_json_to_pb(json.loads(line))
            payloads.append(("traces", request.SerializeToString()))
        trace_id = json.loads(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
        result = scorer.score(trace_id, 0, 10, payloads)
        assert "scoring failed" not in (result.detail or ""), result.detail
        assert result.matched, result
        if result.envelope:
            result.envelope.encode("utf-8")


def test_a_store_holding_a_poisoned_run_still_reports_every_other_run(tmp_path):
    """One bad run never breaks a report: `ek-otel report --json/--html` and the live page
    report the others and name the bad one."""
    from ek_otel.ingest.otlp_json import traces_json_to_pb
    from ek_otel.report.live import LivePage  # noqa: F401 - the live page's module loads
    from ek_otel.serve.store import IncomingChunk, Store
    from ek_otel.serve.worker import TraceScorer

    path = str(tmp_path / "store.db")
    store = Store(path)
    store.set_meta("gold", GOLD)
    scorer = TraceScorer(GOLD)
    by_trace: dict = {}
    for line in r.example_lines():
        request = json.loads(line)
        trace_id = request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
        pb, _ = traces_json_to_pb(request)
        by_trace.setdefault(trace_id, []).append(("traces", pb.SerializeToString()))
    trace_ids = sorted(by_trace)
    for number, trace_id in enumerate(trace_ids):
        store.ingest([IncomingChunk("traces", trace_id, b"x" * (number + 1), (f"{number + 1:016x}",), True)])
        result = scorer.score(trace_id, 0, 1, by_trace[trace_id])
        envelope = result.envelope
        if number == 0 and envelope:  # a run stored with a lone surrogate (older versions)
            envelope = envelope.replace('"task_id": "', '"task_id": "\\ud800', 1) if '"task_id": "' in envelope \
                else envelope.replace('"task_id":"', '"task_id":"\\ud800', 1)
        if number == 1:  # a row that cannot be read back at all
            envelope = "{not json"
        store.record_score(trace_id, 0, store.max_payload_id(trace_id), task_id=result.task_id,
                           matched=result.matched, success=result.success, envelope=envelope,
                           detail=result.detail, comparability=result.comparability)
    store.close()
    for args in (["--json", str(tmp_path / "r.json")], ["--html", str(tmp_path / "r.html")], []):
        done = ek_otel("report", "--store", path, *args)
        no_traceback(done)
        assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    matched = sum(1 for t in trace_ids if scorer.score(t, 0, 1, by_trace[t]).matched)
    assert len(data["episodes"]) == matched - 1  # every readable run, the surrogate one too
    named = [u for u in data["unmatched"] if "stored score unreadable" in json.dumps(u)]
    assert len(named) == 1 and trace_ids[1] in json.dumps(named[0])
    (tmp_path / "r.html").read_bytes().decode("utf-8")


# ---------------------------------------------------------------------------
# 4. parent-id cycles: broken in one pass, and reported
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("count", [2, 3, 4000])
def test_a_parent_cycle_is_broken_and_reported(count, tmp_path):
    from ek_otel.pipeline import read_episodes

    dump = tmp_path / "cycle.jsonl"
    dump.write_bytes(r.span_chain(count, cycle=True))
    report = BadInputReport()
    episodes = list(read_episodes([str(dump)], report=report))
    assert len(episodes) == 1 and report.counts == {"parent cycle": 1}
    assert episodes[0].provenance.span_count == count
    assert episodes[0].provenance.root_span_id == "0000000000000001"  # the earliest span


def test_a_cycle_below_a_root_is_cut_where_it_starts_earliest():
    from ek_otel.ingest.records import SpanRecord
    from ek_otel.ingest.span_tree import build_tree

    t = "ab" * 16
    spans = [SpanRecord(t, "01" * 8, None, "root", start_ns=1),
             SpanRecord(t, "02" * 8, "04" * 8, "a", start_ns=5),
             SpanRecord(t, "03" * 8, "02" * 8, "b", start_ns=3),
             SpanRecord(t, "04" * 8, "03" * 8, "c", start_ns=4),
             SpanRecord(t, "05" * 8, "04" * 8, "child", start_ns=6)]
    report = BadInputReport()
    nodes, _ = build_tree(spans, (), report)
    depth = {n.span.name: n.depth for n in nodes.values()}
    assert depth == {"root": 0, "b": 0, "c": 1, "a": 2, "child": 2}
    assert nodes["03" * 8].parent is None and report.counts == {"parent cycle": 1}
    assert [n.span.name for n in nodes["04" * 8].ancestors()] == ["b"]


# ---------------------------------------------------------------------------
# 5/6. gold and pricing files: one line naming file and line, rc 2
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(r.gold_files()))
def test_a_bad_gold_file_is_one_line_naming_file_and_line(name, tmp_path):
    from ek_otel.gold.native import load_tasks, validate_file

    path = tmp_path / name
    path.write_text(r.gold_files()[name], encoding="utf-8")
    with pytest.raises(GoldFileError) as caught:
        load_tasks(path)
    assert str(caught.value).startswith(f"{path}:") and "\n" not in str(caught.value)
    validation = validate_file(path)
    assert validation.errors and all(str(e).startswith(f"{path}:") for e in validation.errors)


@pytest.mark.parametrize("name", ["huge-int.jsonl", "deep.yaml", "control-char.yaml",
                                  "duplicate-then-bad.json", "alias-bomb.yaml"])
def test_gold_validate_and_score_exit_2_with_one_line(name, tmp_path):
    path = tmp_path / name
    path.write_text(r.gold_files()[name], encoding="utf-8")
    for command in (["gold", "validate", str(path)],
                    ["score", str(r.EXAMPLES / "traces.jsonl"), "--gold", str(path)]):
        done = ek_otel(*command)
        no_traceback(done)
        assert done.returncode == 2 and str(path) in done.stderr + done.stdout


@pytest.mark.parametrize("name", sorted(r.pricing_files()))
def test_a_bad_pricing_file_is_one_line_naming_the_file(name, tmp_path):
    from ek_otel.gold.pricing import read_pricing

    path = tmp_path / name
    path.write_text(r.pricing_files()[name], encoding="utf-8")
    with pytest.raises(PricingError) as caught:
        read_pricing(path)
    assert str(caught.value).startswith(f"{path}") and "\n" not in str(caught.value)
    if name.endswith(".yaml"):
        assert str(caught.value).startswith(f"{path}:")  # and the line


def test_the_alias_bomb_costs_nothing_to_refuse(tmp_path):
    from ek_otel.gold.native import validate_file

    path = tmp_path / "bomb.yaml"
    path.write_text(r.alias_bomb(), encoding="utf-8")
    assert len(r.alias_bomb().encode()) < 600
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    validation = validate_file(path)
    assert "alias bomb" in str(validation.errors[0])
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - before < 2.0  # was 27 s


# ---------------------------------------------------------------------------
# 7. BFCL model outputs: bounded values, documented errors
# ---------------------------------------------------------------------------

_BFCL_CHILD = """
import json, resource, sys
from ek_otel.bfcl.decode import DecodeError, decode_ast, decode_execute
outputs = json.loads(sys.stdin.read())
outcomes = {}
for name, (text, language) in outputs.items():
    for how, call in (("ast", lambda: decode_ast(text, language)), ("execute", lambda: decode_execute(text))):
        try:
            call()
            outcomes[name + "/" + how] = "decoded"
        except DecodeError as exc:
            outcomes[name + "/" + how] = "DecodeError"
from tests.fuzz.harness import peak_rss_mib  # VmHWM: ru_maxrss keeps the parent's across exec
print(json.dumps({"outcomes": outcomes, "peak_rss_mib": peak_rss_mib()}))
"""


def test_bfcl_outputs_are_bounded_and_documented():
    """`[math.factorial(number='%01000000000d' % 1)]` used 2.95 GB: now a DecodeError, and
    the whole set stays under 512 MiB in a fresh process."""
    outputs = {name: (text, "python") for name, text in r.BFCL_OUTPUTS.items()}
    outputs.update({name + "-" + lang: (text, lang) for name, text in r.JAVA_OUTPUTS.items()
                    for lang in ("java", "javascript")})
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _BFCL_CHILD], input=json.dumps(outputs),
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["peak_rss_mib"] < 512, result
    outcomes = result["outcomes"]
    for name in ("percent-format", "percent-format-wide", "percent-tuple", "str-concat",
                 "list-concat", "huge-int", "pow-chain", "deep-args"):
        assert outcomes[f"{name}/ast"] == "DecodeError", (name, outcomes)
    assert outcomes["deep-java-java/ast"] == "DecodeError"


def test_safe_eval_refuses_what_it_cannot_bound():
    import ast

    from ek_otel.bfcl.decode import DecodeError
    from ek_otel.bfcl.safe_eval import MAX_SIZE, evaluate

    def value(text):
        return evaluate(ast.parse(text, mode="eval").body)

    assert value("'%05d-%s' % (42, 'x')") == "00042-x"
    assert value("'%.2f' % 3.14159") == "3.14"
    assert len(value(f"'%0{MAX_SIZE - 100}d' % 1")) == MAX_SIZE - 100
    for text in (f"'%0{MAX_SIZE + 1}d' % 1", "'%*d' % (10 ** 9, 1)", "'%.999999999f' % 1",
                 "'%s' * 60000 % tuple(['ab'] * 60000)", "str([2 ** 4000] * 100)",
                 "['a' * 99999] * 2", "list('a' * 60000) + list('b' * 60000)"):
        with pytest.raises(DecodeError):
            value(text)
