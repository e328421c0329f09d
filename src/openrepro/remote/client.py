"""The participant's side of a hosted board: register, upload a logbook, read one's status.

Every call goes to the board's JSON API (``/api/v1``, see docs/board.md) with the token of
:mod:`openrepro.remote.credentials`. The board's errors come back as the same exception classes
(:mod:`openrepro.errors`) with the board's own message; an unreachable board is a
:class:`~openrepro.errors.SourceError` naming the URL.
"""

from __future__ import annotations

import os
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx

from openrepro.errors import (
    AuthError,
    FrozenError,
    LogbookError,
    NotFoundError,
    OpenReproError,
    PermissionDeniedError,
    QueueFullError,
    SourceError,
)
from openrepro.identity import Registration
from openrepro.intake.records import ParticipantStatus
from openrepro.logbooks.manifest import EVIDENCE_MAP_FILE
from openrepro.remote.credentials import (
    TOKEN_ENV,
    Credential,
    find_credential,
    normalise_server,
)
from openrepro.store.judge_queue import QueueStats

if TYPE_CHECKING:  # the judge and the logbook readers load when a command uploads, not before
    from openrepro.intake.records import BoundSubmitReport

__all__ = [
    "pack_workspace",
    "register_remote",
    "remote_status",
    "require_credential",
    "submit_remote",
]

#: What a workspace archive holds beside the files its logbook names: the logbook itself,
#: Trackio's metric stores, the evidence map and a bundle's manifest.
_ALWAYS = (".trackio", "trackio", "logbook", "logbook.json", "manifest.json", EVIDENCE_MAP_FILE)
_TIMEOUT = httpx.Timeout(30.0, read=600.0, write=600.0)

_BY_STATUS: dict[int, type[OpenReproError]] = {
    401: AuthError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: FrozenError,
    413: LogbookError,
    422: LogbookError,
    429: QueueFullError,
}


def _api(server: str, path: str) -> str:
    return f"{normalise_server(server)}/api/v1{path}"


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if body.get("detail"):
            return str(body["detail"])[:300]
    return str(body)[:300]


def _call(server: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    url = _api(server, path)
    try:
        response = httpx.request(method, url, timeout=_TIMEOUT, **kwargs)
    except httpx.HTTPError as exc:
        raise SourceError(f"cannot reach the board at {server} ({exc})") from exc
    if response.status_code >= 400:
        error = _BY_STATUS.get(response.status_code, SourceError)
        message = _message(response)
        if response.status_code == 401:
            message += (f" (the board at {server} refused the token: register again with "
                        f"`openrepro participants register HANDLE --server {server}`, or set "
                        f"{TOKEN_ENV})")  # fmt: skip
        raise error(f"{server}: {message}")
    return response


def require_credential(server: str) -> Credential:
    """The token for ``server``, or a clear error saying how to get one."""
    found = find_credential(server)
    if found is None:
        raise AuthError(
            f"no API token for {normalise_server(server)}: run `openrepro participants register "
            f"HANDLE --server {server}` first (or set {TOKEN_ENV})"
        )
    return found


def register_remote(
    server: str, handle: str, *, team: str | None = None, name: str = "",
    invite: str | None = None,
) -> Registration:  # fmt: skip
    """Register ``handle`` on the board at ``server`` (its registration policy applies)."""
    body: dict[str, Any] = {"handle": handle, "name": name, "team": team, "invite": invite}
    try:
        response = _call(server, "POST", "/participants", json=body)
    except PermissionDeniedError as exc:
        if "already registered" in str(exc):
            raise PermissionDeniedError(
                f"{exc}: the handle is taken on {server}; pick another, or if it is yours, "
                "ask an organizer for a new token (`openrepro participants token HANDLE`)"
            ) from exc
        raise
    return Registration.model_validate(response.json())


def pack_workspace(folder: Path, dest: Path) -> Path:
    """A ``.tar.gz`` of the logbook in ``folder`` as a board reads it: the logbook, Trackio's
    metric stores, the evidence map and every file the logbook names (read here first, so a
    broken logbook is refused before anything is uploaded)."""
    from openrepro.logbooks.submit import read_logbook

    record = read_logbook(folder)
    names = {name for name in _ALWAYS if (folder / name).exists()}
    names |= {ref.path for ref in record.files}
    archive = dest / f"{folder.resolve().name or 'logbook'}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in sorted(names):
            path = folder / name
            if path.is_symlink():
                continue
            tar.add(path, arcname=name, filter=_plain)
    return archive


def _plain(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Plain files and folders only, without the owner's names (a board refuses the rest)."""
    if not (info.isfile() or info.isdir()) or "__pycache__" in info.name.split("/"):
        return None
    info.uname = info.gname = ""
    info.uid = info.gid = 0
    return info


class _Counting:
    """A binary file whose reads report their size (httpx streams a multipart file by reads)."""

    def __init__(self, raw: IO[bytes], advance: Callable[[int], None]) -> None:
        self._raw = raw
        self._advance = advance

    def read(self, size: int = -1) -> bytes:
        chunk = self._raw.read(size)
        self._advance(len(chunk))
        return chunk

    def fileno(self) -> int:
        return self._raw.fileno()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()


def submit_remote(
    server: str, archive: Path, *, token: str, handle: str | None = None,
    paper: str | None = None, advance: Callable[[int], None] | None = None,
) -> BoundSubmitReport:  # fmt: skip
    """Upload ``archive`` to the board's ``POST /api/v1/logbooks``: the board stores it through
    the same submit as ``openrepro submit`` on its own folder and answers the same report,
    per-claim bindings included. ``advance`` is told every chunk's size as it is sent."""
    from openrepro.intake.records import BoundSubmitReport

    fields = {k: v for k, v in (("as", handle), ("paper", paper)) if v}
    with archive.open("rb") as raw:
        body: IO[bytes] = _Counting(raw, advance) if advance else raw  # type: ignore[assignment]
        files = {"file": (archive.name, body, "application/gzip")}
        response = _call(server, "POST", "/logbooks", files=files, data=fields,
                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    return BoundSubmitReport.model_validate(response.json())


def remote_queue(server: str, *, token: str) -> QueueStats:
    """The board's judge queue (an organizer's token): depth, oldest item, throughput,
    failures."""
    response = _call(server, "GET", "/queue", headers={"Authorization": f"Bearer {token}"})
    return QueueStats.model_validate(response.json())


def remote_status(server: str, *, token: str) -> ParticipantStatus:
    """The token's participant's logbooks on the board, with each claim's verdict."""
    response = _call(server, "GET", "/me/logbooks", headers={"Authorization": f"Bearer {token}"})
    status = ParticipantStatus.model_validate(response.json())
    return status.model_copy(update={"server": normalise_server(server)})
