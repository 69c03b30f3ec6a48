"""docs/ARCHITECTURE.md matches the code: its module index lists every module of ek_otel (a
module added and not described fails here) and nothing that does not exist; every package
has its section (job, what it takes and gives, what it must never import), and every
top-level module is named in one. The layer rules themselves are the import-linter
contracts of ``.importlinter`` (``lint-imports`` in ``.ci/run``): each contract the page
names exists, and each contract is named on the page."""

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


SECTIONS = PAGE.split("## Packages", 1)[-1].split("\n## ", 1)[0] if "## Packages" in PAGE else ""


def _section(heading_name: str) -> str:
    match = re.search(rf"^### `{re.escape(heading_name)}`[^\n]*\n(.*?)(?=^### |\Z)", SECTIONS, re.M | re.S)
    return match.group(1) if match else ""


def test_every_package_has_its_section_with_job_io_and_what_it_never_imports():
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    missing = [p for p in packages if not _section(f"ek_otel/{p}/")]
    assert not missing, f"docs/ARCHITECTURE.md has no '### `ek_otel/<package>/`' section for {missing}"
    for name in packages:
        body = _section(f"ek_otel/{name}/")
        for field in ("**Job**", "**Takes / gives**", "**Never import"):
            assert field in body, f"the section of ek_otel/{name}/ lacks {field}"


def test_every_top_level_module_is_named_in_a_section():
    modules = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    missing = [m for m in modules if f"`ek_otel/{m}`" not in SECTIONS and f"`{m}`" not in SECTIONS]
    assert not missing, f"no section of docs/ARCHITECTURE.md names {missing}"


def test_the_contracts_the_page_names_are_those_of_importlinter():
    config = (ROOT / ".importlinter").read_text(encoding="utf-8")
    defined = set(re.findall(r"^\[importlinter:contract:([a-z-]+)\]", config, re.M))
    named = set(re.findall(r"contracts?\s+`([a-z-]+)`(?:,\s+`([a-z-]+)`)?", PAGE))
    named = {n for pair in named for n in pair if n}
    assert named <= defined, f"the page names contracts that .importlinter lacks: {sorted(named - defined)}"
    assert defined <= named, f"contracts the page does not name: {sorted(defined - named)}"
