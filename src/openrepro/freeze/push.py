"""``openrepro freeze OUT --push owner/name``: the frozen folder as a Hugging Face Dataset.

The Dataset repo is created if missing (``create_repo(repo_type="dataset", exist_ok=True)``) and
the folder is uploaded with ``upload_folder``. The endpoint is the challenge's ``hf_endpoint``
setting (empty: the public Hub); the token is ``HF_TOKEN`` (else the ``hf_token`` setting, else
whatever huggingface_hub finds). Every failure is a :class:`PushError` naming the repo and the
HTTP status; the token never appears in a message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled
from pydantic import BaseModel

from openrepro.errors import OpenReproError
from openrepro.logbooks.publish import PublishError, check_repo_id

__all__ = ["PushError", "PushReport", "hub_token", "push_dataset"]


class PushError(OpenReproError):
    """Uploading the frozen dataset failed (the message names the repo and the HTTP status)."""


class PushReport(BaseModel):
    repo_id: str
    url: str
    commit: str
    files: list[str]


def _check_repo_id(repo_id: str) -> None:
    try:
        check_repo_id(repo_id, "dataset")
    except PublishError as exc:
        raise PushError(str(exc)) from exc


def hub_token(configured: str = "") -> str | None:
    """``HF_TOKEN``, else the configured token, else None (huggingface_hub's own lookup)."""
    return os.environ.get("HF_TOKEN") or configured or None


def _scrub(message: str, token: str | None) -> str:
    first = message.strip().splitlines()[0] if message.strip() else message
    return first.replace(token, "***") if token else first


@contextmanager
def _hub_errors(repo_id: str, token: str | None) -> Iterator[None]:
    where = f"dataset {repo_id}"
    try:
        yield
    except HfHubHTTPError as exc:
        status = exc.response.status_code
        detail = exc.server_message or exc.response.reason_phrase or "error"
        raise PushError(_scrub(f"{where}: HTTP {status}: {detail}", token)) from exc
    except OfflineModeIsEnabled as exc:
        raise PushError(f"{where}: HF_HUB_OFFLINE is set, the Hub cannot be reached") from exc
    except httpx2.TransportError as exc:
        raise PushError(_scrub(f"{where}: cannot reach the Hub ({exc})", token)) from exc
    except ValueError as exc:  # e.g. card metadata the Hub refused
        raise PushError(_scrub(f"{where}: {exc}", token)) from exc


def push_dataset(
    folder: Path,
    repo_id: str,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    private: bool = False,
    message: str = "Freeze of the reproduction record",
) -> PushReport:
    """Upload the frozen ``folder`` as the Dataset ``repo_id`` (created if missing)."""
    _check_repo_id(repo_id)
    if not folder.is_dir():
        raise PushError(f"{folder}: not a folder")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    api = HfApi(endpoint=endpoint or None, token=token)
    with _hub_errors(repo_id, token):
        repo = api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        info = api.upload_folder(
            repo_id=repo_id, repo_type="dataset", folder_path=folder, commit_message=message
        )
    return PushReport(repo_id=repo_id, url=str(repo), commit=str(info.oid), files=files)
