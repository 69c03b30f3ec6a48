"""What the Node framework scenarios share: npm packages installed from the committed
lockfile, a loopback OTLP/HTTP capture server, and the corpus files written from the bodies
the JavaScript exporters really sent.

A Node scenario runs ``node <folder>/<script> CONFIG_JSON`` (the folder under
scripts/corpus_frameworks/node/ holds its package.json and package-lock.json; ``npm ci``
installs exactly those versions, node_modules is never committed). The script exports its
spans to the capture server with the OpenTelemetry JS OTLP/HTTP exporters, protobuf and JSON
at once (see _capture.py), so both corpus forms hold the same spans;

    versions.txt  node's version and ``npm ls --depth=0`` (the lockfile pins the rest)

(imported by the plug-ins, which put this folder on sys.path; its leading underscore keeps
regen_corpus.py from taking it for a plug-in)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

NODE_ROOT = Path(__file__).resolve().parent / "node"


def npm_ci(folder: Path) -> None:
    """Install the folder's locked packages (once per lockfile content)."""
    lock = folder / "package-lock.json"
    marker = folder / "node_modules" / ".ek-lock"
    if marker.exists() and marker.read_bytes() == lock.read_bytes():
        return
    if shutil.which("npm") is None:
        raise SystemExit("the Node scenarios need node and npm (node >= 20)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=folder,
                   check=True, timeout=900)
    marker.write_bytes(lock.read_bytes())


def run_node(folder: Path, script: str, config: dict, env: dict | None = None) -> None:
    """``node folder/script CONFIG_JSON`` (after ``npm ci``), with OTEL_* variables of the
    calling shell removed."""
    npm_ci(folder)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    environ.update(env or {})
    subprocess.run(["node", str(folder / script), json.dumps(config)], cwd=folder, check=True,
                   env=environ, timeout=300)


def write_versions(out: Path, folder: Path) -> None:
    """versions.txt: node's version and the direct npm packages (package-lock.json pins the rest)."""
    node = subprocess.run(["node", "--version"], check=True, capture_output=True,
                          text=True).stdout.strip()
    tree = subprocess.run(["npm", "ls", "--depth=0"], cwd=folder, capture_output=True,
                          text=True).stdout
    packages = tree.splitlines()[1:]  # the first line names the folder itself
    (out / "versions.txt").write_text("\n".join([f"node {node}", *packages]) + "\n")


def regenerate(kit, scenario: str, folder: Path, settings: dict) -> Path:
    """The whole outer step of a Node scenario: ``folder/run.mjs`` against the fake OpenAI
    server and the capture server (see _capture.py); writes the scenario's corpus folder.
    ``settings`` go to the script with the servers' URLs, the task id and the tools."""
    import _capture

    out = kit.CORPUS / scenario
    out.mkdir(parents=True, exist_ok=True)
    fake = kit._load_fake_server()
    with fake.FakeOpenAI() as server, _capture.capture_server() as (otlp, bodies):
        config = dict(settings, baseURL=server.base_url, otlp=otlp, taskId=kit.TASK_ID,
                      tools=[list(spec) for spec in fake.tool_specs()])
        run_node(folder, "run.mjs", config)
    spans = _capture.write_trace_files(out, bodies)
    write_versions(out, folder)
    kit.write_expected(out, scenario, fake, f"node:{folder.name}", lock_requirements(folder),
                       settings)
    print(f"{scenario}: {spans} spans -> {out}")
    return out


def lock_requirements(folder: Path) -> list:
    """The direct dependencies of a Node folder, ``name@version`` as pinned."""
    deps = json.loads((folder / "package.json").read_text())["dependencies"]
    return [f"{name}@{version}" for name, version in sorted(deps.items())]
