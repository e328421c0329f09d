"""The CLI end to end, as a subprocess: what a person or an agent sees."""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_forkserver import ForkServer

from openrepro.store import head_revision

DATA = Path(__file__).parent.parent / "data"


# The environment the tests start with; CLI calls with it (but for openrepro's own settings) run
# in children forked by one server that imported the CLI once (~2 s a call saved); others, and
# `fresh=True`, start `python -m openrepro` itself.
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
_server: ForkServer | None = None


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None, fresh: bool = False
) -> subprocess.CompletedProcess[str]:
    """``python -m openrepro *args`` in ``cwd``, without the shell's OPENREPRO_* settings (with
    ``env``'s), output captured; in a forked child of :class:`ForkServer` unless ``fresh``."""
    global _server
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    full_env.update(env or {})
    if not fresh:
        if _server is None:
            _server = ForkServer(BASE_ENV)
            atexit.register(_server.close)
        if _server.can_run(full_env):
            return _server.run(list(args), cwd, full_env, timeout=120)
    return subprocess.run(
        [sys.executable, "-m", "openrepro", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def folder(tmp_path: Path, database_url: str) -> Path:
    result = run("init", "icml", "--venue", "ICML.cc/2025/Conference",
                 "--database-url", database_url, cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return tmp_path / "icml"


def test_import_list_show_search_json(folder: Path) -> None:
    first = run("papers", "import", str(DATA / "icml2025.json"), "-f", "json", cwd=folder)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert (report["created"], report["updated"], report["skipped"]) == (3340, 0, [])
    again = json.loads(
        run("papers", "import", str(DATA / "icml2025.json"), "-f", "json", cwd=folder).stdout
    )
    assert (again["created"], again["updated"]) == (0, 3340)

    listing = json.loads(run("papers", "ls", "--status", "Oral", "-f", "json", cwd=folder).stdout)
    assert listing["total"] == 12
    assert all(p["status"] == "Oral" for p in listing["papers"])

    shown = json.loads(run("papers", "show", "site_8aee33c0ce", "-f", "json", cwd=folder).stdout)
    assert shown["title"].startswith("$K^2$VAE: A Koopman-Kalman")
    assert shown["authors"][0] == "Xingjian Wu"

    hits = json.loads(run("papers", "search", "Koopman Kalman", "-f", "json", cwd=folder).stdout)
    assert hits and hits[0]["venue_id"] == "site_8aee33c0ce"


def test_people_output_and_errors(folder: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("id,title\nok,Fine\n,No id\nx\n", encoding="utf-8")
    result = run("papers", "import", str(bad), cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "1 new, 0 updated, 2 skipped" in result.stdout
    assert "bad.csv: line 3" in result.stderr and "no id" in result.stderr
    assert "bad.csv: line 4" in result.stderr

    missing = run("papers", "show", "nope", cwd=folder, fresh=True)  # `python -m` itself
    assert missing.returncode == 3
    assert "no paper with id 'nope'" in missing.stderr
    assert "Traceback" not in missing.stderr

    unknown_source = run("papers", "import", "nothing-here.txt", cwd=folder)
    assert unknown_source.returncode == 1
    assert "no such file or folder" in unknown_source.stderr

    listing = run("papers", "ls", cwd=folder)
    assert "1 of 1 papers" in listing.stdout and "Fine" in listing.stdout


def test_init_refuses_existing_and_commands_need_a_challenge(tmp_path: Path) -> None:
    assert run("init", "c", cwd=tmp_path).returncode == 0
    again = run("init", "c", cwd=tmp_path)
    assert again.returncode == 1
    assert "already exists" in again.stderr
    nowhere = tmp_path / "empty"
    nowhere.mkdir()
    result = run("papers", "ls", cwd=nowhere)
    assert result.returncode == 2
    assert "openrepro init" in result.stderr


def test_usage_error_is_exit_2_without_traceback(tmp_path: Path) -> None:
    result = run("papers", "ls", "--limit", "many", cwd=tmp_path, fresh=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    # a forked call (every other call here) answers as `python -m openrepro` itself does
    forked = run("papers", "ls", "--limit", "many", cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (2, result.stdout, result.stderr)
    assert "Usage: python -m openrepro papers ls" in forked.stderr


def test_demo_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    """`openrepro demo` replaces only its own earlier folder (the full run: tests/demo/)."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    result = run("demo", "--dir", "mine", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "not an openrepro demo folder" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_db_status(folder: Path) -> None:
    info = json.loads(run("db", "status", "-f", "json", cwd=folder).stdout)
    assert info["revision"] == info["head"] == head_revision()
    assert info["head"] is not None
    assert info["dialect"] in {"sqlite", "postgresql"}
