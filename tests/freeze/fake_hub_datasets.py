"""The local Hub stand-in (``tests/logbooks/fake_hub.py``), reused for Dataset repos.

The real Hub cannot be reached from here, so ``openrepro freeze --push`` is tested against
:class:`fake_hub.FakeHub` on 127.0.0.1. It already answers every request ``create_repo`` and
``upload_folder`` send for a Dataset (``POST /api/repos/create``, ``POST /api/validate-yaml``
for the card, ``POST /api/datasets/{id}/preupload/main``, ``POST /api/datasets/{id}/commit/main``
as NDJSON) and the reads ``snapshot_download`` needs, so nothing is added to it: this module only
makes it importable from ``tests/freeze`` (it lives in another test folder) and configures the
client the way the fake needs (Xet off: the fake answers ``regular`` to every preupload, so
files travel base64 inside the commit; the real Hub would send Parquet files through LFS/Xet).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from huggingface_hub import constants

__all__ = ["FakeHub", "configure_client", "dataset_files", "serve_hub"]


def _load(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


_fake_hub = _load("fake_hub", Path(__file__).parents[1] / "logbooks" / "fake_hub.py")
FakeHub = _fake_hub.FakeHub
serve_hub = _fake_hub.serve_hub


def configure_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The client as on an organizer's machine, whatever the test shell has set (huggingface_hub
    reads its settings into ``constants`` at import, so those are patched)."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))


def dataset_files(hub: object, repo_id: str) -> dict[str, bytes]:
    """The files the fake Hub holds for the Dataset ``repo_id``."""
    files: dict[str, bytes] = hub.repo("dataset", repo_id).files  # type: ignore[attr-defined]
    return dict(files)
