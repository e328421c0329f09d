"""Fixtures of the organizer workflows: the scenario's real Trackio logbooks, made once."""

from __future__ import annotations

from pathlib import Path

import pytest
from organizer_scenario import build_workspaces


@pytest.fixture(scope="session")
def organizer_workspaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_workspaces(tmp_path_factory.mktemp("organizer-logbooks"))
