"""`openrepro logbook publish`: an openrepro bundle as a static Hugging Face Space.

This does for a bundle what ``trackio logbook publish`` does for a Trackio logbook: the Space
``owner/name`` (SDK ``static``) gets the rendered logbook (``index.html`` and the logbook's own
images under ``files/<sha256>.<ext>``, see :func:`~openrepro.logbooks.site.build_site`) and a
``README.md`` whose front matter is the Space configuration, tagged ``trackio-logbook`` and
``openrepro`` (plus ``arxiv:<id>`` when the paper id is an arXiv id, which links the Space from
the paper's page on the Hub). The agent's trace, when given, goes to the Dataset
``owner/name-traces`` with the same visibility.

Each repo is created if missing (an existing one is reused) and receives exactly one commit,
sent with ``HfApi.create_commit`` rather than ``upload_folder``: with ``hf_xet`` installed,
``upload_folder`` may split a folder into several commits. Files the Space already holds with the
same content are left out of the commit by huggingface_hub; if nothing changed, no commit is
made and the report gives the current head. Every failure is a :class:`PublishError` naming the
repo and the HTTP status; the token never appears in a message.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from openrepro import hub
from openrepro.errors import PublishError
from openrepro.logbooks.bundle import read_bundle
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.site import Locate, build_site
from openrepro.papers.sources.arxiv import normalize_arxiv_id

if TYPE_CHECKING:  # huggingface_hub is imported when something is published
    from huggingface_hub import HfApi

__all__ = ["SPACE_TAGS", "TRACE_FILE", "PublishReport", "check_repo_id", "publish_bundle"]

SPACE_TAGS = ("trackio-logbook", "openrepro")
TRACE_SUFFIX = "-traces"
TRACE_FILE = "trace.jsonl"  # the trace's path in the dataset


class PublishReport(BaseModel):
    """What was published where."""

    space_id: str
    space_url: str
    space_commit: str
    files: list[str] = Field(default_factory=list)  # paths the Space holds after the commit
    dataset_id: str | None = None
    dataset_url: str | None = None
    dataset_commit: str | None = None
    trace_files: list[str] = Field(default_factory=list)


def check_repo_id(repo_id: str, what: str = "Space") -> tuple[str, str]:
    """``owner/name`` split in two; a :class:`PublishError` if the Hub would refuse the id."""
    return hub.check_repo_id(repo_id, what, PublishError)


def space_readme(record: LogbookRecord, dataset_url: str | None = None) -> str:
    """The Space's ``README.md``: its configuration as YAML front matter, then a short card."""
    tags = list(SPACE_TAGS)
    arxiv_id = normalize_arxiv_id(record.paper_id) if record.paper_id else None
    if arxiv_id:
        tags.append(f"arxiv:{arxiv_id}")
    title = record.title or f"Reproduction of {record.paper_id or 'a paper'}"
    front = [
        "---",
        f"title: {json.dumps(title[:60], ensure_ascii=False)}",  # the Hub caps titles
        "emoji: 🔬",
        "colorFrom: yellow",
        "colorTo: red",
        "sdk: static",
        "app_file: index.html",
        "pinned: false",
        "tags:",
        *(f"  - {json.dumps(tag)}" for tag in tags),
        "---",
    ]
    body = [f"# {title}", "", "An openrepro logbook (a reproduction attempt), rendered as a page."]
    if arxiv_id:
        body.append(f"\nPaper: https://arxiv.org/abs/{arxiv_id}")
    if dataset_url:
        body.append(f"\nAgent trace: {dataset_url}")
    return "\n".join(front) + "\n\n" + "\n".join(body) + "\n"


def _site_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _commit(api: HfApi, repo_id: str, repo_type: str, files: dict[str, Path], message: str) -> str:
    from huggingface_hub import CommitOperationAdd

    operations = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(source))
        for path, source in sorted(files.items())
    ]
    info = api.create_commit(
        repo_id=repo_id, repo_type=repo_type, operations=operations, commit_message=message
    )
    return str(info.oid)


def _publish_trace(api: HfApi, dataset_id: str, trace: Path, private: bool, title: str) -> str:
    api.create_repo(dataset_id, repo_type="dataset", exist_ok=True, private=private)
    return _commit(api, dataset_id, "dataset", {TRACE_FILE: trace}, f"Agent trace: {title}")


def _locate(root: Path) -> Locate:
    def locate(ref: FileRef) -> Path:
        return root / ref.path

    return locate


def publish_bundle(
    root: Path,
    space_id: str,
    *,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    trace: Path | None = None,
) -> PublishReport:
    """Publish the bundle folder ``root`` as the static Space ``space_id`` (and its trace).

    ``token`` defaults to the one huggingface_hub finds (``HF_TOKEN``, ``hf auth login``);
    ``endpoint`` to the Hub's (``HF_ENDPOINT``). ``trace`` is a JSONL file of the agent's trace.
    """
    owner, name = check_repo_id(space_id)
    dataset_id = f"{owner}/{name}{TRACE_SUFFIX}" if trace is not None else None
    if trace is not None and dataset_id is not None:
        check_repo_id(dataset_id, "trace dataset")
        if not trace.is_file():
            raise PublishError(f"trace {trace}: not a file")
    from huggingface_hub import HfApi

    record = read_bundle(root)
    title = record.title or record.paper_id or space_id
    api = HfApi(endpoint=endpoint, token=token)
    dataset_url = f"{api.endpoint}/datasets/{dataset_id}" if dataset_id else None
    with tempfile.TemporaryDirectory(prefix="openrepro-publish-") as tmp:
        site = Path(tmp) / "site"
        build_site(record, _locate(root), site)
        (site / "README.md").write_text(space_readme(record, dataset_url), encoding="utf-8")
        files = _site_files(site)
        with hub.hub_errors(f"Space {space_id}", token, PublishError):
            api.create_repo(
                space_id, repo_type="space", space_sdk="static", exist_ok=True, private=private
            )
        dataset_commit = None
        if trace is not None and dataset_id is not None:
            with hub.hub_errors(f"Dataset {dataset_id}", token, PublishError):
                dataset_commit = _publish_trace(api, dataset_id, trace, private, title)
        with hub.hub_errors(f"Space {space_id}", token, PublishError):
            space_commit = _commit(
                api, space_id, "space", {p: site / p for p in files}, f"Publish logbook: {title}"
            )
    return PublishReport(
        space_id=space_id,
        space_url=f"{api.endpoint}/spaces/{space_id}",
        space_commit=space_commit,
        files=files,
        dataset_id=dataset_id,
        dataset_url=dataset_url,
        dataset_commit=dataset_commit,
        trace_files=[TRACE_FILE] if dataset_id else [],
    )
