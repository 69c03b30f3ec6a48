"""Every figure of the speed table in one run, each as a ratio against a baseline of the same run.

| figure | baseline (same run) |
|---|---|
| ``ek-otel score`` end to end, protobuf and JSON Lines (CPU and wall) | the decode floor (``bench/ingest.py``) |
| ``ek-otel serve`` accepting spans from the real SDK exporters (3 client processes): spans/s, loss, p99 export latency, peak RSS | the decode floor of the same spans |
| ``ek-otel serve`` scoring: protobuf bodies replayed by cheap clients until every run is scored | the decode floor of the same spans, and offline ``ek-otel score`` of the same dump |
| start-up: ``ek-otel --version``, ``ek-otel bfcl --help`` | ``python -c pass`` |
| ``ek-otel bfcl`` vs the official checker, whole processes, all single-turn categories of bfcl-real | the official ``eval_runner.runner`` in its own process |
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
SECTIONS = ("startup", "score", "serve", "serve-scoring", "bfcl", "growth")


def ek_otel_cmd() -> list:
    path = shutil.which("ek-otel", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return [path] if path else [sys.executable, "-m", "ek_otel"]


def before_cmd(args) -> list:
    """``ek-otel`` of the ``--before`` source tree (same interpreter, that tree first on the path)."""
    return ["env", f"PYTHONPATH={os.path.abspath(args.before)}", sys.executable, "-m", "ek_otel"]


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
    for fmt in ingest.FORMATS:
        path = paths[fmt]
        floors, runs, before = [], [], []
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        for _ in range(args.repeat):  # alternated: floor, score, (before), floor, score, ...
            gc.collect()
            t = time.process_time()
            n = ingest.floor(path, fmt)
            floors.append(time.process_time() - t)
            runs.append(ingest.run_child(ek_otel_cmd() + ["score", path, "--gold", gold, *jobs,
                                                          "--json", os.path.join(work, f"score-{fmt}.json")]))
            if args.before:
                before.append(ingest.run_child(before_cmd(args) + [
                    "score", path, "--gold", gold, "--json", os.path.join(work, f"before-{fmt}.json")]))
        floor_s = min(floors)
        child_cpu = min(r.cpu_s for r in runs)
        child = best(runs)
        row(f"{fmt}: decode floor (one process, CPU)", f"{n / floor_s:,.0f} spans/s", "1.00x", f"{floor_s:.2f} s")
        row(f"{fmt}: ek-otel score, CPU of all its processes", f"{n / child_cpu:,.0f} spans/s",
            f"{floor_s / child_cpu:.2f}x", f"{child_cpu:.2f} s")
        row(f"{fmt}: ek-otel score, wall", f"{n / child.wall_s:,.0f} spans/s",
            f"{floor_s / child.wall_s:.2f}x", f"{child.wall_s:.2f} s, peak RSS {child.max_rss_mib:.0f} MiB"
            f"{', ' + ' '.join(jobs) if jobs else ''}")
        if before:
            then = best(before)
            then_cpu = min(r.cpu_s for r in before)
            row(f"{fmt}: before ({args.before}), CPU", f"{n / then_cpu:,.0f} spans/s",
                f"{floor_s / then_cpu:.2f}x", f"{then_cpu:.2f} s")
            row(f"{fmt}: before, wall", f"{n / then.wall_s:,.0f} spans/s", f"{floor_s / then.wall_s:.2f}x",
                f"{then.wall_s:.2f} s, peak RSS {then.max_rss_mib:.0f} MiB")
        out[fmt] = {"floor_s": floor_s, "score_cpu_s": child_cpu, "score_wall_s": child.wall_s,
                    "ratio_cpu": floor_s / child_cpu, "ratio_wall": floor_s / child.wall_s,
                    "peak_rss_mib": child.max_rss_mib}
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
    os.makedirs(os.path.join(work, "serve-load"))
    load_args = argparse.Namespace(grace=1.0, server_args=[], protocol="http", spans=args.spans,
                                   clients=args.clients, client_nice=0, batch=512)
    figures = serve_load.run_load(load_args, os.path.join(work, "serve-load"), gold)
    rate = figures["accepted_spans_per_s"]
    row("decode floor of the same spans (CPU)", f"{floor:,.0f} spans/s", "1.00x")
    row("accepted (acknowledged spans / wall)", f"{rate:,.0f} spans/s", f"{rate / floor:.2f}x", "target >= 0.35x")
    row("zero loss", str(figures["zero_loss"]), "",
        f"{figures['spans_in_store']:,} stored of {figures['spans_sent']:,} sent")
    row("p99 export latency", f"{figures['p99_export_latency_ms']:.0f} ms", "", "target <= 250 ms")
    row("peak RSS, server + scoring worker", f"{figures['peak_rss_mib']:.0f} MiB", "", "target <= 256 MiB")
    figures["decode_floor_spans_per_s"] = floor
    return figures


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


def bench_serve_scoring(args, work: str, offline: dict) -> dict:
    import serve_load

    print(f"== ek-otel serve scoring: {args.spans:,} spans replayed as protobuf bodies, until every run "
          f"is scored ({load()})")
    folder = os.path.join(work, "serve-scoring")
    os.makedirs(folder)
    if offline:
        dump, gold = offline["dump"]["frames"], offline["gold"]
    else:
        paths = ingest.generate(folder, args.spans, 512, ("frames",))
        dump, gold = paths["frames"], os.path.join(folder, "gold.jsonl")
    gc.collect()
    t = time.process_time()
    n = ingest.floor(dump, "frames")
    floor_s = time.process_time() - t
    bodies = list(ingest._read_frames(dump))
    server = serve_load.Server(folder, gold, ["--grace", "0.2"])
    try:
        start = time.perf_counter()
        _Replayer(server.http_port, bodies, args.clients).run()
        accepted = time.perf_counter() - start
        traces = server.count("SELECT COUNT(*) FROM traces")
        deadline = time.monotonic() + 900
        while server.count("SELECT COUNT(*) FROM traces WHERE state!='open'") < traces \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        scored = time.perf_counter() - start
        done = server.count("SELECT COUNT(*) FROM traces WHERE state!='open'")
        cpu = server.cpu_s()
    finally:
        server.stop()
    rate = n / scored
    row("decode floor of the same spans (CPU)", f"{n / floor_s:,.0f} spans/s", "1.00x", f"{floor_s:.2f} s")
    row(f"all accepted after {accepted:.1f} s; all {done:,} of {traces:,} runs scored after",
        f"{scored:.1f} s", "", f"server CPU {cpu:.1f} s")
    row("runs scored (spans / time to the last score)", f"{rate:,.0f} spans/s", f"{floor_s / scored:.2f}x",
        "target >= 0.35x")
    out = {"floor_s": floor_s, "accepted_s": accepted, "scored_s": scored, "ratio": floor_s / scored,
           "traces": traces, "scored_traces": done, "server_cpu_s": cpu}
    if offline:
        offline_wall = offline["frames"]["score_wall_s"]
        row("vs offline `ek-otel score` of the same dump (wall)", f"{offline_wall:.1f} s",
            f"{offline_wall / scored:.2f}x", "target >= 1.0x: live no slower than offline")
        out["vs_offline"] = offline_wall / scored
    return out


def bench_bfcl(args, work: str) -> dict:
    real = Path(args.real)
    print(f"== ek-otel bfcl vs the official checker, whole processes, single-turn categories of {real} "
          f"({load()})")
    from ek_otel.bfcl.categories import SINGLE_TURN
    from ek_otel.bfcl.runner import find_result_files

    files = [f for f in find_result_files([str(real / "result")]) if f.category in SINGLE_TURN]
    if not files:
        print("  skipped: no bfcl-real result files")
        return {}
    result_dir = Path(work) / "bfcl" / "result"
    for result_file in files:
        target = result_dir / Path(result_file.path).relative_to(real / "result")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(result_file.path, target)
    entries = sum(len(f.records) for f in files)
    official = ("import sys; from pathlib import Path\n"
                "from ek_otel.bfcl.official import official_eval_runner\n"
                "runner = official_eval_runner()\n"
                "if runner is None: sys.exit(3)\n"
                f"runner.runner(None, {list(SINGLE_TURN)!r}, Path(sys.argv[1]), Path(sys.argv[2]))\n")
    commands = {
        "official": [sys.executable, "-c", official, str(result_dir), str(Path(work) / "bfcl" / "score-official")],
        "ek-otel": ek_otel_cmd() + ["bfcl", str(result_dir), "--score-dir", str(Path(work) / "bfcl" / "score-ek")],
    }
    if args.before:
        commands["before"] = before_cmd(args) + ["bfcl", str(result_dir), "--score-dir",
                                                 str(Path(work) / "bfcl" / "score-before")]
    best_runs = alternate(commands, max(3, args.repeat))
    o, e = best_runs["official"], best_runs["ek-otel"]
    row(f"official eval_runner.runner, {entries:,} entries (baseline)", f"{o.wall_s:.2f} s", "1.0x",
        f"CPU {o.cpu_s:.2f} s")
    row("ek-otel bfcl", f"{e.wall_s:.2f} s", f"{o.wall_s / e.wall_s:.1f}x",
        f"CPU {e.cpu_s:.2f} s ({o.cpu_s / e.cpu_s:.1f}x); target >= 10x")
    if args.before:
        b = best_runs["before"]
        row("before: ek-otel bfcl", f"{b.wall_s:.2f} s", f"{o.wall_s / b.wall_s:.1f}x",
            f"CPU {b.cpu_s:.2f} s ({o.cpu_s / b.cpu_s:.1f}x)")
    return {"entries": entries, "official_wall_s": o.wall_s, "ek_wall_s": e.wall_s,
            "ratio_wall": o.wall_s / e.wall_s, "ratio_cpu": o.cpu_s / e.cpu_s}


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
    with tempfile.TemporaryDirectory(prefix="ek-bench-all-") as work:
        if "startup" in only:
            report["startup"] = bench_startup(args)
        if "score" in only:
            report["score"] = bench_score(args, work)
        if "serve" in only:
            report["serve"] = bench_serve(args, work)
        if "serve-scoring" in only:
            report["serve_scoring"] = bench_serve_scoring(args, work, report.get("score", {}))
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
