"""The repository holds only what its authors wrote.

Other projects' test data lives beside the checkout, in ``../shared/foreign`` (see
:mod:`tests.outside`); their code and prose nowhere. These checks keep it so:

- no tracked file has the bytes of a file of ``../shared/foreign``, nor one of its long
  lines (a copy cut or reformatted by a line is still a copy);
- no tracked file is named ``source.*`` or ``SOURCES`` (the names extracts and their lists
  of origins went by);
- no tracked file quotes ``bfcl_eval``'s prompts (read from the installed package at run
  time where ek-otel needs one);
- the docs a contributor reads tell them to keep other projects' files out, and where such
  data lives.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: A line of a foreign file this long found in a tracked file is taken for a copy.
LONG_LINE = 80
DOCS = ("docs/ARCHITECTURE.md", "docs/gold.md", "docs/traces-from-elsewhere.md")


def tracked() -> list:
    """The files git tracks in this checkout (that exist in the working tree)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    return [ROOT / name for name in names if name and (ROOT / name).is_file()]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_no_tracked_file_has_the_bytes_of_a_foreign_file(foreign):
    theirs = {_digest(p): p for p in foreign.rglob("*") if p.is_file()}
    assert len(theirs) > 50
    copies = [(str(p.relative_to(ROOT)), str(theirs[d].relative_to(foreign)))
              for p in tracked() for d in [_digest(p)] if d in theirs]
    assert copies == []


def test_no_tracked_file_holds_a_long_line_of_a_foreign_file(foreign):
    lines = set()
    for path in foreign.rglob("*"):
        # SOURCE.json's liberties are the converter's own words (scripts/external_fixtures.py)
        if path.is_file() and path.name not in ("README.md", "SOURCE.json"):
            text = path.read_text(encoding="utf-8", errors="replace")
            lines.update(line.strip() for line in text.splitlines()
                         if len(line.strip()) >= LONG_LINE)
    assert lines
    found = []
    for path in tracked():
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            continue  # binary (protobuf dumps, images)
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip() in lines:
                found.append((str(path.relative_to(ROOT)), line.strip()[:60]))
    assert found == []


def test_no_tracked_file_is_named_as_an_extract_or_a_list_of_origins():
    named = [str(p.relative_to(ROOT)) for p in tracked()
             if p.name.lower().startswith("source.") or p.name.upper() == "SOURCES"]
    assert named == []


def test_no_tracked_file_quotes_bfcl_evals_prompts():
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None:
        pytest.skip("bfcl_eval not installed")  # .ci/run installs it
    source = Path(spec.submodule_search_locations[0]) / "constants" / "default_prompts.py"
    prompts = [node.value for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
               if isinstance(node, ast.Constant) and isinstance(node.value, str)
               and len(node.value) >= LONG_LINE]
    assert prompts
    quoting = [str(p.relative_to(ROOT)) for p in tracked() if p.suffix in (".py", ".md", ".json")
               and any(text[:LONG_LINE] in p.read_text(encoding="utf-8", errors="replace")
                       for text in prompts)]
    assert quoting == []


@pytest.mark.parametrize("doc", DOCS)
def test_the_docs_say_where_other_projects_files_live(doc):
    text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
    assert "../shared/foreign" in text
    assert "other projects' files" in text and "never" in text
