"""Tokens in the user's config: XDG_CONFIG_HOME honoured, mode 0600, one entry per board,
OPENREPRO_TOKEN overriding, a broken file refused with its path named."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from openrepro.errors import ConfigError
from openrepro.remote import (
    credentials_path,
    find_credential,
    normalise_server,
    save_credential,
    stored_servers,
)


def test_tokens_are_kept_per_board_readable_by_their_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("OPENREPRO_TOKEN", raising=False)
    assert find_credential("https://a.example.org") is None
    path = save_credential("https://A.example.org/", "ada", "orp_a")
    save_credential("http://127.0.0.1:8000", "ada2", "orp_b")
    assert path == credentials_path() == tmp_path / "cfg" / "openrepro" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    found = find_credential("https://a.example.org")
    assert found is not None and (found.handle, found.token) == ("ada", "orp_a")
    assert stored_servers() == ["http://127.0.0.1:8000", "https://a.example.org"]
    save_credential("https://a.example.org", "ada", "orp_c")  # a new token replaces the old
    assert json.loads(path.read_text())["servers"]["https://a.example.org"]["token"] == "orp_c"
    monkeypatch.setenv("OPENREPRO_TOKEN", "orp_env")
    env = find_credential("https://elsewhere.example.org")
    assert env is not None and env.token == "orp_env"


def test_a_broken_credentials_file_is_named_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("OPENREPRO_TOKEN", raising=False)
    path = tmp_path / "openrepro" / "credentials.json"
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"credentials\.json"):
        save_credential("https://a.example.org", "ada", "orp_a")
    assert path.read_text() == "{not json"  # nothing overwritten


def test_a_board_url_is_checked_and_normalised() -> None:
    assert normalise_server("HTTPS://Repro.Example.org/board/") == "https://repro.example.org/board"
    with pytest.raises(ConfigError, match="http"):
        normalise_server("repro.example.org")
