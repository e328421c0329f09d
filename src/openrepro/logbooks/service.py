"""Stored logbooks: listing, loading the normalised record, locating its files."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.errors import NotFoundError
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.submit import blob_path
from openrepro.store import Logbook, Paper, Participant
from openrepro.store.revisions import latest_logbook_ids

__all__ = [
    "LogbookSummary",
    "list_logbooks",
    "load_logbook",
    "locator",
    "logbook_summary",
]


class LogbookSummary(BaseModel):
    id: int
    paper_id: str
    participant: str
    revision: str
    format: str
    title: str
    runs: int
    failed_runs: int
    metrics: int
    claims: list[str]
    submitted_at: datetime
    current: bool = True  # the newest revision of its (paper, participant): the one that counts


def logbook_summary(
    book: Logbook, venue_id: str, handle: str, *, current: bool = True
) -> LogbookSummary:
    """A stored logbook in a line. Counted from the stored manifest (a validated
    :class:`LogbookRecord` dump) without validating it again: lists of many logbooks stay cheap."""
    manifest = book.manifest
    runs = manifest.get("runs") or []
    return LogbookSummary(
        id=book.id, paper_id=venue_id, participant=handle, revision=book.revision,
        format=book.format, title=book.title, runs=len(runs),
        failed_runs=sum(1 for r in runs if r.get("exit_code") not in (0, None)),
        metrics=len(manifest.get("metrics") or []), claims=list(manifest.get("claims") or []),
        submitted_at=book.submitted_at, current=current,
    )  # fmt: skip


def list_logbooks(
    session: Session, challenge_id: int, *, paper: str | None = None, participant: str | None = None
) -> list[LogbookSummary]:
    query = (
        select(Logbook, Paper.venue_id, Participant.handle)
        .join(Paper, Paper.id == Logbook.paper_id)
        .join(Participant, Participant.id == Logbook.participant_id)
        .where(Paper.challenge_id == challenge_id)
        .order_by(Logbook.id)
    )
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if participant is not None:
        query = query.where(Participant.handle == participant)
    current = set(latest_logbook_ids(session, challenge_id, paper=paper, participant=participant))
    return [
        logbook_summary(book, venue, handle, current=book.id in current)
        for book, venue, handle in session.execute(query)
    ]


def load_logbook(session: Session, challenge_id: int, logbook_id: int) -> LogbookRecord:
    book = session.scalar(
        select(Logbook)
        .join(Paper, Paper.id == Logbook.paper_id)
        .where(Logbook.id == logbook_id, Paper.challenge_id == challenge_id)
    )
    if book is None:
        raise NotFoundError(f"no logbook {logbook_id}")
    return LogbookRecord.model_validate(book.manifest)


def locator(files_dir: Path) -> Callable[[FileRef], Path | None]:
    """A function finding a stored file's bytes in the content-addressed store."""

    def locate(ref: FileRef) -> Path | None:
        path = blob_path(files_dir, ref.sha256)
        return path if path.is_file() else None

    return locate
