"""`openrepro freeze OUT --push owner/name`: the frozen folder becomes an HF Dataset.

The Hub cannot be reached from here: the real huggingface_hub client (``create_repo`` and
``upload_folder``) talks to a stand-in on 127.0.0.1 speaking the Hub API (see
:mod:`fake_hub_datasets`), so the requests, the NDJSON commit and the errors are the client's own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_hub_datasets import configure_client, dataset_files, serve_hub
from huggingface_hub import snapshot_download
from typer.testing import CliRunner

from openrepro.challenge import init_challenge
from openrepro.cli import app
from openrepro.errors import PushError
from openrepro.freeze import push_dataset

REPO = "orgs-team/test-frozen"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    configure_client(monkeypatch, tmp_path)
    with serve_hub() as fake:
        yield fake


def _challenge(tmp_path: Path, endpoint: str) -> Path:
    ctx = init_challenge(tmp_path / "ch", "pushy", venue="V/2026",
                         database_url=f"sqlite:///{tmp_path / 'p.db'}")  # fmt: skip
    ctx.close()
    with (tmp_path / "ch" / "openrepro.toml").open("a", encoding="utf-8") as f:
        f.write(f'hf_endpoint = "{endpoint}"\n')
    return tmp_path / "ch"


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_freeze_push_uploads_the_folder_as_a_dataset(
    tmp_path: Path, hub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _challenge(tmp_path, hub.url)
    monkeypatch.setenv("HF_TOKEN", "hf_test")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["--dir", str(folder), "freeze", str(out), "--push", REPO, "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    local = _tree(out)
    assert dataset_files(hub, REPO) == local  # every file, byte for byte, in one commit
    repo = hub.repo("dataset", REPO)
    assert len(repo.commits) == 1 and repo.commits[0].summary.startswith("Freeze of pushy")
    assert report["pushed"]["commit"] == repo.sha
    assert report["pushed"]["url"] == f"{hub.url}/datasets/{REPO}"
    assert "hf_test" not in result.output
    assert not hub.unknown

    # the pushed repo reads back (the reads `datasets` starts from) and is the same dataset
    snapshot = snapshot_download(REPO, repo_type="dataset", endpoint=hub.url, token="hf_test",
                                 cache_dir=tmp_path / "hf-cache")  # fmt: skip
    assert _tree(Path(snapshot)) == local

    # pushing the same freeze again: the repo is reused and nothing changes
    again = CliRunner().invoke(app, ["--dir", str(folder), "freeze", str(out), "--push", REPO])
    assert again.exit_code == 0, again.output
    assert dataset_files(hub, REPO) == local and _tree(out) == local


def test_push_errors_name_the_repo_and_never_the_token(tmp_path: Path, hub: Any) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "README.md").write_text("---\nlicense: mit\n---\n")
    with pytest.raises(PushError, match=f"dataset {REPO}: HTTP 401"):
        push_dataset(folder, REPO, endpoint=hub.url, token="hf_wrong")
    with pytest.raises(PushError, match="invalid dataset id"):
        push_dataset(folder, "no-slash", endpoint=hub.url, token="hf_test")
    with pytest.raises(PushError) as info:
        push_dataset(folder, REPO, endpoint="http://127.0.0.1:9", token="hf_secret_value")
    assert "hf_secret_value" not in str(info.value)
    assert REPO not in {key[1] for key in hub.repos}
