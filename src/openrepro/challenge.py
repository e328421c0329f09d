"""Challenge folders: ``openrepro init`` creates one, every other command opens one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import tomli_w
from sqlalchemy import select

from openrepro.config import CONFIG_FILE, Settings, load_settings
from openrepro.errors import ChallengeExistsError, ConfigError, StoreError
from openrepro.store import Challenge, Store

__all__ = ["ChallengeContext", "init_challenge", "open_challenge"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass
class ChallengeContext:
    """An opened challenge: its settings, its store and the id of its Challenge row."""

    settings: Settings
    store: Store
    challenge_id: int

    def close(self) -> None:
        self.store.dispose()


def _ensure_challenge_row(store: Store, settings: Settings) -> int:
    with store.session() as session:
        row = session.scalar(select(Challenge).where(Challenge.name == settings.name))
        if row is None:
            row = Challenge(name=settings.name, venue=settings.venue, title=settings.title)
            session.add(row)
            session.flush()
        return row.id


def init_challenge(
    directory: Path,
    name: str,
    *,
    venue: str = "",
    title: str = "",
    database_url: str | None = None,
) -> ChallengeContext:
    """Create a challenge folder with ``openrepro.toml`` and a migrated database.

    Refuses to touch a folder that already holds a challenge (its config or its SQLite file).
    """
    if not _NAME.match(name):
        raise ConfigError(
            f"invalid challenge name {name!r}: use letters, digits, '.', '_' or '-' (max 100)"
        )
    config = directory / CONFIG_FILE
    if config.exists():
        raise ChallengeExistsError(f"{config} already exists; refusing to overwrite a challenge")
    data = {"name": name, "venue": venue, "title": title or name}
    if database_url:
        data["database_url"] = database_url
    settings = Settings.model_validate({**data, "directory": directory.resolve()})
    url = settings.resolved_database_url()
    if url.startswith("sqlite:///") and Path(url.removeprefix("sqlite:///")).exists():
        raise ChallengeExistsError(f"{url.removeprefix('sqlite:///')} already exists")
    directory.mkdir(parents=True, exist_ok=True)
    store = Store(url)
    store.upgrade()
    with store.session() as session:
        if session.scalar(select(Challenge.id).where(Challenge.name == name)) is not None:
            store.dispose()
            raise ChallengeExistsError(f"the database already holds a challenge named {name!r}")
    challenge_id = _ensure_challenge_row(store, settings)
    config.write_text(tomli_w.dumps(data), encoding="utf-8")
    return ChallengeContext(
        settings=load_settings(directory), store=store, challenge_id=challenge_id
    )


def open_challenge(directory: Path | None = None, *, migrate: bool = True) -> ChallengeContext:
    """Open the challenge in ``directory`` (or the one found from the current folder)."""
    settings = load_settings(directory)
    store = Store(settings.resolved_database_url())
    if migrate:
        store.upgrade()
    elif not store.has_tables():
        raise StoreError(f"{store.safe_url} has no openrepro tables; run `openrepro db upgrade`")
    return ChallengeContext(
        settings=settings, store=store, challenge_id=_ensure_challenge_row(store, settings)
    )
