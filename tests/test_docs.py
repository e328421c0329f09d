"""The README documents every command, setting and package, its reference is not stale, and
tests/ mirrors the packages."""

from __future__ import annotations

import re
from pathlib import Path

from openrepro.cli.reference import END, START, update_readme
from openrepro.config import Settings

README = Path(__file__).parent.parent / "README.md"


def test_readme_reference_is_current() -> None:
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text
    assert update_readme(text) == text, (
        "README.md is stale: run `.venv/bin/python -m openrepro.cli.reference --write README.md`"
    )


def test_every_setting_is_documented() -> None:
    text = README.read_text(encoding="utf-8")
    for name, field in Settings.model_fields.items():
        if field.exclude:
            continue
        assert f"`OPENREPRO_{name.upper()}`" in text
        assert field.description, f"setting {name} has no description"


def test_readme_names_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "bash scripts/demo.sh" in text
    assert "bash scripts/test.sh" in text
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test.sh" in ci


SRC = README.parent / "src" / "openrepro"
TESTS = Path(__file__).parent
# Suites that test the whole system rather than one package (README, Development).
CROSS_CUTTING_DIRS = {"security", "scale"}
CROSS_CUTTING_FILES = {"test_participant_flow.py", "test_docs.py", "test_architecture.py"}
NOT_TESTS = {"data", "__pycache__"}


def _packages() -> set[str]:
    return {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}


def _modules() -> set[str]:
    return {p.stem for p in SRC.glob("*.py") if not p.name.startswith("_")}


def _layout_map() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start, end = "<!-- layout:start -->", "<!-- layout:end -->"
    assert start in text and end in text, "README.md lost its layout map markers"
    block = text[text.index(start) : text.index(end)].splitlines()
    src_lines = []
    for line in block:
        if line.startswith(("tests/", "bench/")):
            break
        src_lines.append(line.removeprefix("src/openrepro/"))
    return re.findall(r"^\s+([a-z_]+(?:/|\.py))\s", "\n".join(src_lines), re.MULTILINE)


def test_readme_layout_map_lists_every_package_and_nothing_else() -> None:
    entries = _layout_map()
    listed_packages = {e.removesuffix("/") for e in entries if e.endswith("/")}
    listed_modules = {e.removesuffix(".py") for e in entries if e.endswith(".py")}
    assert len(entries) == len(set(entries)), f"listed twice: {sorted(entries)}"
    assert sorted(_packages() - listed_packages) == [], "packages missing from README's map"
    assert sorted(listed_packages - _packages()) == [], (
        "README's map lists packages that do not exist"
    )
    assert sorted(_modules() - listed_modules) == [], "modules missing from README's map"
    assert sorted(listed_modules - _modules()) == [], "README's map lists modules that do not exist"


def test_tests_mirror_the_packages() -> None:
    packages = _packages()
    missing = [p for p in sorted(packages) if not any((TESTS / p).glob("test_*.py"))]
    assert missing == [], f"packages without tests/<package>/test_*.py: {missing}"
    # Folders holding Python files (a moved suite may leave an empty folder of caches behind).
    folders = {p.name for p in TESTS.iterdir() if any(p.glob("*.py"))} - NOT_TESTS
    stray = sorted(folders - packages - CROSS_CUTTING_DIRS)
    assert stray == [], f"test folders named after no package: {stray} (see README, Development)"
    top = {p.name for p in TESTS.glob("test_*.py")} - CROSS_CUTTING_FILES
    loose = sorted(
        name for name in top if name.removeprefix("test_").removesuffix(".py") not in _modules()
    )
    assert loose == [], f"top-level tests named after no top-level module: {loose}"


def test_the_repository_cites_only_itself() -> None:
    """Code and docs point to docs/design.md, not to a design page or a tracker outside."""
    outside = re.compile(r"(?-i:\bDESIGN\.md\b)|\bissue:? #?\d+\b|\(issue: ", re.IGNORECASE)
    roots = [README, *(README.parent / d for d in ("src", "docs", "tests", "bench", "scripts"))]
    found = []
    for root in roots:
        files = [root] if root.is_file() else root.rglob("*")
        for path in files:
            if path.suffix not in {".py", ".md", ".sh", ".toml", ".html", ".txt"}:
                continue
            if path.is_file() and path != Path(__file__):  # this file spells the patterns
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    if outside.search(line):
                        found.append(f"{path.relative_to(README.parent)}:{n}: {line.strip()}")
    assert found == []
