"""The README documents every command and setting, and its reference is not stale."""

from __future__ import annotations

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
