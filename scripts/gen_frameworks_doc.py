#!/usr/bin/env python
"""Generate docs/frameworks.md, the support matrix (framework x mode), from the corpus.

Every scenario of ``tests/ingest/corpus`` (spans of a real package, with its ground truth in
``expected.json``) is one row. What each row says comes from two sources, and is checked:

1. **What the package records** (``records.support`` of a framework scenario; for the older
   scenarios, their test flags: ``args``, ``tool_names``, ``cached``, ``reasoning``).
2. **What ek-otel reads**: the script runs ek-otel on the scenario's spans (the episode, and
   ``ek-otel doctor``'s diagnosis for the framework and the fixes) and compares the episode
   with the ground truth. A cell says "read" only when the episode has it right; an item said
   to be read that ek-otel gets wrong is shown as such, with what differs.

Usage:
    python scripts/gen_frameworks_doc.py           # write docs/frameworks.md
    python scripts/gen_frameworks_doc.py --check   # exit 1 when docs/frameworks.md is stale

``tests/test_frameworks_doc.py`` regenerates it in memory and compares, so the committed file
is always the corpus's word.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "ingest" / "corpus"
DOC = ROOT / "docs" / "frameworks.md"

sys.path.insert(0, str(ROOT))

from ek_otel.ingest.bad_input import BadInputReport  # noqa: E402
from ek_otel.ingest.episodes import is_agent_run  # noqa: E402
from ek_otel.ingest.instrumentations import INSTRUMENTATIONS, SUPPORT_ITEMS  # noqa: E402
from ek_otel.pipeline import diagnose_dumps, read_episodes  # noqa: E402

READ = "read"
NOT_RECORDED = "not_recorded"
NOT_READ = "not_read"
WRONG = "wrong"  # said to be read, but ek-otel's episode differs from the ground truth
LOST = "lost"    # the package records it wrong (a known package bug of the scenario)

CELL = {READ: "✅ read", NOT_RECORDED: "➖ not recorded", NOT_READ: "❌ not read",
        LOST: "🐞 lost by the package", WRONG: "⚠️ read wrong"}
COLUMNS = {"tool_names": "tool names", "arguments": "arguments", "call_ids": "call ids",
           "input_tokens": "input", "output_tokens": "output", "cached_tokens": "cached",
           "reasoning_tokens": "reasoning"}
_USAGE_KEY = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
              "cached_tokens": "cached_input_tokens", "reasoning_tokens": "reasoning_tokens"}
_COST_FIELD = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
               "cached_tokens": "cached_input_tokens", "reasoning_tokens": "reasoning_tokens"}


@dataclass
class Row:
    scenario: str
    framework: str
    mode: str
    version: str
    scopes: str
    cells: dict = field(default_factory=dict)
    fixes: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    differences: list = field(default_factory=list)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", (name or "").lower())


_KNOWN_NAMES = {_norm(i.framework): i.framework for i in INSTRUMENTATIONS}


def _files(folder: Path) -> list:
    return sorted(str(p) for p in folder.glob("*.pb"))


def _claimed(records: dict, episode) -> dict:
    """What the package records, as the scenario says (framework scenarios), or as its test
    flags say (the older scenarios)."""
    if "support" in records:
        return dict(records["support"])
    names = bool(records.get("args") or records.get("tool_names"))
    ids = bool(episode.trajectory.steps) and all(s.call_id for s in episode.trajectory.steps)
    return {
        "tool_names": READ if names else NOT_RECORDED,
        "arguments": READ if records.get("args") else NOT_RECORDED,
        "call_ids": READ if names and ids else NOT_RECORDED,
        "input_tokens": READ,
        "output_tokens": READ,
        "cached_tokens": READ if records.get("cached") else NOT_RECORDED,
        "reasoning_tokens": READ if records.get("reasoning") else NOT_RECORDED,
    }


def _check(item: str, episode, expected: dict) -> str:
    """"" when the episode has the item as the ground truth says, else what differs."""
    records = expected["records"]
    steps = episode.trajectory.steps
    calls = expected.get("calls", [])
    if records.get("hosted") == "not_recorded":  # the package drops the hosted calls
        calls = [c for c in calls if not c.get("hosted")]
    if item == "tool_names":
        got, want = sorted(s.tool for s in steps), sorted(c["tool"] for c in calls)
        return "" if got == want else f"tools {got} != {want}"
    if item == "arguments":
        got = sorted(json.dumps([s.tool, dict(s.args)], sort_keys=True) for s in steps)
        want = sorted(json.dumps([c["tool"], c["args"]], sort_keys=True) for c in calls)
        if not all(s.args_captured for s in steps):
            return "arguments not captured"
        return "" if got == want else "arguments differ from the calls made"
    if item == "call_ids":
        if not steps or not all(s.call_id for s in steps):
            return "not every call has an id"
        prefix = records.get("call_id_prefix", "")
        want = {prefix + c["call_id"] for c in calls if c.get("call_id")}
        return "" if want <= {s.call_id for s in steps} else "call ids differ from the model's"
    usage = expected.get("usage", {})
    want = usage.get(_USAGE_KEY[item], 0)
    if item == "output_tokens":
        want += records.get("output_tokens_extra", 0)
    got = getattr(episode.cost, _COST_FIELD[item]) if episode.cost else 0
    return "" if got == want and got else f"{COLUMNS[item]} tokens {got} != {want}"


def _version(expected: dict, records: dict, framework: str) -> str:
    """The framework's pinned version: the scenario's, else that of the requirement whose
    name is the framework's (the longest such name: ``openai-agents`` before ``openai``)."""
    if records.get("framework_version"):
        return str(records["framework_version"])
    wanted = _norm(framework)
    best = ("", "")
    for requirement in expected.get("requirements", []):
        name, _, version = requirement.partition("==")
        name = _norm(name)
        if len(name) >= 3 and (wanted.startswith(name) or name.startswith(wanted)) \
                and len(name) > len(best[0]):
            best = (name, version)
    return best[1]


def _mode(expected: dict, records: dict, scopes: list) -> str:
    if records.get("mode"):
        return str(records["mode"])
    packages = ", ".join(dict.fromkeys(scopes)) or "?"
    env = ", ".join(f"{k}={v}" for k, v in sorted((expected.get("env") or {}).items()))
    return packages + (f"; {env}" if env else "")


def scenario_row(folder: Path) -> Row:
    """The row of one scenario: ek-otel run on its spans, compared with its ground truth."""
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    records = expected["records"]
    files = _files(folder)
    episodes = [e for e in read_episodes(files, report=BadInputReport())
                if is_agent_run(e)]  # an MCP session's protocol traces are not runs
    diagnosis = diagnose_dumps(files, report=BadInputReport())
    episode, trace = episodes[0], diagnosis.traces[0]
    scopes = [f"{s.known.package} {s.version}".strip() for s in trace.scopes if s.known]
    framework = records.get("framework") or expected.get("framework") or trace.framework or "?"
    framework = _KNOWN_NAMES.get(_norm(framework), framework)
    row = Row(folder.name, framework, _mode(expected, records, scopes),
              _version(expected, records, framework),
              ", ".join(sorted({f"`{s.name}`" for s in trace.scopes if s.known is not None})))
    for item, state in _claimed(records, episode).items():
        if state == READ:
            why = _check(item, episode, expected)
            if why and (records.get("package_bugs") or records.get("overwrites_parent")
                        or (records.get("afc") and item in _USAGE_KEY)):
                state = LOST  # the scenario records that the package loses calls or tokens
                row.notes.append(f"{COLUMNS[item]}: the package loses it ({why})")
            elif why:
                state = WRONG
                row.differences.append(f"{COLUMNS[item]}: {why}")
        row.cells[item] = state
    fixes = dict(records.get("fixes") or {})
    for gap in trace.gaps:  # the older scenarios: the doctor's fix for what is missing
        if row.cells.get(gap.item) in (NOT_RECORDED, NOT_READ):
            fixes.setdefault(gap.item, gap.fix)
    row.fixes = {item: fix for item, fix in fixes.items() if row.cells.get(item) != READ}
    row.notes = list(records.get("notes") or []) + row.notes
    if records.get("hosted") == "read":
        row.notes.append("hosted tools (run by the provider): read, as steps marked `hosted`")
    elif records.get("hosted") == "not_recorded":
        row.notes.append("hosted tools (run by the provider): not recorded by the package")
    if records.get("afc"):
        row.notes.append("automatic function calling: one model span for the whole loop, "
                         "with the last turn's usage only")
    if records.get("not_runs"):
        row.notes.append(f"{len(records['not_runs'])} session traces that are not agent runs "
                         "(never scored): " + ", ".join(records["not_runs"]))
    if records.get("internal_tools"):
        row.notes.append("framework-internal tools (score with `--ignore-tool`): "
                         + ", ".join(f"`{t}`" for t in records["internal_tools"]))
    return row


def rows() -> list:
    """Every scenario's row, by framework then scenario."""
    found = [scenario_row(p) for p in sorted(CORPUS.iterdir()) if (p / "expected.json").is_file()]
    return sorted(found, key=lambda r: (r.framework.lower(), r.scenario))


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(all_rows: list) -> str:
    """docs/frameworks.md as text."""
    frameworks = list(dict.fromkeys(r.framework for r in all_rows))
    totals = Counter(state for r in all_rows for state in r.cells.values())
    out = [
        "# What ek-otel reads, framework by framework",
        "",
        "<!-- Generated by scripts/gen_frameworks_doc.py from tests/ingest/corpus: do not edit. -->",
        "",
        "Each row is one scenario of the corpus: a real package, pinned, run against ek-otel's",
        "fake model servers with the same two-turn script and tools, its spans committed as",
        "OTLP protobuf and JSON Lines with the ground truth. For every item the row says whether",
        "the package records it and whether ek-otel reads it; **read** is checked by running",
        "ek-otel on the spans and comparing the episode with the ground truth.",
        "",
        f"- {CELL[READ]}: the package records it and ek-otel's episode has it right;",
        f"- {CELL[NOT_RECORDED]}: the package does not put it in its telemetry (in this mode);"
        " the fix, when there is one, is listed below the table;",
        f"- {CELL[NOT_READ]}: the package records it, but ek-otel does not read it (e.g. only in"
        " a Python repr);",
        f"- {CELL[LOST]}: the package records it wrong or loses part of it (a known bug of"
        " that version, listed);",
        f"- {CELL[WRONG]}: said to be read, but ek-otel's episode differs from the ground truth"
        " (what differs is listed).",
        "",
        "`ek-otel doctor TRACES...` says the same about your own traces: which of these",
        "instrumentations it found, what it read, and the setting that fixes each gap.",
        "",
        f"{len(all_rows)} scenarios, {len(frameworks)} frameworks and clients; "
        + ", ".join(f"{totals[s]} cells {CELL[s].split(' ', 1)[1]}" for s in CELL if totals[s]) + ".",
        "",
        "## Contents",
        "",
    ]
    for name in frameworks:
        anchor = re.sub(r"[^a-z0-9 -]", "", name.lower()).replace(" ", "-")
        count = sum(1 for r in all_rows if r.framework == name)
        out.append(f"- [{name}](#{anchor}) ({count} {'mode' if count == 1 else 'modes'})")
    for name in frameworks:
        mine = [r for r in all_rows if r.framework == name]
        scopes = sorted({s for r in mine for s in r.scopes.split(", ") if s})
        out += ["", f"## {name}", ""]
        if scopes:
            out += [f"Instrumentation scopes: {', '.join(scopes)}.", ""]
        header = ["scenario", "framework version", "mode"] + [COLUMNS[i] for i in SUPPORT_ITEMS]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for r in mine:
            cells = [f"`{r.scenario}`", r.version or "", _cell_text(r.mode)]
            cells += [CELL[r.cells.get(i, NOT_RECORDED)] for i in SUPPORT_ITEMS]
            out.append("| " + " | ".join(cells) + " |")
        extra = [r for r in mine if r.fixes or r.notes or r.differences]
        if extra:
            out.append("")
        for r in extra:
            out.append(f"- `{r.scenario}`:")
            by_fix: dict = {}
            for item in SUPPORT_ITEMS:
                if item in r.fixes:
                    by_fix.setdefault(r.fixes[item], []).append(COLUMNS[item])
            for fix, items in by_fix.items():
                out.append(f"  - fix ({', '.join(items)}): {_cell_text(fix)}")
            for note in r.notes:
                out.append(f"  - {_cell_text(note)}")
            for why in r.differences:
                out.append(f"  - ek-otel reads it wrong: {_cell_text(why)}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/frameworks.md differs from what the corpus gives")
    args = parser.parse_args(argv)
    text = render(rows())
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC.relative_to(ROOT)} is stale: run python scripts/gen_frameworks_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
