"""What starting the command line costs: ``openrepro --help`` imports no command's module, and
neither it nor ``openrepro status --help`` loads scipy, FastAPI, Ray or huggingface_hub (the
figures are bench/cli_start.py's)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import typer.main

from openrepro.cli import COMMANDS, app

HEAVY = ("scipy", "fastapi", "ray", "huggingface_hub")

# Run in a fresh interpreter: the test process has imported everything already.
PROBE = """
import json, sys
from openrepro.cli import app
args = sys.argv[1:]
if args:
    try:
        app(args)
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*args: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize("args", [(), ("--help",), ("status", "--help")])
def test_starting_loads_no_heavy_package(args: tuple[str, ...]) -> None:
    assert _heavy(_loaded(*args)) == []


def test_the_listing_imports_no_command_module() -> None:
    loaded = _loaded("--help")
    commands = sorted(m for m in loaded if m.startswith("openrepro.cli."))
    assert commands == [], "`openrepro --help` imported command modules"
    assert "openrepro.store" not in loaded


def test_a_command_imports_its_own_module_only() -> None:
    loaded = _loaded("db", "--help")
    assert "openrepro.cli.db" in loaded
    assert "openrepro.cli.claims" not in loaded and "openrepro.cli.judge" not in loaded


def _words(text: str) -> str:
    return " ".join(text.split())


def test_every_listed_summary_opens_its_command_help() -> None:
    """The listing's summaries cannot drift from the commands: each is the start of the help
    the command itself prints."""
    root = typer.main.get_command(app)
    ctx = root.make_context("openrepro", [], resilient_parsing=True)
    assert isinstance(root, typer.core.TyperGroup)
    assert root.list_commands(ctx) == list(COMMANDS)
    for name, summary in COMMANDS.items():
        command = root.get_command(ctx, name)
        assert command is not None and command.name == name
        assert command.callback is not None or isinstance(command, typer.core.TyperGroup), name
        assert _words(command.help or "").startswith(_words(summary).rstrip(".")), name


def test_help_lists_every_command_with_its_summary() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "openrepro", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "", "PYTHONPATH": ":".join(sys.path)},
    )
    assert result.returncode == 0, result.stderr
    rows = {m[0]: _words(m[1]) for m in re.findall(r"│ (\w+) +(.+?) *│", result.stdout)}
    for name, summary in COMMANDS.items():
        assert rows.get(name) == _words(summary), name
