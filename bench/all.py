"""Every figure of the speed table in one run, each as a ratio against a baseline of the same run.

| figure | baseline (same run) |
|---|---|
| ``ek-otel score`` end to end, protobuf and JSON Lines (CPU and wall) | the decode floor (``bench/ingest.py``) |
| ``ek-otel serve`` accepting spans from the real SDK exporters (3 client processes): spans/s, loss, p99 export latency, peak RSS, server CPU per span | the decode floor of the same spans |
| ``ek-otel serve`` scoring: protobuf bodies replayed by cheap clients, from the first request until every run's score is written: in the store (what ``ek-otel report`` reads) and emitted (``--emit-file``); ``--grace 0.2`` and the default; CPU of all the server's processes; the CPU of writing one score out (``bench/emit_cost.py``) | the decode floor of the same spans, and offline ``ek-otel score --emit-file`` of the same dump; ``--before`` |
| start-up: ``ek-otel --version``, ``ek-otel bfcl --help`` | ``python -c pass`` |
| ``ek-otel bfcl`` vs the official checker, whole processes, all single-turn categories of bfcl-real | the official ``eval_runner.runner`` in its own process |
| the Collector tier (``bench/collector.py``): SDK exporters straight into one serve, through the Collector into one, through the load-balancing Collector into three: spans/s accepted and scored, zero loss, p99 export latency, CPU per span of the Collector and of the instances | the direct phase of the same run, same clients and spans |
| one large OTLP JSON request (10k traces, ~130 MB): ``ek-otel score`` wall, CPU, peak RSS; ``agentevals-cli`` on the same file and gold (its own venv) | the decode floor of that file; ``ek-otel score`` |
| growth: ``ek-otel score --json`` over 10k, 100k, 1M spans of JSON Lines (10M with ``--huge``): CPU and wall per span, peak RSS | the 10k run |

Whole-process figures are the best of ``--repeat`` runs of each side, alternated, so both sides see the
same machine load; the load average is printed with the figures, since the machine may be shared.
The decode floor is CPU time of one process (what one core pays at least); ``ek-otel score``
shows both its CPU time (user + sys of the process and its workers) and its wall time (what a user
waits for; with ``--jobs`` above 1 the wall time is what parallel decoding gains).

Usage:
    python bench/all.py                 # everything, about 10 minutes on a loaded 2-core machine
    python bench/all.py --only score,startup
    python bench/all.py --huge          # also the 10M-span growth point (long)
    python bench/all.py --only serve,serve-scoring --before /tmp/main   # servers alternated

With ``--before DIR`` (a source tree: ``git archive main | tar -x -C DIR``), that tree's
``score``, ``bfcl`` and ``serve`` run alternated with this one's, ``--repeat`` rounds each.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ingest  # noqa: E402  (bench/ingest.py: the generator and the decode floor)

REPO = Path(HERE).parent
SECTIONS = ("startup", "score", "bigjson", "serve", "serve-scoring", "collector", "bfcl", "growth")


def ek_otel_cmd() -> list:
    path = shutil.which("ek-otel", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return [path] if path else [sys.executable, "-m", "ek_otel"]


def before_cmd(args) -> list:
    """``ek-otel`` of the ``--before`` source tree (same interpreter, that tree first on the path;
    ``-P``: the current directory, maybe this tree, is not put ahead of it)."""
    return ["env", f"PYTHONPATH={os.path.abspath(args.before)}", sys.executable, "-P", "-m", "ek_otel"]


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {len(os.sched_getaffinity(0))} cores"


def best(runs: list) -> ingest.ChildRun:
    failed = [r for r in runs if r.returncode != 0]
    if failed:
        raise SystemExit(f"a measured command failed ({failed[0].returncode}): {failed[0].stderr[-800:]}")
    return min(runs, key=lambda r: r.wall_s)


def alternate(commands: dict, repeat: int) -> dict:
    """name -> best ChildRun; each round runs every command once, in turn."""
    runs: dict = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(ingest.run_child(argv))
    return {name: best(r) for name, r in runs.items()}


def row(label: str, value: str, ratio: str, note: str = "") -> None:
    print(f"  {label:<52} {value:>22} {ratio:>9}  {note}")


# ---------------------------------------------------------------------------


def bench_startup(args) -> dict:
    print(f"== start-up (whole processes, best of {args.repeat * 3} wall; {load()})")
    cmd = ek_otel_cmd()
    best_runs = alternate({"pass": [sys.executable, "-c", "pass"], "version": cmd + ["--version"],
                           "bfcl-help": cmd + ["bfcl", "--help"], "score-help": cmd + ["score", "--help"]},
                          args.repeat * 3)
    base = best_runs["pass"].wall_s
    row("python -c pass (baseline)", f"{base:.3f} s", "1.0x")
    out = {"python_pass_s": base}
    for name, label in (("version", "ek-otel --version"), ("bfcl-help", "ek-otel bfcl --help"),
                        ("score-help", "ek-otel score --help")):
        wall = best_runs[name].wall_s
        row(label, f"{wall:.3f} s", f"{wall / base:.1f}x", "target <= 0.15 s")
        out[f"{name}_s"] = wall
    return out


def bench_score(args, work: str) -> dict:
    print(f"== ek-otel score, {args.spans:,} spans, end to end vs the decode floor ({load()})")
    paths = ingest.generate(os.path.join(work, "score"), args.spans, 512, ingest.FORMATS)
    gold = os.path.join(work, "score", "gold.jsonl")
    out = {}
    from ek_otel.parallel import default_jobs

    jobs_label = f"--jobs {args.jobs}" if args.jobs else f"default --jobs ({default_jobs()} here)"
    for fmt in ingest.FORMATS:
        path = paths[fmt]
        floors, runs, one, before = [], [], [], []
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        for _ in range(args.repeat):  # alternated: floor, score, score --jobs 1, (before), floor, ...
            gc.collect()
            t = time.process_time()
            n = ingest.floor(path, fmt)
            floors.append(time.process_time() - t)
            runs.append(ingest.run_child(ek_otel_cmd() + ["score", path, "--gold", gold, *jobs,
                                                          "--json", os.path.join(work, f"score-{fmt}.json")]))
            one.append(ingest.run_child(ek_otel_cmd() + ["score", path, "--gold", gold, "--jobs", "1",
                                                         "--json", os.path.join(work, f"score1-{fmt}.json")]))
            if args.before:
                before.append(ingest.run_child(before_cmd(args) + [
                    "score", path, "--gold", gold, "--json", os.path.join(work, f"before-{fmt}.json")]))
        floor_s = min(floors)
        child_cpu = min(r.cpu_s for r in runs)
        child = best(runs)
        single = best(one)
        row(f"{fmt}: decode floor (one process, CPU)", f"{n / floor_s:,.0f} spans/s", "1.00x", f"{floor_s:.2f} s")
        row(f"{fmt}: ek-otel score, wall ({jobs_label})", f"{n / child.wall_s:,.0f} spans/s",
            f"{floor_s / child.wall_s:.2f}x", f"{child.wall_s:.2f} s, peak RSS {child.max_rss_mib:.0f} MiB "
            "(its largest process)")
        row(f"{fmt}: ek-otel score, CPU of all its processes", f"{n / child_cpu:,.0f} spans/s",
            f"{floor_s / child_cpu:.2f}x", f"{child_cpu:.2f} s")
        row(f"{fmt}: ek-otel score --jobs 1, wall", f"{n / single.wall_s:,.0f} spans/s",
            f"{floor_s / single.wall_s:.2f}x", f"{single.wall_s:.2f} s (CPU {single.cpu_s:.2f} s), "
            f"peak RSS {single.max_rss_mib:.0f} MiB; {jobs_label}: {single.wall_s / child.wall_s:.2f}x faster")
        if before:
            then = best(before)
            then_cpu = min(r.cpu_s for r in before)
            row(f"{fmt}: before ({args.before}), CPU", f"{n / then_cpu:,.0f} spans/s",
                f"{floor_s / then_cpu:.2f}x", f"{then_cpu:.2f} s")
            row(f"{fmt}: before, wall", f"{n / then.wall_s:,.0f} spans/s", f"{floor_s / then.wall_s:.2f}x",
                f"{then.wall_s:.2f} s, peak RSS {then.max_rss_mib:.0f} MiB")
        out[fmt] = {"floor_s": floor_s, "score_cpu_s": child_cpu, "score_wall_s": child.wall_s,
                    "ratio_cpu": floor_s / child_cpu, "ratio_wall": floor_s / child.wall_s,
                    "peak_rss_mib": child.max_rss_mib, "jobs": args.jobs or default_jobs(),
                    "one_process_wall_s": single.wall_s, "one_process_cpu_s": single.cpu_s,
                    "one_process_ratio_wall": floor_s / single.wall_s}
    out["dump"] = paths
    out["gold"] = gold
    return out


def bench_serve(args, work: str) -> dict:
    import serve_load

    print(f"== ek-otel serve, {args.spans:,} spans from the real SDK exporter (OTLP/HTTP protobuf), "
          f"{args.clients} client processes ({load()})")
    gold = os.path.join(work, "gold.jsonl")
    ingest.write_gold(gold)
    floor = serve_load.decode_floor(os.path.join(work, "serve-floor"), args.spans)
    sides = {"this": None, **({"before": before_cmd(args)} if args.before else {})}
    runs: dict = {name: [] for name in sides}
    for round_ in range(args.repeat if args.before else 1):  # alternated with --before
        for name, cmd in sides.items():
            folder = os.path.join(work, f"serve-load-{name}-{round_}")
            os.makedirs(folder)
            load_args = argparse.Namespace(grace=1.0, server_args=[], protocol="http", spans=args.spans,
                                           clients=args.clients, client_nice=0, batch=512, ek_otel=cmd)
            runs[name].append(serve_load.run_load(load_args, folder, gold))
    floor_us = 1e6 / floor
    row("decode floor of the same spans (CPU)", f"{floor:,.0f} spans/s", "1.00x", f"{floor_us:.1f} us/span")
    out = {}
    for name, figures_list in runs.items():
        figures = max(figures_list, key=lambda f: f["accepted_spans_per_s"])
        label = "" if name == "this" else f"before ({args.before}): "
        rate = figures["accepted_spans_per_s"]
        row(f"{label}accepted (acknowledged spans / wall)", f"{rate:,.0f} spans/s", f"{rate / floor:.2f}x",
            "target >= 0.5x")
        row(f"{label}zero loss", str(figures["zero_loss"]), "",
            f"{figures['spans_in_store']:,} stored of {figures['spans_sent']:,} sent")
        row(f"{label}p99 export latency", f"{figures['p99_export_latency_ms']:.0f} ms", "",
            f"p50 {figures['p50_export_latency_ms']:.0f} ms; target <= 250 ms")
        row(f"{label}peak RSS, server + scoring workers", f"{figures['peak_rss_mib']:.0f} MiB", "",
            "target <= 256 MiB")
        row(f"{label}CPU while accepting: server, SDK clients", f"{figures['server_cpu_s_while_accepting']:.1f} s",
            "", f"clients {figures['client_cpu_s']:.1f} s over {figures['accept_wall_s']:.1f} s of wall "
            f"on {len(os.sched_getaffinity(0))} cores")
        cpu_us = figures["server_cpu_us_per_span_total"]
        row(f"{label}server CPU, all processes, receive to score", f"{cpu_us:.1f} us/span",
            f"{floor_us / cpu_us:.2f}x", f"receiver process {figures['receiver_process_cpu_s']:.1f} s; "
            f"all scored {figures['all_scored_after_s']:.1f} s after the start")
        figures["decode_floor_spans_per_s"] = floor
        out[name] = figures
    return out["this"] if not args.before else out


def bench_collector(args, work: str) -> dict:
    """bench/collector.py's three phases, a third of --spans (the load-balancing phase runs
    three instances and a Collector on the same cores)."""
    import collector

    spans = max(3_000, args.spans // 3)
    print(f"== the Collector tier, {spans:,} spans from the real SDK exporter (OTLP/HTTP), "
          f"{args.clients} client processes ({load()})")
    out = os.path.join(work, "collector.json")
    code = collector.main(["--spans", str(spans), "--clients", str(args.clients), "--json", out])
    with open(out) as f:
        report = json.load(f)
    direct = report["phases"]["direct"]
    for name, phase in report["phases"].items():
        row(f"{name}: accepted", f"{phase['accepted_spans_per_s']:,.0f} spans/s",
            f"{phase['accepted_spans_per_s'] / direct['accepted_spans_per_s']:.2f}x",
            f"p99 export {phase['p99_export_latency_ms']:.0f} ms; zero loss {phase['zero_loss']}")
        row(f"{name}: scored", f"{phase['scored_spans_per_s']:,.0f} spans/s",
            f"{phase['scored_spans_per_s'] / direct['scored_spans_per_s']:.2f}x",
            f"ek-otel {phase['serve_cpu_us_per_span']:.1f} us/span, Collector "
            f"{phase['collector_cpu_us_per_span']:.1f} us/span")
    report["exit_code"] = code
    return report


class _Replayer:
    """Cheap clients: threads POSTing pre-read protobuf bodies over keep-alive connections."""

    def __init__(self, port: int, bodies: list, clients: int):
        self.port, self.bodies, self.clients = port, bodies, clients
        self.failures = 0

    def run(self) -> None:
        import http.client

        def worker(share: list) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            for body in share:
                while True:
                    conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
                    response = conn.getresponse()
                    response.read()
                    if response.status == 200:
                        break
                    if response.status not in (429, 503):
                        self.failures += 1
                        break
                    time.sleep(float(response.getheader("Retry-After") or 0.2))
            conn.close()

        threads = [threading.Thread(target=worker, args=(self.bodies[i::self.clients],))
                   for i in range(self.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


class _ScoreWatch:
    """What a user can see while a server scores: every ``period`` seconds, the runs whose
    latest revision is scored in the store (what ``ek-otel report`` reads: the score row,
    its outbox rows and the trace's state are one transaction) and, with an ``--emit-file``,
    the runs whose ``gen_ai.evaluation.result`` event is in that file (the outbox writes and
    fsyncs it; the file is read as a user tailing it would, whole lines only).

    ``reached(target, after)`` is the first sample at or after ``after`` seconds where both
    counts reached ``target``, as (store seconds, emitted seconds), from ``start``.
    """

    def __init__(self, server, emit_file, start: float, period: float = 0.05):
        self.server, self.emit_file, self.start, self.period = server, emit_file, start, period
        self.samples: list = []  # (seconds, runs scored in the store, runs emitted)
        self.emitted: set = set()
        self._offset = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _read_emitted(self) -> None:
        import orjson

        if self.emit_file is None or not os.path.exists(self.emit_file):
            return
        with open(self.emit_file, "rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self._offset += end
        for line in data[:end].splitlines():
            for resource in orjson.loads(line).get("resourceLogs", ()):
                for scope in resource.get("scopeLogs", ()):
                    for record in scope.get("logRecords", ()):
                        if record.get("eventName") == "gen_ai.evaluation.result":
                            self.emitted.add(record["traceId"])

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.perf_counter() - self.start
            stored = self.server.count("SELECT COUNT(*) FROM traces WHERE state!='open'")
            self._read_emitted()
            self.samples.append((now, stored, len(self.emitted)))
            self._stop.wait(self.period)

    def reached(self, target: int, after: float) -> tuple:
        store = emitted = None
        for t, stored, emitted_n in self.samples:
            if t < after:
                continue
            if store is None and stored >= target:
                store = t
            if emitted is None and emitted_n >= target:
                emitted = t
        return store, emitted

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)


def _replay_until_scored(folder: str, gold: str, bodies: list, clients: int, cmd, *,
                         grace, emit: bool) -> dict:
    """One server: replay the bodies and wait until every run's score is written, in the store
    and (``emit``) in the ``--emit-file``, timed from the first request; CPU of every process.
    ``grace``: ``--grace`` (None: the default)."""
    import serve_load

    emit_file = os.path.join(folder, "scores.jsonl") if emit else None
    extra = [*(["--grace", str(grace)] if grace is not None else []),
             *(["--emit-file", emit_file] if emit else [])]
    server = serve_load.Server(folder, gold, extra, cmd)
    try:
        cpu0 = server.cpu_by_process()
        start = time.perf_counter()
        watch = _ScoreWatch(server, emit_file, start)
        _Replayer(server.http_port, bodies, clients).run()
        accepted = time.perf_counter() - start
        traces = server.count("SELECT COUNT(*) FROM traces")
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            store_s, emitted_s = watch.reached(traces, accepted)
            if store_s is not None and (emitted_s is not None or not emit):
                break
            time.sleep(0.05)
        watch.stop()
        if store_s is None or (emit and emitted_s is None):
            raise SystemExit(f"serve scoring ({' '.join(extra)}): not every one of {traces} runs was "
                             f"scored{' and emitted' if emit else ''} within 900 s; see {server.log_path}")
        cpu = server.cpu_by_process()
        rss = server.rss_mib()
        done = server.count("SELECT COUNT(*) FROM traces WHERE state!='open'")
    finally:
        server.stop()
    # What `ek-otel report` shows of the store: every run, scored (checked, not timed).
    report_path = os.path.join(folder, "report.json")
    done_report = subprocess.run([*(cmd or ek_otel_cmd()), "report", "--store", server.store, "--json",
                                  report_path], capture_output=True, text=True)
    if done_report.returncode != 0:
        raise SystemExit(f"ek-otel report failed ({done_report.returncode}): {done_report.stderr[-800:]}")
    with open(report_path) as f:
        reported = len(json.load(f)["episodes"])
    return {"store": server.store, "accepted_s": accepted, "store_s": store_s, "emitted_s": emitted_s if emit else None,
            "scored_s": emitted_s if emit else store_s, "traces": traces, "scored_traces": done,
            "reported_runs": reported, "emitted_runs": len(watch.emitted) if emit else None,
            "server_cpu_s": sum(cpu) - sum(cpu0), "receiver_cpu_s": cpu[0] - cpu0[0], "rss_mib": rss}


#: The live variants of the serve-scoring section: (name, --grace, --emit-file, what it shows).
#: "earlier": the measure bench/ used before (no sink: the score is only in the store).
SERVE_SCORING_VARIANTS = (
    ("emit", 0.2, True, "--grace 0.2 --emit-file"),
    ("earlier", 0.2, False, "--grace 0.2, no sink (bench/'s earlier measure)"),
    ("default", None, True, "default --grace (2 s), --emit-file"),
)


def bench_serve_scoring(args, work: str, offline: dict) -> dict:
    print(f"== ek-otel serve scoring: {args.spans:,} spans replayed as protobuf bodies by {args.clients} "
          f"cheap clients, from the first request until every run's score is written ({load()})")
    folder = os.path.join(work, "serve-scoring")
    os.makedirs(folder)
    if offline:
        dump, gold = offline["dump"]["frames"], offline["gold"]
    else:
        paths = ingest.generate(folder, args.spans, 512, ("frames",))
        dump, gold = paths["frames"], os.path.join(folder, "gold.jsonl")
    bodies = list(ingest._read_frames(dump))
    sides = {"this": None, **({"before": before_cmd(args)} if args.before else {})}
    runs: dict = {(name, v[0]): [] for name in sides for v in SERVE_SCORING_VARIANTS}
    offline_runs: list = []
    floors = []
    for round_ in range(args.repeat):  # floor, each variant, offline score --emit-file, floor, ...
        gc.collect()
        t = time.process_time()
        n = ingest.floor(dump, "frames")
        floors.append(time.process_time() - t)
        for name, cmd in sides.items():
            for variant, grace, emit, _ in SERVE_SCORING_VARIANTS:
                run_folder = os.path.join(folder, f"{name}-{variant}-{round_}")
                os.makedirs(run_folder)
                runs[(name, variant)].append(_replay_until_scored(
                    run_folder, gold, bodies, args.clients, cmd, grace=grace, emit=emit))
        emitted = os.path.join(folder, f"offline-{round_}.jsonl")
        offline_runs.append(ingest.run_child(ek_otel_cmd() + ["score", dump, "--gold", gold,
                                                              "--emit-file", emitted]))
    floor_s = min(floors)
    row("decode floor of the same spans (CPU)", f"{n / floor_s:,.0f} spans/s", "1.00x", f"{floor_s:.2f} s")
    off = best(offline_runs)
    row("offline `ek-otel score --emit-file` of the same dump, wall", f"{off.wall_s:.1f} s",
        f"{floor_s / off.wall_s:.2f}x", f"CPU {off.cpu_s:.1f} s")
    out: dict = {"floor_s": floor_s, "offline_emit_wall_s": off.wall_s, "offline_emit_cpu_s": off.cpu_s}
    for (name, variant), results in runs.items():
        _, grace, emit, what = next(v for v in SERVE_SCORING_VARIANTS if v[0] == variant)
        r = min(results, key=lambda x: x["scored_s"])
        label = ("" if name == "this" else f"before ({args.before}): ") + what
        if r["reported_runs"] != r["traces"] or (emit and r["emitted_runs"] != r["traces"]):
            raise SystemExit(f"serve scoring ({label}): {r['traces']} runs received, "
                             f"{r['reported_runs']} in `ek-otel report`, {r['emitted_runs']} emitted")
        print(f"  -- {label}: all accepted after {r['accepted_s']:.1f} s; server CPU {r['server_cpu_s']:.1f} s "
              f"(receiver process {r['receiver_cpu_s']:.1f} s), RSS at the end {r['rss_mib']:.0f} MiB")
        row("last run's score in the store (`ek-otel report`)", f"{r['store_s']:.1f} s",
            f"{floor_s / r['store_s']:.2f}x", f"{n / r['store_s']:,.0f} spans/s")
        figures = {**r, "grace": grace, "emit": emit, "store_ratio": floor_s / r["store_s"],
                   "cpu_ratio": floor_s / r["server_cpu_s"]}
        if emit:
            row("last run's score emitted (its event in --emit-file)", f"{r['emitted_s']:.1f} s",
                f"{floor_s / r['emitted_s']:.2f}x", f"{n / r['emitted_s']:,.0f} spans/s; target >= 0.5x")
            row("  vs offline `score --emit-file` (wall)", f"{off.wall_s:.1f} s",
                f"{off.wall_s / r['emitted_s']:.2f}x", "target >= 1.0x: live no slower than offline; "
                f"CPU {off.cpu_s / r['server_cpu_s']:.2f}x")
            figures["emitted_ratio"] = floor_s / r["emitted_s"]
            figures["vs_offline_emit"] = off.wall_s / r["emitted_s"]
        if offline and not emit:
            offline_wall = offline["frames"]["score_wall_s"]
            row("  vs offline `score --json` (wall, section score)", f"{offline_wall:.1f} s",
                f"{offline_wall / r['store_s']:.2f}x", "")
            figures["vs_offline"] = offline_wall / r["store_s"]
        row("server CPU per span, all processes", f"{r['server_cpu_s'] / n * 1e6:.1f} us/span",
            f"{floor_s / r['server_cpu_s']:.2f}x", "")
        out[f"{name}:{variant}"] = figures
    out["ratio"] = out["this:emit"]["emitted_ratio"]
    out["emit_cost"] = _emit_cost(args, runs[("this", "emit")][0]["store"], sides)
    return out


def _emit_cost(args, store: str, sides: dict) -> dict:
    """bench/emit_cost.py on a store of the live run: the outbox's file-sink work per score,
    in one process, for each tree, alternated."""
    script = os.path.join(HERE, "emit_cost.py")
    results: dict = {name: [] for name in sides}
    for _ in range(args.repeat):
        for name, cmd in sides.items():
            # the tree's interpreter line without its "-m ek_otel" (this tree: this checkout first)
            argv = (cmd[:-2] if cmd else ["env", f"PYTHONPATH={REPO}", sys.executable, "-P"]) + [script, store]
            done = subprocess.run(argv, capture_output=True, text=True, cwd=str(REPO))
            if done.returncode != 0:
                raise SystemExit(f"bench/emit_cost.py failed: {done.stderr[-800:]}")
            results[name].append(json.loads(done.stdout))
    out = {name: min(r, key=lambda x: x["cpu_s_per_score"]) for name, r in results.items()}
    this = out["this"]["cpu_s_per_score"]
    row("writing one score out (--emit-file's outbox work), CPU", f"{this * 1e3:.3f} ms", "",
        f"{out['this']['bytes_per_score']:,.0f} bytes per score (bench/emit_cost.py)")
    if "prepare_cpu_s_per_score" in out["this"]:
        row("  preparing it (in the scoring worker: emit.prepared.encode_scores), CPU",
            f"{out['this']['prepare_cpu_s_per_score'] * 1e3:.3f} ms", "", "")
    if "before" in out:
        then = out["before"]["cpu_s_per_score"]
        row(f"  before ({args.before})", f"{then * 1e3:.3f} ms", f"{then / this:.2f}x",
            f"{out['before']['bytes_per_score']:,.0f} bytes per score")
    return out


def bench_bfcl(args, work: str) -> dict:
    import bfcl_vs_official  # bench/bfcl_vs_official.py: the whole-process measure (its part 4)

    real = Path(args.real)
    print(f"== ek-otel bfcl vs the official checker, whole processes, single-turn categories of {real} "
          f"({load()})")
    folder = Path(work) / "bfcl"
    folder.mkdir()
    figures = bfcl_vs_official.bench_processes(real, folder, max(3, args.repeat), before=args.before,
                                               row=row)
    if figures is None:
        print("  skipped: no bfcl-real result files")
        return {}
    return figures


def bench_growth(args, work: str) -> dict:
    sizes = [10_000, 100_000, 1_000_000] + ([10_000_000] if args.huge else [])
    print(f"== growth: ek-otel score over JSON Lines, {', '.join(f'{s:,}' for s in sizes)} spans "
          f"(10 spans a trace, one episode a trace), with --json; ratios against the 10k run ({load()})")
    out = {}
    base = None
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    for size in sizes:
        folder = os.path.join(work, f"growth-{size}")
        paths = ingest.generate(folder, size, 512, ("jsonl",))
        runs = [ingest.run_child(ek_otel_cmd() + ["score", paths["jsonl"], "--gold", os.path.join(folder, "gold.jsonl"),
                                                  *jobs, "--json", os.path.join(folder, "r.json")])
                for _ in range(args.repeat if size <= 100_000 else 1)]
        child = best(runs)
        report_mib = os.path.getsize(os.path.join(folder, "r.json")) / 2 ** 20
        per_span = child.cpu_s / size * 1e6
        wall_per_span = child.wall_s / size * 1e6
        base = base or (per_span, wall_per_span, child.max_rss_mib)
        row(f"{size:>10,} spans: CPU per span", f"{per_span:.1f} us", f"{per_span / base[0]:.2f}x",
            f"CPU {child.cpu_s:.1f} s ({load()})")
        row(f"{size:>10,} spans: wall per span", f"{wall_per_span:.1f} us", f"{wall_per_span / base[1]:.2f}x",
            f"wall {child.wall_s:.1f} s")
        row(f"{size:>10,} spans: peak RSS", f"{child.max_rss_mib:.0f} MiB",
            f"{child.max_rss_mib / base[2]:.2f}x", f"target <= 512 MiB at 10M; JSON report {report_mib:,.0f} MiB")
        out[size] = {"cpu_s": child.cpu_s, "wall_s": child.wall_s, "peak_rss_mib": child.max_rss_mib,
                     "cpu_us_per_span": per_span, "cpu_ratio": per_span / base[0],
                     "rss_ratio": child.max_rss_mib / base[2], "report_mib": report_mib}
        shutil.rmtree(folder, ignore_errors=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2, help="best of N for each alternated measure")
    parser.add_argument("--jobs", type=int, default=0, help="pass --jobs N to ek-otel score (0: its default)")
    parser.add_argument("--before", metavar="DIR",
                        help="a source tree of an earlier ek-otel (git archive main | tar -x -C DIR): "
                             "its `score` and `bfcl` run alternated with this one's, for before/after")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"some of {','.join(SECTIONS)}")
    parser.add_argument("--huge", action="store_true", help="growth: also 10M spans (long)")
    parser.add_argument("--real", default=os.environ.get("EK_OTEL_BFCL_REAL") or next(
        (str(p) for p in (REPO.parent / "shared" / "bfcl-real", REPO.parents[1] / "shared" / "bfcl-real")
         if p.is_dir()), str(REPO.parent / "shared" / "bfcl-real")), help="the bfcl-real submission")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--no-agentevals", dest="agentevals", action="store_false",
                        help="bigjson: do not run agentevals-cli (its row says so)")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    print(f"bench/all.py {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{os.cpu_count()} CPUs, {load()}; the machine may be shared: every ratio is against a "
          "baseline of this same run")
    report: dict = {}
    # Every measured tree runs from byte-compiled modules, as an installed package does (with
    # PYTHONDONTWRITEBYTECODE set, a checkout would compile every module on every run).
    import compileall

    for tree in (REPO, *((Path(args.before),) if args.before else ())):
        compileall.compile_dir(str(tree / "ek_otel"), quiet=2)
    with tempfile.TemporaryDirectory(prefix="ek-bench-all-") as work:
        if "startup" in only:
            report["startup"] = bench_startup(args)
        if "score" in only:
            report["score"] = bench_score(args, work)
        if "bigjson" in only:
            import bigjson  # bench/bigjson.py: one large OTLP JSON request, and agentevals-cli

            report["bigjson"] = bigjson.bench_bigjson(args, work, row, load, ek_otel_cmd(),
                                                      before_cmd(args) if args.before else None)
        if "serve" in only:
            report["serve"] = bench_serve(args, work)
        if "serve-scoring" in only:
            report["serve_scoring"] = bench_serve_scoring(args, work, report.get("score", {}))
        if "collector" in only:
            report["collector"] = bench_collector(args, work)
        if "bfcl" in only:
            report["bfcl"] = bench_bfcl(args, work)
        if "growth" in only:
            report["growth"] = bench_growth(args, work)
    print(f"done ({load()})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
