"""docs/ARCHITECTURE.md matches the code: its module index lists every module of ek_otel (a
module added and not described fails here) and nothing that does not exist; every package
named in its tables exists. The layer rules themselves are the import-linter contracts of
``.importlinter`` (``lint-imports`` in ``.ci/run``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ek_otel"
PAGE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
INDEX = PAGE.split("## Module index", 1)[1] if "## Module index" in PAGE else ""


def modules() -> list:
    """Every module of ek_otel by its path inside the package (the package's own __init__
    and __main__ aside)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(PACKAGE)
        if len(rel.parts) == 1 and path.name in ("__init__.py", "__main__.py"):
            continue
        found.append(str(rel))
    return found


def test_the_page_has_a_module_index():
    assert INDEX, "docs/ARCHITECTURE.md needs its '## Module index' section"


def test_every_module_is_in_the_index():
    listed = set(re.findall(r"^  - `([^`]+\.py)`: \S", INDEX, re.M))
    missing = [m for m in modules() if m not in listed]
    assert not missing, f"docs/ARCHITECTURE.md's module index lacks {missing}: describe them"


def test_every_listed_module_and_named_package_exists():
    stale = [m for m in re.findall(r"^  - `([^`]+\.py)`", INDEX, re.M) if not (PACKAGE / m).exists()]
    stale += [p for p in re.findall(r"`ek_otel/([a-z_/]+(?:\.py|/))`", PAGE) if not (PACKAGE / p).exists()]
    assert not stale, f"docs/ARCHITECTURE.md names what does not exist: {sorted(set(stale))}"


def test_every_package_has_its_row_in_the_tables():
    tables = PAGE.split("## Module index", 1)[0]
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    missing = [p for p in packages if f"`ek_otel/{p}/" not in tables]
    assert not missing, f"no row names the packages {missing}"
