"""``openrepro freeze OUT --push owner/name``: the frozen folder as a Hugging Face Dataset.

The Dataset repo is created if missing (``create_repo(repo_type="dataset", exist_ok=True)``) and
the folder is uploaded with ``upload_folder``. The endpoint is the challenge's ``hf_endpoint``
setting (empty: the public Hub); the token is ``HF_TOKEN`` (else the ``hf_token`` setting, else
whatever huggingface_hub finds). Every failure is a :class:`PushError` naming the repo and the
HTTP status; the token never appears in a message.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from openrepro.errors import PushError
from openrepro.hub import check_repo_id, hub_errors

__all__ = ["PushReport", "push_dataset"]


class PushReport(BaseModel):
    repo_id: str
    url: str
    commit: str
    files: list[str]


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
    from huggingface_hub import HfApi

    check_repo_id(repo_id, "dataset", PushError)
    if not folder.is_dir():
        raise PushError(f"{folder}: not a folder")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    api = HfApi(endpoint=endpoint or None, token=token)
    with hub_errors(f"dataset {repo_id}", token, PushError):
        repo = api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        info = api.upload_folder(
            repo_id=repo_id, repo_type="dataset", folder_path=folder, commit_message=message
        )
    return PushReport(repo_id=repo_id, url=str(repo), commit=str(info.oid), files=files)
