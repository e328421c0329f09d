"""Settings: openrepro.toml, OPENREPRO_* overrides, challenge folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from openrepro.challenge import init_challenge, open_challenge
from openrepro.config import find_challenge_dir, load_settings
from openrepro.errors import ChallengeExistsError, ChallengeNotFoundError, ConfigError


def test_init_writes_config_and_refuses_to_overwrite(tmp_path: Path) -> None:
    folder = tmp_path / "icml"
    ctx = init_challenge(folder, "icml2026", venue="ICML.cc/2026/Conference")
    ctx.close()
    text = (folder / "openrepro.toml").read_text()
    assert 'name = "icml2026"' in text
    assert 'venue = "ICML.cc/2026/Conference"' in text
    assert (folder / "openrepro.db").exists()
    before = text
    with pytest.raises(ChallengeExistsError):
        init_challenge(folder, "other")
    assert (folder / "openrepro.toml").read_text() == before


def test_init_refuses_existing_database_file(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "openrepro.db").write_bytes(b"keep me")
    with pytest.raises(ChallengeExistsError):
        init_challenge(folder, "c")
    assert (folder / "openrepro.db").read_bytes() == b"keep me"
    assert not (folder / "openrepro.toml").exists()


@pytest.mark.parametrize("name", ["", "../x", "a b", "x" * 101])
def test_init_rejects_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError):
        init_challenge(tmp_path / "c", name)


def test_env_overrides_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_challenge(tmp_path, "c", venue="A").close()
    monkeypatch.setenv("OPENREPRO_VENUE", "B")
    monkeypatch.setenv("OPENREPRO_BATCH_SIZE", "7")
    settings = load_settings(tmp_path)
    assert settings.venue == "B"
    assert settings.batch_size == 7


def test_bad_env_value_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_challenge(tmp_path, "c").close()
    monkeypatch.setenv("OPENREPRO_BATCH_SIZE", "lots")
    with pytest.raises(ConfigError, match="batch_size"):
        load_settings(tmp_path)


def test_unknown_and_malformed_settings(tmp_path: Path) -> None:
    (tmp_path / "openrepro.toml").write_text('name = "c"\ncolour = "red"\n')
    with pytest.raises(ConfigError, match="colour"):
        load_settings(tmp_path)
    (tmp_path / "openrepro.toml").write_text('name = "c\n')
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_settings(tmp_path)


def test_folder_is_found_from_a_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_challenge(tmp_path / "c", "c").close()
    deep = tmp_path / "c" / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert find_challenge_dir() == (tmp_path / "c").resolve()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ChallengeNotFoundError):
        find_challenge_dir()
    monkeypatch.setenv("OPENREPRO_HOME", str(tmp_path / "c"))
    assert find_challenge_dir() == (tmp_path / "c").resolve()


def test_relative_sqlite_path_is_anchored_at_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_challenge(tmp_path / "c", "c").close()
    monkeypatch.chdir(tmp_path)
    ctx = open_challenge(tmp_path / "c")
    assert ctx.store.url == f"sqlite:///{(tmp_path / 'c' / 'openrepro.db').resolve()}"
    ctx.close()
